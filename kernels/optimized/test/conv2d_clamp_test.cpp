// torchedge::conv2d_clamp.out and torchedge::conv2d_add_clamp.out, optimized
// and portable. The optimized kernels must be bit-identical to the unfused
// path they replace (the optimized aten::convolution.out, then the optimized
// aten::add.out with the residual, then the optimized aten::hardtanh.out), NaN
// included, on GEMM (1x1 direct, im2col, Winograd, grouped) and depthwise (3x3 / 1 and
// / 2 register-blocked, 5x5 and dilated generic loops) geometries, random
// ones too, for relu / relu6 / (-0.5, 2) / unbounded ranges, at 1 and 2
// threads; the portable kernel must agree within the conv tolerance. Bad
// arguments are errors, not crashes.
#include <cstring>
#include <limits>
#include <random>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/kernel_list.inc"
#include "kernels/optimized/transformer_kernels.inc"  // aten::add.out
#undef TE_OPTIMIZED_KERNEL
}  // namespace optimized

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Geometry {
  int n, cin, h, w, cout, kh, kw, stride, pad, dil, groups;
  bool bias;
};

const Geometry kGeometries[] = {
    {1, 3, 17, 19, 8, 3, 3, 1, 1, 1, 1, true},     // 3x3 same (im2col GEMM)
    {1, 16, 20, 23, 24, 3, 3, 1, 1, 1, 1, true},   // 3x3 same, Winograd (AVX2)
    {2, 5, 9, 11, 7, 1, 1, 1, 0, 1, 1, false},     // 1x1 direct GEMM, no bias
    {1, 16, 15, 15, 13, 1, 1, 2, 0, 1, 1, true},   // 1x1 stride 2
    {1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 4, true},    // grouped
    {1, 3, 23, 21, 10, 7, 7, 2, 3, 1, 1, true},    // 7x7 / 2 stem
    {2, 12, 14, 13, 12, 3, 3, 1, 1, 1, 12, true},  // depthwise 3x3 / 1
    {1, 5, 56, 56, 5, 3, 3, 1, 1, 1, 5, true},     // depthwise 3x3 / 1, two-row blocks
    {1, 5, 33, 45, 5, 3, 3, 2, 1, 1, 5, true},     // depthwise 3x3 / 2, tail of 7
    {1, 16, 15, 17, 16, 3, 3, 2, 1, 1, 16, false}, // depthwise 3x3 / 2, no bias
    {1, 6, 9, 9, 6, 3, 3, 1, 1, 1, 6, true},       // depthwise 3x3 / 1 direct, narrowest row
    {2, 4, 7, 21, 4, 3, 3, 1, 1, 1, 4, true},      // direct, odd height, overlapping last vector
    {1, 5, 19, 18, 5, 3, 3, 2, 1, 1, 5, true},     // depthwise 3x3 / 2 direct, narrowest row
    {1, 3, 12, 36, 3, 3, 3, 2, 1, 1, 3, false},    // direct / 2, overlapping last vector
    {1, 4, 8, 8, 4, 3, 3, 1, 1, 1, 4, true},       // 3x3 / 1 row of 8: padded copy
    {1, 8, 11, 11, 8, 5, 5, 1, 2, 1, 8, true},     // depthwise 5x5: generic loop
    {2, 32, 11, 13, 32, 5, 5, 1, 2, 1, 32, true},  // depthwise 5x5, 32 channels: blocked kernel
    {1, 48, 12, 9, 48, 5, 5, 2, 2, 1, 48, false},  // depthwise 5x5 / 2 through blocked, no bias
    {1, 16, 7, 7, 16, 3, 3, 3, 1, 1, 16, true},    // depthwise 3x3 / 3 through blocked
    {1, 16, 11, 11, 16, 3, 3, 1, 2, 2, 16, true},  // dilation 2, 16 channels: generic loop
    {1, 4, 12, 12, 4, 3, 3, 1, 1, 2, 4, true},     // depthwise dilation 2: generic loop
};

const double kBounds[][2] = {{0.0, kInf}, {0.0, 6.0}, {-0.5, 2.0}, {-kInf, kInf}};

std::vector<float> random_floats(size_t n, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

size_t numel(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

// One geometry's tensors and the three results compared.
class Case {
 public:
  Case(const Geometry& g, std::mt19937& rng, bool with_nan)
      : g_(g),
        x_(ScalarType::Float, {g.n, g.cin, g.h, g.w}),
        w_(ScalarType::Float, {g.cout, g.cin / g.groups, g.kh, g.kw}),
        b_(ScalarType::Float, {g.cout}),
        out_shape_{g.n, g.cout, (g.h + 2 * g.pad - g.dil * (g.kh - 1) - 1) / g.stride + 1,
                   (g.w + 2 * g.pad - g.dil * (g.kw - 1) - 1) / g.stride + 1},
        r_(ScalarType::Float, out_shape_) {
    std::vector<float> x = random_floats(numel(x_.shape()), rng, 3.0f);
    if (with_nan) {
      for (size_t i = 0; i < x.size(); i += 97) x[i] = std::numeric_limits<float>::quiet_NaN();
    }
    x_.fill(x);
    w_.fill(random_floats(numel(w_.shape()), rng, 1.0f));
    b_.fill(random_floats(static_cast<size_t>(g.cout), rng, 1.0f));
    std::vector<float> r = random_floats(numel(out_shape_), rng, 2.0f);
    if (with_nan) r[r.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    r_.fill(r);
  }

  // conv2d_add_clamp.out (the residual r_) through `fn`.
  std::vector<float> fused_add(KernelFn fn, double lo, double hi, bool* used_scratch = nullptr) {
    TestTensor out(ScalarType::Float, out_shape_);
    Args a;
    a.t(x_).t(w_);
    if (g_.bias) a.t(b_); else a.none();
    a.t(r_).ints({g_.stride}).ints({g_.pad}).ints({g_.dil}).i(g_.groups).d(lo).d(hi).t(out);
    run_in_arena(a, fn, used_scratch);
    return out.values<float>();
  }

  // The unfused residual path: optimized convolution.out, add.out (conv +
  // residual, eager's operand order), hardtanh.out.
  std::vector<float> unfused_add(double lo, double hi) {
    TestTensor conv(ScalarType::Float, out_shape_), sum(ScalarType::Float, out_shape_),
        out(ScalarType::Float, out_shape_);
    Args a;
    conv_inputs(a).b(false).ints({0}).i(g_.groups).t(conv);
    EXPECT_EQ(a.run(&optimized::convolution_out), Error::Ok);
    Args add;
    add.t(conv).t(r_).i(1).t(sum);
    EXPECT_EQ(add.run(&optimized::add_out), Error::Ok);
    Args h;
    h.t(sum).d(lo).d(hi).t(out);
    EXPECT_EQ(h.run(&optimized::hardtanh_out), Error::Ok);
    return out.values<float>();
  }

  // conv2d_clamp.out through `fn`; `*used_scratch` says whether it took temp memory.
  std::vector<float> fused(KernelFn fn, double lo, double hi, bool* used_scratch = nullptr) {
    TestTensor out(ScalarType::Float, out_shape_);
    Args a;
    conv_inputs(a).i(g_.groups).d(lo).d(hi).t(out);
    run_in_arena(a, fn, used_scratch);
    return out.values<float>();
  }

  // The unfused path: optimized convolution.out, then optimized hardtanh.out.
  std::vector<float> unfused(double lo, double hi) {
    TestTensor conv(ScalarType::Float, out_shape_), out(ScalarType::Float, out_shape_);
    Args a;
    conv_inputs(a).b(false).ints({0}).i(g_.groups).t(conv);
    EXPECT_EQ(a.run(&optimized::convolution_out), Error::Ok);
    Args h;
    h.t(conv).d(lo).d(hi).t(out);
    EXPECT_EQ(h.run(&optimized::hardtanh_out), Error::Ok);
    return out.values<float>();
  }

 private:
  // Runs `fn` on `a` with a 16 MiB temp arena; `*used_scratch` (when not
  // null) says whether the kernel took temp memory (the fast path did).
  static void run_in_arena(Args& a, KernelFn fn, bool* used_scratch) {
    std::vector<unsigned char> arena(size_t{16} << 20);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    EXPECT_EQ(a.run_with(fn, ctx), Error::Ok);
    if (used_scratch != nullptr) *used_scratch = temp.used() > 0;
  }

  Args& conv_inputs(Args& a) {
    a.t(x_).t(w_);
    if (g_.bias) a.t(b_); else a.none();
    return a.ints({g_.stride}).ints({g_.pad}).ints({g_.dil});
  }

  Geometry g_;
  TestTensor x_, w_, b_;
  std::vector<int32_t> out_shape_;  // before r_, which is made with it
  TestTensor r_;
};

void expect_bit_identical(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4), std::memcpy(&b, &want[i], 4);
    ASSERT_EQ(a, b) << "at " << i << ": " << got[i] << " vs " << want[i];
  }
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << "at " << i;
      continue;
    }
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-4 * std::fabs(want[i])) << "at " << i;
  }
}

void check(const Geometry& g, std::mt19937& rng, bool with_nan) {
  Case c(g, rng, with_nan);
  for (const auto& bounds : kBounds) {
    SCOPED_TRACE(::testing::Message() << "bounds [" << bounds[0] << ", " << bounds[1] << "]");
    bool fast = false;
    const std::vector<float> got = c.fused(&optimized::conv2d_clamp_out, bounds[0], bounds[1], &fast);
    EXPECT_TRUE(fast) << "the optimized path ran";
    expect_bit_identical(got, c.unfused(bounds[0], bounds[1]));
    expect_close(c.fused(&native::conv2d_clamp_out, bounds[0], bounds[1]), got);
    for (float v : got) {
      if (!std::isnan(v)) {
        ASSERT_TRUE(v >= bounds[0] && v <= bounds[1]) << v;
      }
    }
    SCOPED_TRACE("with residual");
    const std::vector<float> sum =
        c.fused_add(&optimized::conv2d_add_clamp_out, bounds[0], bounds[1], &fast);
    EXPECT_TRUE(fast) << "the optimized path ran";
    expect_bit_identical(sum, c.unfused_add(bounds[0], bounds[1]));
    expect_close(c.fused_add(&native::conv2d_add_clamp_out, bounds[0], bounds[1]), sum);
  }
}

std::string describe(const Geometry& g) {
  return ::testing::PrintToString(std::vector<int>{g.n, g.cin, g.h, g.w, g.cout, g.kh, g.kw,
                                                   g.stride, g.pad, g.dil, g.groups});
}

class Conv2dClampTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(Conv2dClampTest, MatchesUnfusedPathBitForBit) {
  std::mt19937 rng(11);
  for (const Geometry& g : kGeometries) {
    SCOPED_TRACE(describe(g));
    check(g, rng, false);
  }
}

TEST_P(Conv2dClampTest, NanInputPropagates) {
  std::mt19937 rng(12);
  for (const Geometry& g : kGeometries) {
    SCOPED_TRACE(describe(g));
    check(g, rng, true);
  }
}

// Random geometries: kernel 1-5, stride 1-3, padding up to half the kernel,
// dilation 1-2, groups dividing both channel counts (depthwise when equal).
TEST_P(Conv2dClampTest, RandomGeometries) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  for (int t = 0; t < 24; ++t) {
    Geometry g;
    g.kh = 1 + pick(rng) % 5, g.kw = 1 + pick(rng) % 5;
    g.stride = 1 + pick(rng) % 3, g.dil = 1 + pick(rng) % 2;
    g.pad = pick(rng) % (g.kh / 2 + 1);
    g.groups = 1 + pick(rng) % 3;
    g.cin = g.groups * (1 + pick(rng) % 4);
    g.cout = t % 3 == 0 ? g.cin : g.groups * (1 + pick(rng) % 5);
    if (t % 3 == 0) g.groups = g.cin;  // depthwise
    g.n = 1 + pick(rng) % 2;
    g.h = g.dil * (g.kh - 1) + 1 + pick(rng) % 12;
    g.w = g.dil * (g.kw - 1) + 1 + pick(rng) % 20;
    g.bias = pick(rng) % 2 == 0;
    SCOPED_TRACE(describe(g));
    check(g, rng, t % 4 == 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, Conv2dClampTest, ::testing::Values(1, 2));

TEST(Conv2dClampErrors, BadArgumentsAreErrors) {
  TestTensor x(ScalarType::Float, {1, 2, 5, 5}), w(ScalarType::Float, {3, 2, 3, 3}),
      y(ScalarType::Float, {1, 3, 3, 3});
  x.fill(std::vector<float>(50, 1.0f)), w.fill(std::vector<float>(54, 1.0f));
  const KernelFn kernels[] = {&optimized::conv2d_clamp_out, &native::conv2d_clamp_out};
  for (KernelFn fn : kernels) {
    Args inverted;  // output_min > output_max
    inverted.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(1).d(1.0).d(0.0).t(y);
    EXPECT_EQ(inverted.run(fn), Error::InvalidArgument);
    Args nan_bound;
    nan_bound.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(1)
        .d(std::numeric_limits<double>::quiet_NaN()).d(1.0).t(y);
    EXPECT_EQ(nan_bound.run(fn), Error::InvalidArgument);
    Args too_few;
    too_few.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(1).d(0.0).t(y);
    EXPECT_NE(too_few.run(fn), Error::Ok);
    TestTensor xd(ScalarType::Double, {1, 2, 5, 5}), wd(ScalarType::Double, {3, 2, 3, 3}),
        yd(ScalarType::Double, {1, 3, 3, 3});
    Args wrong_dtype;
    wrong_dtype.t(xd).t(wd).none().ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(yd);
    EXPECT_NE(wrong_dtype.run(fn), Error::Ok);
    // (A 1-d input is no longer a bad argument: the optimized convolution runs
    // it as a 1 x L plane; kernels/optimized/test/conv1d_test.cpp covers it.)
    Args bad_groups;  // 2 input channels, groups 3
    bad_groups.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(3).d(0.0).d(6.0).t(y);
    EXPECT_NE(bad_groups.run(fn), Error::Ok);
  }
  TestTensor r(ScalarType::Float, {1, 3, 3, 3}), r_wrong(ScalarType::Float, {1, 3, 3, 2}),
      r_int(ScalarType::Int, {1, 3, 3, 3});
  r.fill(std::vector<float>(27, -1.0f));
  const KernelFn add_kernels[] = {&optimized::conv2d_add_clamp_out, &native::conv2d_add_clamp_out};
  for (KernelFn fn : add_kernels) {
    Args wrong_shape;
    wrong_shape.t(x).t(w).none().t(r_wrong).ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(y);
    EXPECT_EQ(wrong_shape.run(fn), Error::InvalidArgument);
    Args wrong_dtype;
    wrong_dtype.t(x).t(w).none().t(r_int).ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(y);
    EXPECT_EQ(wrong_dtype.run(fn), Error::InvalidArgument);
    Args aliased;  // the output is the residual: it would be overwritten mid-way
    aliased.t(x).t(w).none().t(y).ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(y);
    EXPECT_EQ(aliased.run(fn), Error::InvalidArgument);
    Args inverted;
    inverted.t(x).t(w).none().t(r).ints({1}).ints({0}).ints({1}).i(1).d(1.0).d(0.0).t(y);
    EXPECT_EQ(inverted.run(fn), Error::InvalidArgument);
    Args too_few;  // conv2d_clamp's argument list
    too_few.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(y);
    EXPECT_NE(too_few.run(fn), Error::Ok);
    // Valid calls: a 3x3 sum of 18 ones plus the residual's -1, clamped.
    Args add_ok;
    add_ok.t(x).t(w).none().t(r).ints({1}).ints({0}).ints({1}).i(1).d(-kInf).d(10.0).t(y);
    ASSERT_EQ(add_ok.run(fn), Error::Ok);
    for (float v : y.values<float>()) EXPECT_EQ(v, 10.0f);  // min(18 - 1, 10)
    Args add_open;
    add_open.t(x).t(w).none().t(r).ints({1}).ints({0}).ints({1}).i(1).d(-kInf).d(kInf).t(y);
    ASSERT_EQ(add_open.run(fn), Error::Ok);
    for (float v : y.values<float>()) EXPECT_EQ(v, 17.0f);  // 18 - 1
  }
  // A valid call through the portable kernel: relu6 of a 3x3 sum of 18 ones.
  Args ok;
  ok.t(x).t(w).none().ints({1}).ints({0}).ints({1}).i(1).d(0.0).d(6.0).t(y);
  ASSERT_EQ(ok.run(&native::conv2d_clamp_out), Error::Ok);
  for (float v : y.values<float>()) EXPECT_EQ(v, 6.0f);
}

}  // namespace
}  // namespace torchedge
