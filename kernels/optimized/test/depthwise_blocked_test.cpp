// conv2d_depthwise_blocked (conv/depthwise_blocked.h) and the optimized
// torchedge::conv2d_depthwise_blocked.out against a straightforward float
// reference (every tap in (kh, kw) order, out-of-range ones skipped, then
// bias, then the clamp) at 1e-5 absolute + 1e-5 relative: 3x3 stride 1 / 2
// (odd and even maps, padding 0 / 1), 5x5 stride 1 / 2, 1x1, non-square
// filters, strides and paddings, a 7-wide filter and stride 3 (the
// tap-by-tap tiles), padding wider than the filter (rows and pixels with no
// tap inside), maps from 1x1 to 14x112 (widths 5, 9, 17, 33, 112: border
// pixels, full tiles and remainders), 1-6 channel blocks, batches of 2,
// bias or none, clamp (0, 6) or none; at 1 and 2 threads (the same bits).
// The operands sit between NaN guards, so a read outside them shows. NaN
// and inf in the input reach exactly the outputs whose windows hold them.
// Under TORCHEDGE_ISA=scalar (ctest's third run) the kernel must say
// NotSupported and the op must still give the values (its portable
// fallback); the op's declined calls and errors are the portable kernel's.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/conv/depthwise_blocked.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
Error conv2d_depthwise_blocked_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

using optimized::Conv2dClamp;
using optimized::DepthwiseBlockedShape;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr int64_t kBlock = 16;
constexpr size_t kGuard = 64;  // NaN floats before and after each operand

struct Case {
  int n, cb, h, w, kh, kw, sh, sw, ph, pw;
  bool bias;
  float lo, hi;
};

const Case kCases[] = {
    {2, 3, 9, 9, 3, 3, 1, 1, 1, 1, true, 0.0f, 6.0f},      // 3x3 s1 p1, odd map
    {2, 2, 8, 8, 3, 3, 2, 2, 1, 1, false, -kInf, kInf},    // 3x3 s2 p1, even map
    {1, 4, 9, 17, 3, 3, 2, 2, 1, 1, true, -kInf, kInf},    // 3x3 s2 p1, odd, width 17
    {2, 1, 12, 33, 5, 5, 1, 1, 2, 2, true, 0.0f, 6.0f},    // 5x5 s1 p2, width 33
    {1, 3, 4, 33, 5, 5, 2, 2, 2, 2, false, 0.0f, 6.0f},    // 5x5 s2 p2
    {1, 2, 10, 9, 3, 3, 2, 2, 0, 0, true, -kInf, kInf},    // 3x3 s2 p0
    {1, 2, 11, 11, 3, 3, 2, 2, 0, 0, false, 0.0f, 6.0f},   // 3x3 s2 p0, odd
    {2, 5, 7, 7, 1, 1, 1, 1, 0, 0, true, 0.0f, 6.0f},      // 1x1
    {1, 3, 11, 13, 3, 3, 1, 2, 1, 0, true, -kInf, kInf},   // non-square stride, padding
    {1, 2, 13, 12, 3, 3, 2, 1, 0, 1, false, 0.0f, 6.0f},
    {1, 2, 6, 17, 5, 3, 1, 1, 2, 1, true, -kInf, kInf},    // 5x3 filter
    {1, 2, 8, 19, 3, 7, 1, 3, 1, 3, true, 0.0f, 6.0f},     // 7 wide, stride 3: tap by tap
    {1, 2, 10, 10, 3, 3, 3, 3, 1, 1, false, -kInf, kInf},  // 3x3 stride 3
    {1, 1, 5, 20, 2, 4, 1, 1, 0, 0, true, -kInf, kInf},    // even filter sizes
    {1, 1, 3, 4, 3, 3, 1, 1, 3, 3, true, 0.0f, 6.0f},      // padding over the filter
    {2, 1, 1, 1, 3, 3, 1, 1, 1, 1, true, -kInf, kInf},     // 1x1 map
    {1, 2, 2, 3, 3, 3, 1, 1, 1, 1, true, 0.0f, 6.0f},      // 2x3 map
    {2, 6, 7, 7, 3, 3, 1, 1, 1, 1, true, 0.0f, 6.0f},      // 7x7, 6 blocks
    {2, 6, 7, 7, 3, 3, 2, 2, 1, 1, false, -kInf, kInf},
    {2, 4, 9, 5, 3, 3, 1, 1, 1, 1, true, -kInf, kInf},     // width 5
    {1, 1, 6, 112, 3, 3, 1, 1, 1, 1, true, 0.0f, 6.0f},    // width 112
    {1, 1, 7, 112, 3, 3, 2, 2, 1, 1, true, -kInf, kInf},
    {1, 6, 14, 14, 3, 3, 2, 2, 1, 1, true, 0.0f, 6.0f},
};

DepthwiseBlockedShape shape_of(const Case& c) {
  return {c.n, c.cb, c.h, c.w, (c.h + 2 * c.ph - c.kh) / c.sh + 1, (c.w + 2 * c.pw - c.kw) / c.sw + 1,
          c.kh, c.kw, c.sh, c.sw, c.ph, c.pw};
}

// A vector of `count` values with kGuard NaNs on each side.
struct Guarded {
  std::vector<float> v;
  explicit Guarded(size_t count) : v(count + 2 * kGuard, kNan) {}
  float* data() { return v.data() + kGuard; }
  size_t size() const { return v.size() - 2 * kGuard; }
  float& operator[](size_t i) { return v[kGuard + i]; }
};

struct Operands {
  Guarded x, w, bias, y;
  explicit Operands(const DepthwiseBlockedShape& s)
      : x(static_cast<size_t>(s.batch * s.blocks * s.in_h * s.in_w * kBlock)),
        w(static_cast<size_t>(s.blocks * s.kernel_h * s.kernel_w * kBlock)),
        bias(static_cast<size_t>(s.blocks * kBlock)),
        y(static_cast<size_t>(s.batch * s.blocks * s.out_h * s.out_w * kBlock)) {}
};

Operands make_operands(const Case& c, uint32_t seed) {
  const DepthwiseBlockedShape s = shape_of(c);
  Operands r(s);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Guarded* g : {&r.x, &r.w, &r.bias}) {
    for (size_t i = 0; i < g->size(); ++i) (*g)[i] = dist(gen);
  }
  return r;
}

// The reference output (blocked, like y).
std::vector<float> reference(const Case& c, Operands& r) {
  const DepthwiseBlockedShape s = shape_of(c);
  std::vector<float> y;
  for (int64_t plane = 0; plane < s.batch * s.blocks; ++plane) {
    const int64_t cb = plane % s.blocks;
    for (int64_t oh = 0; oh < s.out_h; ++oh) {
      for (int64_t ow = 0; ow < s.out_w; ++ow) {
        for (int64_t l = 0; l < kBlock; ++l) {
          float acc = 0.0f;
          for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
            for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
              const int64_t ih = oh * s.stride_h - s.pad_h + kh;
              const int64_t iw = ow * s.stride_w - s.pad_w + kw;
              if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) continue;
              acc += r.x[static_cast<size_t>(((plane * s.in_h + ih) * s.in_w + iw) * kBlock + l)] *
                     r.w[static_cast<size_t>(((cb * s.kernel_h + kh) * s.kernel_w + kw) * kBlock + l)];
            }
          }
          if (c.bias) acc += r.bias[static_cast<size_t>(cb * kBlock + l)];
          // NaN stays NaN: both comparisons are false for it.
          y.push_back(acc < c.lo ? c.lo : (acc > c.hi ? c.hi : acc));
        }
      }
    }
  }
  return y;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      ASSERT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i])
          << "at " << i << ": " << got[i] << " vs " << want[i];
      continue;
    }
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "at " << i;
  }
}

std::vector<float> output_of(Operands& r) {
  return std::vector<float>(r.y.v.begin() + kGuard, r.y.v.end() - kGuard);
}

Error run_kernel(const Case& c, Operands& r) {
  Conv2dClamp clamp;
  clamp.min = c.lo;
  clamp.max = c.hi;
  return optimized::conv2d_depthwise_blocked(shape_of(c), r.x.data(), r.w.data(),
                                             c.bias ? r.bias.data() : nullptr, r.y.data(), clamp);
}

bool simd() { return optimized::has_simd(); }

std::string describe(const Case& c) {
  return testing::PrintToString(std::vector<int>{c.n, c.cb, c.h, c.w, c.kh, c.kw, c.sh, c.sw,
                                                 c.ph, c.pw});
}

TEST(DepthwiseBlocked, KernelMatchesReferenceAtOneAndTwoThreads) {
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE("n, cb, h, w, kh, kw, sh, sw, ph, pw = " + describe(c));
    Operands r = make_operands(c, seed++);
    const std::vector<float> want = reference(c, r);
    std::vector<float> one_thread;
    for (size_t threads : {size_t{1}, size_t{2}}) {
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      std::fill(r.y.v.begin() + kGuard, r.y.v.end() - kGuard, 42.0f);
      const Error err = run_kernel(c, r);
      if (!simd()) {
        EXPECT_EQ(err, Error::NotSupported);
        continue;
      }
      ASSERT_EQ(err, Error::Ok);
      expect_close(output_of(r), want);
      for (size_t i = 0; i < kGuard; ++i) {  // nothing written outside y
        ASSERT_TRUE(std::isnan(r.y.v[i]) && std::isnan(r.y.v[r.y.v.size() - 1 - i]));
      }
      if (threads == 1) {
        one_thread = output_of(r);
      } else {
        EXPECT_EQ(std::memcmp(one_thread.data(), output_of(r).data(), one_thread.size() * 4), 0);
      }
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(DepthwiseBlocked, NanAndInfReachTheirWindowsOnly) {
  if (!simd()) return;  // NotSupported: checked above
  for (const Case& c : {Case{1, 2, 9, 20, 3, 3, 1, 1, 1, 1, true, 0.0f, 6.0f},
                        Case{1, 2, 9, 20, 3, 3, 2, 2, 1, 1, false, -kInf, kInf},
                        Case{1, 2, 8, 12, 5, 5, 1, 1, 2, 2, true, -kInf, kInf}}) {
    SCOPED_TRACE(describe(c));
    Operands r = make_operands(c, 5);
    const auto pixel = [&](int cb, int h, int w, int lane) -> float& {
      return r.x[static_cast<size_t>(((cb * c.h + h) * c.w + w) * kBlock + lane)];
    };
    pixel(0, 0, 0, 3) = kNan;   // a corner (border pixels)
    pixel(0, 4, 9, 5) = kNan;   // the interior
    pixel(1, 4, 10, 7) = kInf;  // an interior inf and -inf: NaN where both meet
    pixel(1, 4, 11, 7) = -kInf;
    pixel(1, 8, c.w - 1, 0) = kInf;  // a right border
    ASSERT_EQ(run_kernel(c, r), Error::Ok);
    const std::vector<float> want = reference(c, r);
    size_t nans = 0, infs = 0;
    for (float v : want) {
      nans += std::isnan(v);
      infs += std::isinf(v);
    }
    EXPECT_GT(nans, 0u);
    if (c.hi == kInf) {
      EXPECT_GT(infs, 0u);
    }
    expect_close(output_of(r), want);
  }
}

// The op with tensors: every ISA gives the values (under TORCHEDGE_ISA=
// scalar through the portable fallback), and so does the portable kernel.
TEST(DepthwiseBlockedOp, MatchesReferenceOptimizedAndPortable) {
  uint32_t seed = 100;
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c));
    const DepthwiseBlockedShape s = shape_of(c);
    Operands r = make_operands(c, seed++);
    const std::vector<float> want = reference(c, r);
    TestTensor x(ScalarType::Float, {c.n, c.cb, c.h, c.w, 16});
    TestTensor w(ScalarType::Float, {c.cb, c.kh, c.kw, 16});
    TestTensor bias(ScalarType::Float, {c.cb * 16});
    x.fill(std::vector<float>(r.x.data(), r.x.data() + r.x.size()));
    w.fill(std::vector<float>(r.w.data(), r.w.data() + r.w.size()));
    bias.fill(std::vector<float>(r.bias.data(), r.bias.data() + r.bias.size()));
    const std::vector<int32_t> out_shape{c.n, c.cb, static_cast<int32_t>(s.out_h),
                                         static_cast<int32_t>(s.out_w), 16};
    for (KernelFn fn : {&optimized::conv2d_depthwise_blocked_out,
                        &native::conv2d_depthwise_blocked_out}) {
      TestTensor out(ScalarType::Float, out_shape);
      Args args;
      args.t(x).t(w);
      if (c.bias) {
        args.t(bias);
      } else {
        args.none();
      }
      ASSERT_EQ(args.ints({c.sh, c.sw}).ints({c.ph, c.pw}).d(c.lo).d(c.hi).t(out).run(fn),
                Error::Ok);
      ASSERT_EQ(out.shape(), out_shape);
      expect_close(out.values<float>(), want);
    }
  }
}

Args call(TestTensor& x, TestTensor& w, TestTensor& out, std::vector<int64_t> stride = {1},
          std::vector<int64_t> padding = {1}, double lo = 0.0, double hi = 6.0) {
  Args a;
  a.t(x).t(w).none().ints(stride).ints(padding).d(lo).d(hi).t(out);
  return a;
}

// The kernel fails with `expected` and the portable kernel's message names `words`.
void expect_error(Error got, Error expected, const char* words) {
  EXPECT_EQ(got, expected);
  EXPECT_NE(std::string(last_error_message()).find(words), std::string::npos)
      << "message: " << last_error_message();
}

TEST(DepthwiseBlockedOp, DeclinedCallsAndErrorsAreThePortableKernels) {
  const Case c{1, 2, 6, 7, 3, 3, 1, 1, 1, 1, false, 0.0f, 6.0f};
  Operands r = make_operands(c, 3);
  const std::vector<float> want = reference(c, r);
  // Lanes outermost: not dense, so the portable kernel takes it.
  TestTensor x(ScalarType::Float, {1, 2, 6, 7, 16}, {0, 4, 1, 2, 3});
  x.fill(std::vector<float>(r.x.data(), r.x.data() + r.x.size()));
  TestTensor w(ScalarType::Float, {2, 3, 3, 16});
  w.fill(std::vector<float>(r.w.data(), r.w.data() + r.w.size()));
  TestTensor out(ScalarType::Float, {1, 2, 6, 7, 16});
  ASSERT_EQ(call(x, w, out).run(&optimized::conv2d_depthwise_blocked_out), Error::Ok);
  expect_close(out.values<float>(), want);

  TestTensor x0(ScalarType::Float, {0, 2, 6, 7, 16}), out0(ScalarType::Float, {0, 2, 6, 7, 16});
  ASSERT_EQ(call(x0, w, out0).run(&optimized::conv2d_depthwise_blocked_out), Error::Ok);
  EXPECT_EQ(out0.shape(), (std::vector<int32_t>{0, 2, 6, 7, 16}));

  TestTensor dense(ScalarType::Float, {1, 2, 6, 7, 16});
  expect_error(call(dense, w, dense).run(&optimized::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "input must not overlap out");
  expect_error(call(dense, w, out, {0}).run(&optimized::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "stride must be >= 1");
  expect_error(call(dense, w, out, {1}, {1}, 6.0, 0.0).run(&optimized::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "need output_min <= output_max");
  TestTensor w3(ScalarType::Float, {3, 3, 3, 16});
  expect_error(call(dense, w3, out).run(&optimized::conv2d_depthwise_blocked_out),
               Error::InvalidArgument, "weight_packed must be [2, KH, KW, 16]");
}

}  // namespace
}  // namespace torchedge
