// The optimized convolution, mm, addmm, bmm and linear kernels against the
// portable kernels on randomized shapes (odd sizes, tile edges, K not a
// multiple of 8, batch > 1, groups, depthwise 3x3 / 5x5, strides, padding,
// dilation) at 1 and 2 threads, rtol 1e-4 / atol 1e-5. Each case also checks
// that the optimized path ran (it takes packing scratch; the portable float
// kernels take none) and that non-float32 calls still work (portable
// fallback). CTest runs the binary again with TORCHEDGE_ISA=scalar.
#include <random>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/kernel_list.inc"
#undef TE_OPTIMIZED_KERNEL
}  // namespace optimized

namespace {

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

size_t numel(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

// Builds the same call twice (one per kernel) and compares outputs.
// `build(args, out)` appends every argument but `out` and the out tensor.
template <typename Build>
void compare(KernelFn optimized_fn, KernelFn portable_fn, const std::vector<int32_t>& out_shape,
             Build&& build, bool expect_fast_path, const char* what) {
  std::vector<float> results[2];
  for (int which = 0; which < 2; ++which) {
    TestTensor out(ScalarType::Float, out_shape);
    Args args;
    build(args, out);
    std::vector<unsigned char> arena(size_t{16} << 20);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    ASSERT_EQ(args.run_with(which == 0 ? optimized_fn : portable_fn, ctx), Error::Ok) << what;
    if (which == 0 && expect_fast_path) {
      EXPECT_GT(temp.used(), 0u) << what << ": fast path";
    }
    results[which] = out.values<float>();
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_NEAR(results[0][i], results[1][i], 1e-5 + 1e-4 * std::fabs(results[1][i]))
        << what << " at " << i;
  }
}

struct ConvCase {
  int n, cin, h, w, cout, kh, kw, stride, pad, dil, groups;
  bool bias;
};

const ConvCase kConvCases[] = {
    {1, 3, 17, 19, 8, 3, 3, 1, 1, 1, 1, true},      // 3x3 same
    {2, 5, 9, 11, 7, 1, 1, 1, 0, 1, 1, false},      // 1x1 direct GEMM, batch 2
    {1, 16, 15, 15, 13, 1, 1, 2, 0, 1, 1, true},    // 1x1 stride 2 (downsample)
    {1, 3, 23, 21, 10, 7, 7, 2, 3, 1, 1, true},     // stem-like 7x7 / 2
    {1, 9, 12, 13, 6, 3, 2, 1, 2, 2, 1, true},      // dilation, non-square
    {1, 8, 10, 10, 12, 3, 3, 1, 1, 1, 4, true},     // grouped
    {1, 70, 9, 9, 33, 3, 3, 1, 1, 1, 1, true},      // K = 630: several KC blocks
    {2, 12, 14, 13, 12, 3, 3, 1, 1, 1, 12, true},   // depthwise 3x3
    {1, 16, 15, 17, 16, 3, 3, 2, 1, 1, 16, false},  // depthwise 3x3 / 2
    {1, 8, 11, 11, 8, 5, 5, 1, 2, 1, 8, true},      // depthwise 5x5
    {1, 8, 12, 12, 8, 5, 5, 2, 2, 1, 8, true},      // depthwise 5x5 / 2
    {2, 32, 14, 14, 32, 5, 5, 2, 2, 1, 32, true},   // depthwise 5x5 / 2, 32 channels (blocked)
    {1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 4, true},        // depthwise multiplier 2 (GEMM per group)
    // Rows of 16+ output pixels: the im2col packer's whole-strip fast paths
    // (stride 1 loads, stride 2 deinterleave) next to its border chunks.
    {1, 5, 40, 37, 9, 3, 3, 1, 1, 1, 1, true},      // 3x3 / 1, rows straddling strips
    {1, 4, 71, 69, 7, 3, 3, 2, 1, 1, 1, true},      // 3x3 / 2
    {1, 3, 64, 66, 8, 7, 7, 2, 3, 1, 1, true},      // 7x7 / 2 stem
    {1, 6, 48, 48, 5, 1, 1, 2, 0, 1, 1, false},     // 1x1 / 2, the last row ends the plane
    {1, 3, 20, 70, 4, 3, 3, 3, 0, 1, 1, true},      // stride 3: gathers
    {1, 3, 7, 7, 64, 3, 3, 1, 1, 1, 1, true},       // 7-wide rows: two-row chunks
    // Depthwise 3x3 register-blocked rows: widths with and without a tail.
    {1, 5, 56, 56, 5, 3, 3, 1, 1, 1, 5, true},      // / 1, 8-multiple rows
    {1, 5, 33, 20, 5, 3, 3, 1, 1, 1, 5, true},      // / 1, odd row count, tail of 4
    {1, 5, 33, 45, 5, 3, 3, 2, 1, 1, 5, true},      // / 2, tail of 7
    {2, 3, 30, 21, 3, 3, 3, 2, 0, 1, 3, false},     // / 2 unpadded
    {1, 4, 12, 12, 4, 3, 3, 1, 1, 2, 4, true},      // dilation 2: generic loop
};

void run_conv_case(const ConvCase& c, std::mt19937& rng) {
  const std::vector<int32_t> xs{c.n, c.cin, c.h, c.w}, ws{c.cout, c.cin / c.groups, c.kh, c.kw};
  const std::vector<float> x = random_floats(numel(xs), rng), w = random_floats(numel(ws), rng);
  const std::vector<float> b = random_floats(static_cast<size_t>(c.cout), rng);
  const int oh = (c.h + 2 * c.pad - c.dil * (c.kh - 1) - 1) / c.stride + 1;
  const int ow = (c.w + 2 * c.pad - c.dil * (c.kw - 1) - 1) / c.stride + 1;
  TestTensor tx(ScalarType::Float, xs), tw(ScalarType::Float, ws),
      tb(ScalarType::Float, {c.cout});
  tx.fill(x), tw.fill(w), tb.fill(b);
  compare(&optimized::convolution_out, &native::convolution_out, {c.n, c.cout, oh, ow},
          [&](Args& a, TestTensor& out) {
            a.t(tx).t(tw);
            if (c.bias) a.t(tb); else a.none();
            a.ints({c.stride}).ints({c.pad}).ints({c.dil}).b(false).ints({0}).i(c.groups).t(out);
          },
          true, "convolution");
}

class OptimizedOpsTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(OptimizedOpsTest, Convolution) {
  std::mt19937 rng(7);
  for (const ConvCase& c : kConvCases) {
    SCOPED_TRACE(::testing::Message() << "cin=" << c.cin << " k=" << c.kh << "x" << c.kw
                                      << " s=" << c.stride << " g=" << c.groups);
    run_conv_case(c, rng);
  }
}

// Random geometries: any kernel 1-7, stride 1-3, padding up to half the
// kernel, dilation 1-2, groups dividing both channel counts, batch 1-2.
TEST_P(OptimizedOpsTest, ConvolutionRandomShapes) {
  std::mt19937 rng(1234);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 40; ++trial) {
    ConvCase c;
    c.n = pick(1, 2);
    c.groups = pick(0, 3) == 0 ? pick(2, 3) : 1;
    c.cin = c.groups * pick(1, 6);
    c.cout = c.groups * pick(1, 7);
    if (pick(0, 5) == 0) c.cout = c.cin = c.groups = pick(2, 6);  // depthwise
    c.kh = pick(1, 7);
    c.kw = pick(0, 1) == 0 ? c.kh : pick(1, 7);
    c.stride = pick(1, 3);
    c.dil = pick(0, 3) == 0 ? 2 : 1;
    c.pad = pick(0, (c.kh < c.kw ? c.kh : c.kw) / 2);
    c.h = pick(c.dil * (c.kh - 1) + 1, 40);
    c.w = pick(c.dil * (c.kw - 1) + 1, 48);
    c.bias = pick(0, 1) == 1;
    SCOPED_TRACE(::testing::Message()
                 << "trial " << trial << ": n=" << c.n << " cin=" << c.cin << " " << c.h << "x"
                 << c.w << " cout=" << c.cout << " k=" << c.kh << "x" << c.kw << " s=" << c.stride
                 << " p=" << c.pad << " d=" << c.dil << " g=" << c.groups);
    run_conv_case(c, rng);
  }
}

TEST_P(OptimizedOpsTest, MatrixProducts) {
  std::mt19937 rng(11);
  const int shapes[][3] = {{1, 1, 1}, {7, 9, 17}, {33, 65, 31}, {6, 300, 16}, {50, 13, 0}};
  for (const auto& s : shapes) {
    const int m = s[0], k = s[1], n = s[2];
    SCOPED_TRACE(::testing::Message() << "m=" << m << " k=" << k << " n=" << n);
    TestTensor a(ScalarType::Float, {m, k}), b(ScalarType::Float, {k, n}),
        bt(ScalarType::Float, {k, n}, {1, 0}),  // column-major B: read by strides
        bias(ScalarType::Float, {n}), self(ScalarType::Float, {m, n}),
        w(ScalarType::Float, {n, k});
    a.fill(random_floats(numel({m, k}), rng));
    b.fill(random_floats(numel({k, n}), rng));
    bt.fill(random_floats(numel({k, n}), rng));
    bias.fill(random_floats(static_cast<size_t>(n), rng));
    self.fill(random_floats(numel({m, n}), rng));
    w.fill(random_floats(numel({n, k}), rng));
    const bool work = m * n > 0;
    compare(&optimized::mm_out, &native::mm_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(a).t(b).t(out); }, work, "mm");
    compare(&optimized::mm_out, &native::mm_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(a).t(bt).t(out); }, work, "mm transposed B");
    compare(&optimized::addmm_out, &native::addmm_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(bias).t(a).t(b).d(1.0).d(1.0).t(out); }, work,
            "addmm bias");
    compare(&optimized::addmm_out, &native::addmm_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(self).t(a).t(b).d(0.5).d(-2.0).t(out); }, work,
            "addmm beta alpha");
    compare(&optimized::linear_out, &native::linear_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(a).t(w).t(bias).t(out); }, work, "linear");
    compare(&optimized::linear_out, &native::linear_out, {m, n},
            [&](Args& x, TestTensor& out) { x.t(a).t(w).none().t(out); }, work, "linear no bias");
  }
  for (int batch : {1, 3, 5}) {
    TestTensor a(ScalarType::Float, {batch, 13, 70}), b(ScalarType::Float, {batch, 70, 19});
    a.fill(random_floats(numel({batch, 13, 70}), rng));
    b.fill(random_floats(numel({batch, 70, 19}), rng));
    compare(&optimized::bmm_out, &native::bmm_out, {batch, 13, 19},
            [&](Args& x, TestTensor& out) { x.t(a).t(b).t(out); }, true, "bmm");
  }
}

TEST_P(OptimizedOpsTest, Hardtanh) {
  std::mt19937 rng(3);
  for (int32_t n : {1, 7, 33, 40000}) {
    TestTensor x(ScalarType::Float, {2, n});
    std::vector<float> values = random_floats(static_cast<size_t>(2 * n), rng);
    for (float& v : values) v *= 8.0f;
    values[0] = std::nanf("");
    x.fill(values);
    for (int which = 0; which < 2; ++which) {
      TestTensor out(ScalarType::Float, {2, n});
      Args call;
      call.t(x).d(0.0).d(6.0).t(out);
      std::vector<unsigned char> arena(1024);
      MemoryAllocator temp(arena.data(), arena.size());
      KernelContext ctx(&temp);
      ASSERT_EQ(call.run_with(which == 0 ? &optimized::hardtanh_out : &native::hardtanh_out, ctx),
                Error::Ok);
      const std::vector<float> got = out.values<float>();
      EXPECT_TRUE(std::isnan(got[0]));
      for (size_t i = 1; i < got.size(); ++i) {
        ASSERT_EQ(got[i], std::min(6.0f, std::max(0.0f, values[i]))) << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, OptimizedOpsTest, ::testing::Values(1, 2));

TEST(OptimizedOpsFallback, OtherDtypesAndErrorsGoToPortable) {
  TestTensor a(ScalarType::Double, {3, 4}), b(ScalarType::Double, {4, 2}),
      out(ScalarType::Double, {3, 2});
  a.fill(std::vector<double>(12, 1.5)), b.fill(std::vector<double>(8, 2.0));
  Args args;
  args.t(a).t(b).t(out);
  ASSERT_EQ(args.run(&optimized::mm_out), Error::Ok);
  for (double v : out.values<double>()) EXPECT_EQ(v, 12.0);
  // Mismatched shapes: the portable kernel's error, not a crash.
  TestTensor bad(ScalarType::Float, {5, 2}), fa(ScalarType::Float, {3, 4}),
      fo(ScalarType::Float, {3, 2});
  Args bad_args;
  bad_args.t(fa).t(bad).t(fo);
  EXPECT_EQ(bad_args.run(&optimized::mm_out), Error::InvalidArgument);
  // A transposed convolution is the portable kernel's job.
  TestTensor x(ScalarType::Float, {1, 2, 4, 4}), w(ScalarType::Float, {2, 3, 3, 3}),
      y(ScalarType::Float, {1, 3, 6, 6});
  x.fill(std::vector<float>(32, 1.0f)), w.fill(std::vector<float>(54, 1.0f));
  Args conv;
  conv.t(x).t(w).none().ints({1}).ints({0}).ints({1}).b(true).ints({0}).i(1).t(y);
  ASSERT_EQ(conv.run(&optimized::convolution_out), Error::Ok);
  EXPECT_EQ(y.values<float>()[0], 2.0f);  // corner: one tap per input channel
}

}  // namespace
}  // namespace torchedge
