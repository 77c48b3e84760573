// torchedge/kernels/quantized/test/int8_conv_test_data.h
//
// What the conv2d_int8 and conv2d_add_int8 tests share: a geometry and
// quantization, random data for it, the panel layout written from the
// contract's formula, and the Int8ConvProblem the scalar path takes.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

struct Geometry {
  int32_t n, cin, h, w, cout, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  int32_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int32_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  int32_t k() const { return cin / groups * kh * kw; }
};

struct Quant {
  double in_scale = 0.02;
  int32_t in_zp = 3;
  double out_scale = 0.05;
  int32_t out_zp = -5, out_min = -128, out_max = 127;
  bool bias = true;
  // 7: weights drawn from [-64, 63] and the kernel told so (the AVX2 u8
  // path); 8: from [-127, 127], and the argument left out (an older file).
  int32_t weight_bits = 8;
  bool pass_weight_bits = false;  // pass it even when 8 (a current file)
  // Pass weight_sums (each output channel's weight sum, as the fusion stores
  // it; weight_bits then goes too): the dot-product path reads them instead
  // of summing the panels.
  bool pass_weight_sums = false;
  int32_t extra_weight_sums = 0;  // > 0: that many more than Cout (rejected)
};

struct Data {
  std::vector<int8_t> x, w;  // x [N, Cin, H, W]; w [Cout, Cin_g, KH, KW] (PyTorch order)
  std::vector<float> scales, bias;
};

Data random_data(const Geometry& g, uint32_t seed, int32_t weight_bits = 8) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int> w8(weight_bits == 7 ? -64 : -127, weight_bits == 7 ? 63 : 127);
  Data d;
  d.x.resize(static_cast<size_t>(g.n) * g.cin * g.h * g.w);
  for (int8_t& v : d.x) v = static_cast<int8_t>(i8(gen));
  d.w.resize(static_cast<size_t>(g.cout) * g.k());
  for (int8_t& v : d.w) v = static_cast<int8_t>(w8(gen));
  d.scales = random_floats(g.cout, 0.0005f, 0.004f, seed + 1);
  d.bias = random_floats(g.cout, -2.0f, 2.0f, seed + 2);
  return d;
}

// The panel layout, written from the contract's formula.
std::vector<int8_t> to_panels(const Geometry& g, const std::vector<int8_t>& w) {
  const int32_t cout_g = g.cout / g.groups, k = g.k(), kq = (k + 3) / 4 * 4;
  const int32_t panels = (cout_g + 5) / 6;
  std::vector<int8_t> out(static_cast<size_t>(g.groups) * panels * kq * 6, 0);
  for (int32_t gr = 0; gr < g.groups; ++gr) {
    for (int32_t r = 0; r < cout_g; ++r) {
      for (int32_t i = 0; i < k; ++i) {
        const size_t at = (static_cast<size_t>(gr) * panels + r / 6) * kq * 6 + (i & ~3) * 6 +
                          (r % 6) * 4 + (i & 3);
        out[at] = w[static_cast<size_t>(gr * cout_g + r) * k + i];
      }
    }
  }
  return out;
}

// The problem of (g, q, d) on `panels` (to_panels), writing `out`
// (N * Cout * OH * OW int8); no residual.
inline quantized::Int8ConvProblem problem_of(const Geometry& g, const Quant& q, const Data& d,
                                             const std::vector<int8_t>& panels, int8_t* out) {
  quantized::Int8ConvProblem p;
  p.input = d.x.data();
  p.weight = panels.data();
  p.w_scales = d.scales.data();
  p.bias = q.bias ? d.bias.data() : nullptr;
  p.out = out;
  p.batch = g.n;
  p.in_channels = g.cin;
  p.height = g.h;
  p.width = g.w;
  p.out_channels = g.cout;
  p.out_height = g.oh();
  p.out_width = g.ow();
  p.kernel_h = g.kh;
  p.kernel_w = g.kw;
  p.stride_h = g.sh;
  p.stride_w = g.sw;
  p.pad_h = g.ph;
  p.pad_w = g.pw;
  p.dilation_h = g.dh;
  p.dilation_w = g.dw;
  p.groups = g.groups;
  p.weight_bits = q.weight_bits;
  p.in_zero_point = q.in_zp;
  p.in_scale = static_cast<float>(q.in_scale);
  p.inv_out_scale = static_cast<float>(1.0 / q.out_scale);
  p.out_zero_point = static_cast<float>(q.out_zp);
  p.quant_min = static_cast<float>(q.out_min);
  p.quant_max = static_cast<float>(q.out_max);
  return p;
}

}  // namespace
}  // namespace torchedge
