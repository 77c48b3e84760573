// The Cortex-M int8 kernels against kernels/quantized's scalar paths, bit
// for bit, on the host (their portable inner loops; the firmware's ctests
// in QEMU check the SMLAD loops end to end against the host runtime).
// Geometries: the DS-CNN's layers (10x4 stride-2 input convolution, 1x1
// pointwise, 3x3 depthwise), odd channel counts (the two-row loop's tail),
// K not a multiple of 4, groups, strides, padding, dilation; zero points
// at both ends; with and without bias.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cortex_m/support/int8_conv_dsp.h"
#include "kernels/cortex_m/support/int8_depthwise_dsp.h"
#include "kernels/cortex_m/support/int8_linear_dsp.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "kernels/quantized/test/int8_conv_test_data.h"

namespace torchedge {
namespace {

std::vector<Quant> quants() {
  std::vector<Quant> qs(3);
  qs[1].in_zp = -128;
  qs[1].out_zp = 127;
  qs[1].bias = false;
  qs[2].in_zp = 127;
  qs[2].out_min = 0;  // a folded ReLU
  qs[2].out_scale = 0.3;
  return qs;
}

TEST(CortexMConv, EqualsTheQuantizedScalarPath) {
  const Geometry geometries[] = {
      // n cin h  w  cout kh kw sh sw ph pw dh dw groups
      {1, 1, 49, 10, 64, 10, 4, 2, 2, 5, 1, 1, 1, 1},  // DS-CNN input layer
      {1, 64, 25, 5, 64, 1, 1, 1, 1, 0, 0, 1, 1, 1},   // DS-CNN pointwise
      {2, 7, 9, 11, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},    // odd Cout, K = 63
      {1, 6, 8, 8, 10, 3, 2, 2, 1, 0, 1, 2, 1, 2},     // groups, dilation
      {1, 3, 5, 5, 1, 5, 5, 1, 1, 2, 2, 1, 1, 1},      // one output channel
      {2, 10, 3, 7, 8, 1, 1, 1, 1, 0, 0, 1, 1, 2},     // pointwise, groups, Cin_g = 5
  };
  uint32_t seed = 1;
  for (const Geometry& g : geometries) {
    for (const Quant& q : quants()) {
      const Data d = random_data(g, seed++);
      const std::vector<int8_t> panels = to_panels(g, d.w);
      const size_t count = static_cast<size_t>(g.n) * g.cout * g.oh() * g.ow();
      std::vector<int8_t> want(count), got(count, 99);
      const quantized::Int8ConvProblem pw = problem_of(g, q, d, panels, want.data());
      for (int32_t n = 0; n < g.n; ++n) {
        for (int32_t gr = 0; gr < g.groups; ++gr) {
          quantized::int8_conv_scalar(pw, n, gr, 0, g.cout / g.groups);
        }
      }
      const quantized::Int8ConvProblem pg = problem_of(g, q, d, panels, got.data());
      std::vector<int16_t> patch(cortex_m::int8_conv_dsp_scratch_bytes(pg) / sizeof(int16_t));
      cortex_m::int8_conv_dsp(pg, patch.data());
      ASSERT_EQ(want, got) << "Cin " << g.cin << " Cout " << g.cout << " k " << g.kh << "x" << g.kw
                           << " zx " << q.in_zp;
    }
  }
}

TEST(CortexMDepthwise, EqualsTheQuantizedScalarPath) {
  struct Shape {
    int32_t n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw;
  };
  const Shape shapes[] = {
      {1, 64, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1},  // DS-CNN depthwise
      {2, 5, 9, 7, 3, 3, 2, 2, 1, 1, 1, 1},
      {1, 3, 6, 13, 5, 3, 1, 3, 2, 0, 1, 2},
      {1, 2, 4, 4, 3, 3, 1, 1, 3, 3, 1, 1},  // padding wider than the map
  };
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> i8(-128, 127), w8(-127, 127);
  for (const Shape& s : shapes) {
    for (const Quant& q : quants()) {
      quantized::Int8DepthwiseProblem p;
      p.batch = s.n;
      p.channels = s.c;
      p.height = s.h;
      p.width = s.w;
      p.kernel_h = s.kh;
      p.kernel_w = s.kw;
      p.stride_h = s.sh;
      p.stride_w = s.sw;
      p.pad_h = s.ph;
      p.pad_w = s.pw;
      p.dilation_h = s.dh;
      p.dilation_w = s.dw;
      p.out_height = (s.h + 2 * s.ph - s.dh * (s.kh - 1) - 1) / s.sh + 1;
      p.out_width = (s.w + 2 * s.pw - s.dw * (s.kw - 1) - 1) / s.sw + 1;
      std::vector<int8_t> x(static_cast<size_t>(s.n) * s.c * s.h * s.w), w(s.c * s.kh * s.kw);
      for (int8_t& v : x) v = static_cast<int8_t>(i8(gen));
      for (int8_t& v : w) v = static_cast<int8_t>(w8(gen));
      const std::vector<float> scales = random_floats(s.c, 0.0005f, 0.004f, 11);
      const std::vector<float> bias = random_floats(s.c, -2.0f, 2.0f, 12);
      p.input = x.data();
      p.weight = w.data();
      p.w_scales = scales.data();
      p.bias = q.bias ? bias.data() : nullptr;
      p.in_zero_point = q.in_zp;
      p.in_scale = static_cast<float>(q.in_scale);
      p.inv_out_scale = static_cast<float>(1.0 / q.out_scale);
      p.out_zero_point = static_cast<float>(q.out_zp);
      p.quant_min = static_cast<float>(q.out_min);
      p.quant_max = static_cast<float>(q.out_max);
      const size_t count = static_cast<size_t>(p.planes() * p.out_height * p.out_width);
      std::vector<int8_t> want(count), got(count, 99);
      p.out = want.data();
      quantized::int8_depthwise_scalar(p, 0, p.planes());
      p.out = got.data();
      std::vector<int32_t> scratch(cortex_m::int8_depthwise_dsp_scratch_bytes(p) / 4 + 1);
      cortex_m::int8_depthwise_dsp(p, scratch.data());
      ASSERT_EQ(want, got) << "C " << s.c << " " << s.h << "x" << s.w << " stride " << s.sw;
    }
  }
}

// The in-place contract (support/int8_conv_dsp.h, int8_depthwise_dsp.h): out
// written over the input (as the memory planner aliases them) equals a
// separate out bit for bit; shapes the contract excludes are refused.
TEST(CortexMConv, InPlaceEqualsSeparateOutput) {
  const Geometry geometries[] = {
      {1, 64, 25, 5, 64, 1, 1, 1, 1, 0, 0, 1, 1, 1},  // DS-CNN pointwise
      {2, 10, 3, 7, 10, 1, 1, 1, 1, 0, 0, 1, 1, 2},   // groups
      {1, 7, 4, 3, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1},     // Cin not a multiple of 4
  };
  uint32_t seed = 300;
  for (const Geometry& g : geometries) {
    for (const Quant& q : quants()) {
      const Data d = random_data(g, seed++);
      const std::vector<int8_t> panels = to_panels(g, d.w);
      std::vector<int8_t> separate(d.x.size());
      const quantized::Int8ConvProblem ps = problem_of(g, q, d, panels, separate.data());
      ASSERT_TRUE(cortex_m::int8_conv_dsp_in_place_ok(ps));
      std::vector<int16_t> patch(cortex_m::int8_conv_dsp_scratch_bytes(ps) / sizeof(int16_t));
      cortex_m::int8_conv_dsp(ps, patch.data());
      std::vector<int8_t> aliased = d.x;
      quantized::Int8ConvProblem pa = problem_of(g, q, d, panels, aliased.data());
      pa.input = aliased.data();
      cortex_m::int8_conv_dsp(pa, patch.data());
      ASSERT_EQ(separate, aliased) << "Cin " << g.cin << " groups " << g.groups;
    }
  }
  const Geometry not_pointwise{1, 8, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  const Geometry wider{1, 8, 5, 5, 16, 1, 1, 1, 1, 0, 0, 1, 1, 1};
  for (const Geometry& g : {not_pointwise, wider}) {
    const Data d = random_data(g, 1);
    const std::vector<int8_t> panels = to_panels(g, d.w);
    std::vector<int8_t> out(static_cast<size_t>(g.cout) * g.oh() * g.ow());
    EXPECT_FALSE(cortex_m::int8_conv_dsp_in_place_ok(problem_of(g, quants()[0], d, panels, out.data())));
  }
}

TEST(CortexMDepthwise, InPlaceEqualsSeparateOutput) {
  std::mt19937 gen(17);
  std::uniform_int_distribution<int> i8(-128, 127), w8(-127, 127);
  for (const int32_t k : {3, 5}) {
    for (const Quant& q : quants()) {
      quantized::Int8DepthwiseProblem p;
      p.batch = 1;
      p.channels = 64;
      p.height = 25;
      p.width = 5;
      p.kernel_h = p.kernel_w = k;
      p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
      p.pad_h = p.pad_w = k / 2;
      p.out_height = 25;
      p.out_width = 5;
      std::vector<int8_t> x(64 * 25 * 5), w(64 * k * k);
      for (int8_t& v : x) v = static_cast<int8_t>(i8(gen));
      for (int8_t& v : w) v = static_cast<int8_t>(w8(gen));
      const std::vector<float> scales = random_floats(64, 0.0005f, 0.004f, 21);
      const std::vector<float> bias = random_floats(64, -2.0f, 2.0f, 22);
      p.weight = w.data();
      p.w_scales = scales.data();
      p.bias = q.bias ? bias.data() : nullptr;
      p.in_zero_point = q.in_zp;
      p.in_scale = static_cast<float>(q.in_scale);
      p.inv_out_scale = static_cast<float>(1.0 / q.out_scale);
      p.out_zero_point = static_cast<float>(q.out_zp);
      p.quant_min = static_cast<float>(q.out_min);
      p.quant_max = static_cast<float>(q.out_max);
      std::vector<int32_t> scratch(cortex_m::int8_depthwise_dsp_scratch_bytes(p) / 4 + 1);
      std::vector<int8_t> separate(x.size()), aliased = x;
      p.input = x.data();
      p.out = separate.data();
      cortex_m::int8_depthwise_dsp(p, scratch.data());
      p.input = p.out = aliased.data();
      cortex_m::int8_depthwise_dsp(p, scratch.data());
      ASSERT_EQ(separate, aliased) << k << "x" << k;
    }
  }
}

TEST(CortexMLinear, EqualsTheQuantizedScalarPath) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> x9(-255, 255), w8(-127, 127);
  for (const int64_t k : {1, 3, 4, 64, 490, 67}) {
    for (const Quant& q : quants()) {
      quantized::Int8GemmProblem p{};
      p.m = 3;
      p.n = 12;
      p.k = k;
      std::vector<int16_t> x(static_cast<size_t>(p.m * k));
      std::vector<int8_t> w(static_cast<size_t>(p.n * k));
      for (int16_t& v : x) v = static_cast<int16_t>(x9(gen));
      for (int8_t& v : w) v = static_cast<int8_t>(w8(gen));
      const std::vector<float> scales = random_floats(12, 0.0005f, 0.004f, 21);
      const std::vector<float> bias = random_floats(12, -2.0f, 2.0f, 22);
      p.x = x.data();
      p.w = w.data();
      p.w_scales = scales.data();
      p.bias = q.bias ? bias.data() : nullptr;
      p.in_scale = static_cast<float>(q.in_scale);
      p.inv_out_scale = static_cast<float>(1.0 / q.out_scale);
      p.out_zero_point = static_cast<float>(q.out_zp);
      p.quant_min = static_cast<float>(q.out_min);
      p.quant_max = static_cast<float>(q.out_max);
      std::vector<int8_t> want(36), got(36, 99);
      p.out = want.data();
      quantized::int8_gemm_requant_scalar(p, 0, p.n);
      p.out = got.data();
      cortex_m::int8_linear_dsp(p);
      ASSERT_EQ(want, got) << "K " << k;
    }
  }
}

}  // namespace
}  // namespace torchedge
