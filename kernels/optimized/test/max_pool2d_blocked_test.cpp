// The optimized torchedge::max_pool2d_blocked against a straightforward
// reference (every tap of the window, out-of-bounds ones skipped; the
// portable rule: greater or NaN replaces) and against the portable kernel,
// bit for bit (NaN payloads and signed zeros included): ResNet's stem pool,
// 2x2 / 2, ceil mode, dilation, every window clipped, windows with no tap
// inside; real values, small integers with -0 / 0 ties, NaN and +-inf; at
// 1 and 2 threads. Then the calls the fast path declines (other dim orders,
// empty batches, overlapping or malformed arguments) must reach the
// portable kernel. CTest reruns the binary with TORCHEDGE_ISA=avx2 and
// TORCHEDGE_ISA=scalar.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
Error max_pool2d_blocked_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

constexpr int kBlock = 16;

struct BlockedPoolCase {
  int batch, blocks, in_h, in_w;
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  bool ceil_mode;

  std::vector<int32_t> in_shape() const { return {batch, blocks, in_h, in_w, kBlock}; }
};

const BlockedPoolCase kCases[] = {
    {1, 4, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, false},  // ResNet stem, smaller map
    {2, 2, 9, 10, 2, 2, 2, 2, 0, 0, 1, 1, false},
    {1, 1, 8, 9, 2, 3, 2, 2, 0, 1, 1, 1, true},
    {1, 2, 11, 10, 3, 3, 2, 2, 1, 1, 1, 1, true},   // ceil mode adds a clipped last window
    {1, 2, 9, 8, 3, 2, 2, 1, 1, 1, 2, 2, false},    // dilation
    {2, 1, 7, 8, 2, 2, 2, 2, 1, 1, 2, 1, true},     // dilation and ceil mode
    {1, 1, 5, 7, 1, 1, 1, 1, 0, 0, 1, 1, false},
    {1, 3, 7, 3, 5, 5, 1, 1, 2, 2, 1, 1, false},    // every window clipped
    {1, 1, 6, 6, 3, 3, 3, 3, 1, 1, 1, 1, true},
    // Windows with no tap inside give -inf (ATen rejects padding over half
    // the undilated kernel; the portable kernel allows half the dilated one).
    {1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, false},
};

// The output size as ATen computes it.
int out_size(int in, int kernel, int stride, int pad, int dilation, bool ceil_mode) {
  const int span = in + 2 * pad - dilation * (kernel - 1) - 1;
  int o = (ceil_mode ? span + stride - 1 : span) / stride + 1;
  if (ceil_mode && (o - 1) * stride >= in + pad) --o;
  return o;
}

std::vector<int32_t> out_shape(const BlockedPoolCase& c) {
  return {c.batch, c.blocks,
          out_size(c.in_h, c.kernel_h, c.stride_h, c.pad_h, c.dilation_h, c.ceil_mode),
          out_size(c.in_w, c.kernel_w, c.stride_w, c.pad_w, c.dilation_w, c.ceil_mode), kBlock};
}

std::vector<float> reference(const BlockedPoolCase& c, const std::vector<float>& x) {
  const std::vector<int32_t> os = out_shape(c);
  std::vector<float> y;
  for (int nb = 0; nb < c.batch * c.blocks; ++nb) {
    for (int oh = 0; oh < os[2]; ++oh) {
      for (int ow = 0; ow < os[3]; ++ow) {
        for (int lane = 0; lane < kBlock; ++lane) {
          float best = -std::numeric_limits<float>::infinity();
          for (int kh = 0; kh < c.kernel_h; ++kh) {
            for (int kw = 0; kw < c.kernel_w; ++kw) {
              const int ih = oh * c.stride_h - c.pad_h + kh * c.dilation_h;
              const int iw = ow * c.stride_w - c.pad_w + kw * c.dilation_w;
              if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) continue;
              const float v = x[((nb * c.in_h + ih) * c.in_w + iw) * kBlock + lane];
              if (v > best || std::isnan(v)) best = v;
            }
          }
          y.push_back(best);
        }
      }
    }
  }
  return y;
}

// variant 0: real values, 1: small integers with -0 among them (ties keep
// the first), 2: with NaN (distinct payloads: the last wins) and +-inf.
std::vector<float> make_input(size_t count, std::mt19937& rng, int variant) {
  std::vector<float> v(count);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-3, 3), pick(0, 99);
  for (float& f : v) {
    f = variant == 0 ? real(rng) : static_cast<float>(small(rng));
    const int r = pick(rng);
    if (variant == 1 && r >= 85) f = -0.0f;
    if (variant == 2 && r < 4) {
      uint32_t bits = 0x7fc00000u | static_cast<uint32_t>(pick(rng) + 1);
      std::memcpy(&f, &bits, sizeof f);
    }
    if (variant == 2 && r >= 4 && r < 30) f = -std::numeric_limits<float>::infinity();
    if (variant == 2 && r >= 30 && r < 33) f = std::numeric_limits<float>::infinity();
  }
  return v;
}

Args pool_args(const BlockedPoolCase& c, TestTensor& x, TestTensor& out) {
  Args a;
  a.t(x).ints({c.kernel_h, c.kernel_w}).ints({c.stride_h, c.stride_w}).ints({c.pad_h, c.pad_w})
      .ints({c.dilation_h, c.dilation_w}).b(c.ceil_mode).t(out);
  return a;
}

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want,
                      const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t g = 0, w = 0;
    std::memcpy(&g, &got[i], sizeof g);
    std::memcpy(&w, &want[i], sizeof w);
    ASSERT_EQ(g, w) << what << " at " << i << ": " << got[i] << " vs " << want[i];
  }
}

class BlockedMaxPoolTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(BlockedMaxPoolTest, MatchesReferenceAndPortableBitForBit) {
  std::mt19937 rng(7);
  for (const BlockedPoolCase& c : kCases) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE(::testing::Message()
                   << "in " << c.in_h << "x" << c.in_w << " k " << c.kernel_h << "x" << c.kernel_w
                   << " s " << c.stride_h << "," << c.stride_w << " p " << c.pad_h << ","
                   << c.pad_w << " d " << c.dilation_h << "," << c.dilation_w << " ceil "
                   << c.ceil_mode << " variant " << variant);
      TestTensor x(ScalarType::Float, c.in_shape());
      const std::vector<float> input = make_input(static_cast<size_t>((*x).numel()), rng, variant);
      x.fill(input);
      const std::vector<float> want = reference(c, input);
      for (KernelFn fn : {&optimized::max_pool2d_blocked_out, &native::max_pool2d_blocked_out}) {
        const bool fast = fn == &optimized::max_pool2d_blocked_out;
        TestTensor out(ScalarType::Float, out_shape(c));
        ASSERT_EQ(pool_args(c, x, out).run(fn), Error::Ok);
        ASSERT_EQ(out.shape(), out_shape(c));
        expect_same_bits(out.values<float>(), want, fast ? "optimized" : "portable");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, BlockedMaxPoolTest, ::testing::Values(1, 2));

TEST(BlockedMaxPoolFallback, OtherDimOrderAndEmptyBatchGoToPortable) {
  const BlockedPoolCase c{1, 2, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, false};
  std::mt19937 rng(3);
  const std::vector<float> input = make_input(2 * 7 * 6 * kBlock, rng, 2);
  TestTensor x(ScalarType::Float, c.in_shape(), {0, 4, 1, 2, 3});  // lanes outermost
  x.fill(input);
  TestTensor out(ScalarType::Float, out_shape(c));
  ASSERT_EQ(pool_args(c, x, out).run(&optimized::max_pool2d_blocked_out), Error::Ok);
  expect_same_bits(out.values<float>(), reference(c, input), "strided self");

  BlockedPoolCase empty = c;
  empty.batch = 0;
  TestTensor x0(ScalarType::Float, empty.in_shape()), out0(ScalarType::Float, out_shape(empty));
  ASSERT_EQ(pool_args(empty, x0, out0).run(&optimized::max_pool2d_blocked_out), Error::Ok);
  EXPECT_EQ(out0.shape(), out_shape(empty));
}

// The kernel fails with `expected` and the portable kernel's message names `words`.
void expect_error(Error got, Error expected, const char* words) {
  EXPECT_EQ(got, expected);
  EXPECT_NE(std::string(last_error_message()).find(words), std::string::npos)
      << "message: " << last_error_message();
}

TEST(BlockedMaxPoolFallback, ErrorsAreThePortableKernels) {
  const BlockedPoolCase ok{1, 1, 4, 4, 2, 2, 2, 2, 0, 0, 1, 1, false};
  TestTensor x(ScalarType::Float, ok.in_shape()), out(ScalarType::Float, out_shape(ok));
  BlockedPoolCase wide_pad = ok;
  wide_pad.pad_h = 2;
  expect_error(pool_args(wide_pad, x, out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidArgument, "max_pool2d_blocked.out: pad should be at most half");
  BlockedPoolCase zero_stride = ok;
  zero_stride.stride_w = 0;
  expect_error(pool_args(zero_stride, x, out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidArgument, "stride must be >= 1");
  TestTensor nchw(ScalarType::Float, {1, 16, 4, 4});
  expect_error(pool_args(ok, nchw, out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidArgument, "self must be blocked [N, C/16, H, W, 16]");
  TestTensor ints(ScalarType::Int, ok.in_shape());
  expect_error(pool_args(ok, ints, out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidType, "max_pool2d_blocked.out: self");
  TestTensor int_out(ScalarType::Int, out_shape(ok));
  expect_error(pool_args(ok, x, int_out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidType, "max_pool2d_blocked.out: out");
  BlockedPoolCase same = ok;
  same.kernel_h = same.kernel_w = same.stride_h = same.stride_w = 1;
  expect_error(pool_args(same, x, x).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidArgument, "self must not overlap out");
  TestTensor empty_map(ScalarType::Float, {1, 1, 0, 4, 16});
  expect_error(pool_args(ok, empty_map, out).run(&optimized::max_pool2d_blocked_out),
               Error::InvalidArgument, "self dim 2 is empty");
}

}  // namespace
}  // namespace torchedge
