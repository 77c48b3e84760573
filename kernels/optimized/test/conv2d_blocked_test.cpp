// conv2d_blocked (conv/conv2d_blocked.h) against a double-precision direct
// convolution in NCHW at conv2d_gemm's tolerance (1e-5 + 1e-4 relative to
// the sum of |terms|): 1x1 (stride 1 and 2), 3x3 (padding 0 / 1, stride
// 1 / 2), 7x7 stride 2 padding 3 and a non-square 5x3 filter; output
// channels that fill 1-4 blocks of the last 64-channel group; output rows
// of at least 16 (read row by row from a zero-padded copy) and narrower
// ones (gathered per tap); maps whose
// pixel counts split into uneven tiles (7x7, 14x14, 1x1, 5x9); more input
// channels than one weight chunk (1x1 with 1024, 3x3 with 192: partial sums
// through the output); a batch; bias or none; the fused residual and clamp,
// also with y the residual itself (written over in place, several chunks);
// 1 and 2 threads; a first layer's plain NCHW input (3 channels, 7x7
// stride 2 like ResNet's stem; 1 channel; a 1x1 one read flat). NaN in the
// input stays NaN through the clamp. The fused GELU against the GELU of the
// unfused output. Under
// TORCHEDGE_ISA=scalar (ctest's third run) no SIMD build applies: the
// kernel must say NotSupported (the op then takes the portable kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/test/blocked_conv_reference.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

using namespace blocked_test;

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Case {
  int n, cin, h, w, cout, kh, kw, stride, pad;
  bool bias, residual;
  float lo, hi;
};

const Case kCases[] = {
    {1, 16, 8, 8, 16, 1, 1, 1, 0, true, false, -kInf, kInf},     // one block each way
    {2, 32, 7, 7, 48, 3, 3, 1, 1, true, true, 0.0f, kInf},       // batch 2, 3 blocks, residual
    {1, 64, 14, 14, 80, 3, 3, 2, 1, false, false, -kInf, kInf},  // stride 2, 5 blocks, no bias
    {1, 32, 9, 5, 64, 1, 1, 2, 0, true, true, 0.0f, 6.0f},       // 1x1 stride 2, relu6
    {1, 1024, 7, 7, 32, 1, 1, 1, 0, true, false, -kInf, kInf},   // several input chunks
    {1, 192, 6, 6, 96, 3, 3, 1, 0, true, true, -0.5f, 2.0f},     // chunks, unpadded 3x3
    {1, 16, 23, 17, 64, 7, 7, 2, 3, true, false, 0.0f, kInf},    // 7x7 stride 2 pad 3
    {1, 48, 5, 9, 128, 5, 3, 1, 2, true, true, -kInf, kInf},     // 5x3 filter, 2 groups
    {1, 64, 1, 1, 16, 1, 1, 1, 0, true, false, -kInf, kInf},     // a single pixel
    {1, 32, 20, 18, 48, 3, 3, 1, 1, true, true, 0.0f, kInf},     // rows of 18: padded copy
    {1, 16, 40, 34, 32, 3, 3, 2, 1, true, false, -kInf, kInf},   // rows of 17, stride 2
    {2, 32, 33, 32, 16, 1, 1, 2, 0, false, true, -kInf, kInf},   // 1x1 stride 2, rows of 16
    {1, 1024, 12, 12, 16, 3, 3, 1, 1, true, false, -kInf, kInf}, // narrow, gathering too big
    {1, 3, 23, 19, 64, 7, 7, 2, 3, true, false, 0.0f, kInf},     // plain input: a stem
    {2, 1, 9, 9, 80, 3, 3, 1, 1, true, true, -kInf, kInf},       // plain, 1 channel, batch 2
    {1, 3, 6, 5, 32, 1, 1, 1, 0, false, false, -kInf, kInf},     // plain 1x1: read flat
    {1, 960, 7, 7, 160, 1, 1, 1, 0, true, true, -kInf, kInf},    // 10 blocks: slices of 2 at 2 threads
    {1, 64, 7, 7, 112, 3, 3, 1, 1, true, true, 0.0f, 6.0f},      // 7 blocks: slices of 1 at 2 threads
};

// A plain NCHW input (a first layer) has fewer than 16 channels.
bool plain(const Case& c) { return c.cin < 16; }

Conv2dShape shape_of(const Case& c) {
  const int64_t oh = (c.h + 2 * c.pad - c.kh) / c.stride + 1;
  const int64_t ow = (c.w + 2 * c.pad - c.kw) / c.stride + 1;
  return Conv2dShape{c.n, c.cin, c.h, c.w, c.cout, oh, ow, c.kh, c.kw,
                     c.stride, c.stride, c.pad, c.pad, 1, 1, 1};
}

std::vector<float> pack_weights(const std::vector<float>& w, const Conv2dShape& s) {
  const int64_t groups = (s.out_channels + 63) / 64, cb = (s.in_channels + 15) / 16;
  std::vector<float> packed(static_cast<size_t>(groups * cb * s.kernel_h * s.kernel_w * 1024), 0.0f);
  for (int64_t co = 0; co < s.out_channels; ++co) {
    for (int64_t ci = 0; ci < s.in_channels; ++ci) {
      for (int64_t r = 0; r < s.kernel_h; ++r) {
        for (int64_t q = 0; q < s.kernel_w; ++q) {
          const int64_t at = (((co / 64 * cb + ci / 16) * s.kernel_h + r) * s.kernel_w + q) * 1024 +
                             (ci % 16) * 64 + co % 64;
          packed[static_cast<size_t>(at)] =
              w[static_cast<size_t>(((co * s.in_channels + ci) * s.kernel_h + r) * s.kernel_w + q)];
        }
      }
    }
  }
  return packed;
}

struct Operands {
  std::vector<float> x, w, bias, residual;  // NCHW inputs
  std::vector<float> xb, wb, rb, y;         // blocked / packed operands, blocked output
};

Operands make_run(const Case& c, uint32_t seed) {
  const Conv2dShape s = shape_of(c);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operands r;
  r.x.resize(static_cast<size_t>(s.batch * s.in_channels * s.in_h * s.in_w));
  r.w.resize(static_cast<size_t>(s.out_channels * s.in_channels * s.kernel_h * s.kernel_w));
  r.bias.resize(static_cast<size_t>(s.out_channels));
  r.residual.resize(static_cast<size_t>(s.batch * s.out_channels * s.out_h * s.out_w));
  for (std::vector<float>* v : {&r.x, &r.w, &r.bias, &r.residual}) {
    for (float& e : *v) e = dist(gen);
  }
  r.xb = plain(c) ? r.x : to_blocked(r.x, s.batch, s.in_channels, s.in_h, s.in_w);
  r.rb = to_blocked(r.residual, s.batch, s.out_channels, s.out_h, s.out_w);
  r.wb = pack_weights(r.w, s);
  r.y.assign(r.residual.size(), 0.0f);
  return r;
}

// The direct double sums of r's NCHW operands, which check r.y (blocked).
BlockedConvReference reference_of(const Case& c, const Operands& r) {
  return BlockedConvReference(shape_of(c), r.x, r.w, c.bias ? r.bias.data() : nullptr,
                              c.residual ? r.residual.data() : nullptr, c.lo, c.hi);
}

using BlockedKernel = Error (*)(KernelContext&, const Conv2dShape&, const float*, const float*,
                                const float*, const float*, float*, const Conv2dClamp&,
                                BlockedActivation);

// The fused activations in double: the exact GELU, SiLU.
double activated(BlockedActivation activation, double v) {
  return activation == BlockedActivation::kGelu ? 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))
                                                : v / (1.0 + std::exp(-v));
}

// conv2d_blocked, or `kernel` (same arguments), on r's blocked operands.
Error run_kernel(const Case& c, Operands& r, size_t temp_bytes = size_t{16} << 20,
                 BlockedActivation activation = BlockedActivation::kNone,
                 BlockedKernel kernel = &conv2d_blocked) {
  std::vector<uint8_t> temp(temp_bytes);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  Conv2dClamp clamp;
  clamp.min = c.lo;
  clamp.max = c.hi;
  return kernel(ctx, shape_of(c), r.xb.data(), r.wb.data(), c.bias ? r.bias.data() : nullptr,
                c.residual ? r.rb.data() : nullptr, r.y.data(), clamp, activation);
}

bool simd() { return has_simd(); }

// Each case's operands at 1 and 2 threads, both outputs checked against one
// reference (the double sums do not depend on the thread count).
TEST(Conv2dBlocked, MatchesDirectSumsAtOneAndTwoThreads) {
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    Operands r = make_run(c, seed++);
    const std::optional<BlockedConvReference> reference =
        simd() ? std::optional<BlockedConvReference>(reference_of(c, r)) : std::nullopt;
    for (size_t threads : {size_t{1}, size_t{2}}) {
      SCOPED_TRACE(testing::Message() << "case cin " << c.cin << " cout " << c.cout << " " << c.kh
                                      << "x" << c.kw << " stride " << c.stride << " threads "
                                      << threads);
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      r.y.assign(r.y.size(), 0.0f);
      const Error err = run_kernel(c, r);
      if (!simd()) {
        EXPECT_EQ(err, Error::NotSupported);
        continue;
      }
      ASSERT_EQ(err, Error::Ok);
      reference->expect_matches(r.y);
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// The fused GELU and SiLU (torchedge::conv2d_blocked_gelu / _silu): every
// case (several input chunks included: only the last applies it), plus
// wav2vec2-shaped 1-d layers (1 x L planes, k3 / k2 at stride 2), at 1 and 2
// threads, against the activation in double of the same call without it
// (same sums): rel 2e-6 + abs 1e-7, the vectorized erf's and exp's accuracy.
TEST(Conv2dBlocked, FusedActivationsMatchTheActivationOfTheOutput) {
  if (!simd()) return;  // NotSupported: checked above
  std::vector<Case> cases(std::begin(kCases), std::end(kCases));
  cases.push_back({1, 64, 1, 301, 48, 1, 3, 2, 0, true, false, -kInf, kInf});
  cases.push_back({1, 32, 1, 99, 32, 1, 2, 2, 0, false, false, -kInf, kInf});
  for (BlockedActivation act : {BlockedActivation::kGelu, BlockedActivation::kSilu}) {
    for (size_t threads : {size_t{1}, size_t{2}}) {
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      uint32_t seed = 40;
      for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message()
                     << (act == BlockedActivation::kGelu ? "GELU" : "SiLU") << " case cin "
                     << c.cin << " cout " << c.cout << " " << c.kh << "x" << c.kw << " " << c.w
                     << " wide, threads " << threads);
        Operands plain_run = make_run(c, seed), fused = make_run(c, seed);
        ++seed;
        ASSERT_EQ(run_kernel(c, plain_run), Error::Ok);
        ASSERT_EQ(run_kernel(c, fused, size_t{16} << 20, act), Error::Ok);
        for (size_t i = 0; i < fused.y.size(); ++i) {
          const double want = activated(act, plain_run.y[i]);
          ASSERT_NEAR(fused.y[i], want, 1e-7 + 2e-6 * std::fabs(want)) << "at " << i;
        }
      }
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dBlocked, NanStaysNanThroughTheClamp) {
  if (!simd()) return;  // NotSupported: checked above
  const Case c{1, 16, 4, 4, 16, 1, 1, 1, 0, true, false, 0.0f, 6.0f};
  Operands r = make_run(c, 7);
  r.xb[5 * 16 + 3] = std::numeric_limits<float>::quiet_NaN();  // pixel 5, channel 3
  ASSERT_EQ(run_kernel(c, r), Error::Ok);
  for (int64_t co = 0; co < 16; ++co) {
    EXPECT_TRUE(std::isnan(r.y[5 * 16 + co])) << co;  // every output channel of pixel 5
    EXPECT_FALSE(std::isnan(r.y[4 * 16 + co])) << co;
  }
}

TEST(Conv2dBlocked, TooLittleTempMemoryLeavesTheOutputAlone) {
  if (!simd()) return;
  const Case c{1, 32, 14, 14, 32, 3, 3, 1, 1, true, false, -kInf, kInf};
  Operands r = make_run(c, 9);
  r.y.assign(r.y.size(), 42.0f);
  EXPECT_EQ(run_kernel(c, r, 1024), Error::MemoryAllocationFailed);
  for (float v : r.y) ASSERT_EQ(v, 42.0f);
}

// y may be the residual itself (the memory planner writes a residual
// block's output over its residual): the first chunk of input channels
// starts from the residual, later chunks from the partial sums in y. Cases
// with a residual: several chunks (1x1 with 1024 / 512 / 256 input
// channels: 128 a chunk; 3x3 with 192 and 1024: 16 a chunk), stride 2,
// batch 2, two weight groups, a padded copy, gathered taps, plain inputs.
const Case kInPlaceCases[] = {
    {1, 1024, 7, 7, 32, 1, 1, 1, 0, true, true, -kInf, kInf},    // 8 chunks
    {1, 512, 7, 7, 128, 1, 1, 1, 0, true, true, 0.0f, kInf},     // 4 chunks, 2 groups, relu
    {2, 256, 9, 5, 64, 1, 1, 2, 0, false, true, -kInf, kInf},    // 2 chunks, stride 2, batch 2
    {1, 192, 6, 6, 96, 3, 3, 1, 0, true, true, -0.5f, 2.0f},     // 12 chunks, unpadded 3x3
    {2, 192, 7, 7, 48, 3, 3, 2, 1, true, true, 0.0f, kInf},      // 12 chunks, stride 2, batch 2
    {2, 32, 7, 7, 48, 3, 3, 1, 1, true, true, 0.0f, kInf},       // batch 2, 2 chunks
    {1, 32, 9, 5, 64, 1, 1, 2, 0, true, true, 0.0f, 6.0f},       // 1x1 stride 2, one chunk
    {1, 48, 5, 9, 128, 5, 3, 1, 2, true, true, -kInf, kInf},     // 5x3 filter, 2 groups
    {1, 32, 20, 18, 48, 3, 3, 1, 1, true, true, 0.0f, kInf},     // rows of 18: padded copy
    {2, 32, 33, 32, 16, 1, 1, 2, 0, false, true, -kInf, kInf},   // 1x1 stride 2, rows of 16
    {1, 1024, 12, 12, 16, 3, 3, 1, 1, true, true, -kInf, kInf},  // gathered, 64 chunks
    {1, 3, 23, 19, 64, 7, 7, 2, 3, true, true, 0.0f, kInf},      // plain input: a stem
    {2, 1, 9, 9, 80, 3, 3, 1, 1, true, true, -kInf, kInf},       // plain, 1 channel, batch 2
};

TEST(Conv2dBlocked, WritesOverItsResidualInPlace) {
  if (!simd()) return;  // NotSupported: checked above
  uint32_t seed = 101;
  for (const Case& c : kInPlaceCases) {
    ASSERT_TRUE(c.residual);
    const Operands operands = make_run(c, seed++);
    const BlockedConvReference reference = reference_of(c, operands);
    for (size_t threads : {size_t{1}, size_t{2}}) {
      SCOPED_TRACE(testing::Message() << "case n " << c.n << " cin " << c.cin << " cout " << c.cout
                                      << " " << c.kh << "x" << c.kw << " stride " << c.stride
                                      << " threads " << threads);
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      Operands r = operands;
      ASSERT_EQ(run_kernel(c, r), Error::Ok);  // separate output
      const std::vector<float> separate = r.y;
      reference.expect_matches(r.y);

      // y is the residual: the same buffer passed as both.
      r.y = r.rb;
      Conv2dClamp clamp;
      clamp.min = c.lo;
      clamp.max = c.hi;
      std::vector<uint8_t> temp(size_t{16} << 20);
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      ASSERT_EQ(conv2d_blocked(ctx, shape_of(c), r.xb.data(), r.wb.data(),
                               c.bias ? r.bias.data() : nullptr, r.y.data(), r.y.data(), clamp),
                Error::Ok);
      reference.expect_matches(r.y);
      ASSERT_EQ(r.y.size(), separate.size());
      // In place never runs on AMX; the separate output may have (another
      // summation order, float32-accurate).
      const bool amx_separate = conv2d_blocked_amx_applies(shape_of(c), r.rb.data(), separate.data());
      const float tolerance = amx_separate ? 1e-5f : 1e-6f;
      for (size_t i = 0; i < separate.size(); ++i) {
        ASSERT_NEAR(r.y[i], separate[i], tolerance * (1.0f + std::fabs(separate[i]))) << "at " << i;
      }
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// --- The AMX path (conv2d_blocked_amx, on CPUs with AMX-BF16) -------------
//
// Called directly against the same double sums (its six bfloat16 products
// are float32-accurate, so conv2d_gemm's tolerance holds): 1-d layers as
// 1 x L planes like wav2vec2's (k3 / k2, stride 2, no padding) and
// Whisper's (k3, padding 1, 80 input channels: an odd number of 16-value K
// chunks, padded to 32), an odd number of 16-channel output strips, a
// padded 2-d 3x3 with residual and relu, a batch; 1 and 2 threads. Where
// conv2d_blocked_amx_applies (enough output channels), conv2d_blocked's
// output is the same bits.

const Case kAmxCases[] = {
    {1, 64, 1, 701, 64, 1, 3, 2, 0, true, false, -kInf, kInf},    // wav2vec2-like, 350 pixels
    {1, 80, 1, 300, 48, 1, 3, 1, 1, true, false, -kInf, kInf},    // Whisper-like: K 240, 3 strips
    {1, 32, 1, 600, 16, 1, 2, 2, 0, false, false, -kInf, kInf},   // k2 stride 2, one strip
    {1, 32, 20, 18, 48, 3, 3, 1, 1, true, true, 0.0f, kInf},      // 2-d, padded, residual, relu
    {2, 16, 1, 520, 80, 1, 3, 1, 1, true, true, -0.5f, 2.0f},     // batch 2, clamp, 5 strips
    {1, 32, 1, 600, 144, 1, 3, 2, 0, true, false, -kInf, kInf},   // 9 strips; conv2d_blocked's pick
};

bool amx() { return amx_usable(); }

Error run_amx(const Case& c, Operands& r, size_t temp_bytes = size_t{16} << 20,
              BlockedActivation activation = BlockedActivation::kNone) {
  return run_kernel(c, r, temp_bytes, activation, &detail::conv2d_blocked_amx);
}

TEST(Conv2dBlockedAmx, MatchesDirectSumsAtOneAndTwoThreads) {
  if (!amx()) GTEST_SKIP() << "no AMX-BF16 on this CPU (or TORCHEDGE_ISA turned it off)";
  uint32_t seed = 200;
  for (const Case& c : kAmxCases) {
    Operands r = make_run(c, seed++);
    const BlockedConvReference reference = reference_of(c, r);
    const bool dispatched_here = conv2d_blocked_amx_applies(
        shape_of(c), c.residual ? r.rb.data() : nullptr, r.y.data());
    EXPECT_EQ(dispatched_here, c.cout >= kConvAmxMinOutChannels);
    for (size_t threads : {size_t{1}, size_t{2}}) {
      SCOPED_TRACE(testing::Message() << "case n " << c.n << " cin " << c.cin << " cout " << c.cout
                                      << " " << c.kh << "x" << c.kw << " " << c.h << "x" << c.w
                                      << " threads " << threads);
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      r.y.assign(r.y.size(), 0.0f);
      ASSERT_EQ(run_amx(c, r), Error::Ok);
      reference.expect_matches(r.y);
      if (!dispatched_here) continue;
      // conv2d_blocked takes this path where it applies: the same bits.
      Operands dispatched = r;
      dispatched.y.assign(r.y.size(), 0.0f);
      ASSERT_EQ(run_kernel(c, dispatched), Error::Ok);
      ASSERT_EQ(dispatched.y, r.y);
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// The GELU / SiLU in the store against the same activation of the sums
// without it.
TEST(Conv2dBlockedAmx, FusedActivationsMatchTheActivationOfTheOutput) {
  if (!amx()) GTEST_SKIP() << "no AMX-BF16 on this CPU (or TORCHEDGE_ISA turned it off)";
  for (BlockedActivation act : {BlockedActivation::kGelu, BlockedActivation::kSilu}) {
    uint32_t seed = 300;
    for (const Case& c : kAmxCases) {
      SCOPED_TRACE(testing::Message() << (act == BlockedActivation::kGelu ? "GELU" : "SiLU")
                                      << " case cin " << c.cin << " cout " << c.cout);
      Operands plain_run = make_run(c, seed), fused = make_run(c, seed);
      ++seed;
      ASSERT_EQ(run_amx(c, plain_run), Error::Ok);
      ASSERT_EQ(run_amx(c, fused, size_t{16} << 20, act), Error::Ok);
      for (size_t i = 0; i < fused.y.size(); ++i) {
        const double want = activated(act, plain_run.y[i]);
        ASSERT_NEAR(fused.y[i], want, 1e-7 + 2e-6 * std::fabs(want)) << "at " << i;
      }
    }
  }
}

// An infinity, NaN or subnormal cannot be split into bfloat16 terms the tile
// unit keeps: the AMX kernel declines, and conv2d_blocked then runs the AVX-512 kernel, which keeps
// the NaN in the outputs that read it (and only there).
TEST(Conv2dBlockedAmx, NonFiniteOperandsGoToTheAvx512Kernel) {
  if (!amx()) GTEST_SKIP() << "no AMX-BF16 on this CPU (or TORCHEDGE_ISA turned it off)";
  const Case c = kAmxCases[0];
  Operands r = make_run(c, 400);
  r.xb[(2 * 701 + 10) * 16 + 3] = std::numeric_limits<float>::quiet_NaN();  // block 2, pixel 10
  EXPECT_EQ(run_amx(c, r), Error::NotSupported);
  r.y.assign(r.y.size(), 0.0f);
  ASSERT_EQ(run_kernel(c, r), Error::Ok);
  const int64_t pixels = 350;
  for (int64_t q = 0; q < pixels; ++q) {
    const bool reads = q == 4 || q == 5;  // inputs 8..10 and 10..12
    EXPECT_EQ(std::isnan(r.y[q * 16 + 7]), reads) << "pixel " << q;
  }
  Operands w = make_run(c, 401);
  w.wb[5] = kInf;
  EXPECT_EQ(run_amx(c, w), Error::NotSupported);
  // A subnormal would be read as zero by the tile unit: declined too; the
  // AVX-512 kernel carries it (no bias here: the output is subnormal sums).
  const Case no_bias = kAmxCases[2];
  ASSERT_FALSE(no_bias.bias);
  Operands tiny = make_run(no_bias, 402);
  for (float& v : tiny.xb) v *= 1e-39f;
  EXPECT_EQ(run_amx(no_bias, tiny), Error::NotSupported);
  tiny.y.assign(tiny.y.size(), 0.0f);
  ASSERT_EQ(run_kernel(no_bias, tiny), Error::Ok);
  float peak = 0.0f;
  for (float v : tiny.y) peak = std::fmax(peak, std::fabs(v));
  EXPECT_GT(peak, 0.0f);
}

// Short temp memory: fewer workers than threads, then none (output untouched).
TEST(Conv2dBlockedAmx, ShortScratchTakesFewerWorkersThenDeclines) {
  if (!amx()) GTEST_SKIP() << "no AMX-BF16 on this CPU (or TORCHEDGE_ISA turned it off)";
  const Case c = kAmxCases[0];
  Operands r = make_run(c, 500);
  const BlockedConvReference reference = reference_of(c, r);
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  // K = 192 (K padded 192), 64 channels: 6 * 192 * 64 bytes of B planes,
  // 768 * 192 per worker: room for one worker, not two.
  const size_t one_worker = 6 * 192 * 64 + 768 * 192 + 64;
  ASSERT_EQ(run_amx(c, r, one_worker), Error::Ok);
  reference.expect_matches(r.y);
  r.y.assign(r.y.size(), 42.0f);
  EXPECT_EQ(run_amx(c, r, one_worker - 1024), Error::MemoryAllocationFailed);
  for (float v : r.y) ASSERT_EQ(v, 42.0f);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dBlockedAmx, AppliesToBlockedInputsWithEnoughPixels) {
  if (!amx()) GTEST_SKIP() << "no AMX-BF16 on this CPU (or TORCHEDGE_ISA turned it off)";
  std::vector<float> r(1), y(1);
  const Conv2dShape wide = shape_of(kAmxCases[5]);
  ASSERT_GE(wide.out_channels, kConvAmxMinOutChannels);
  EXPECT_TRUE(conv2d_blocked_amx_applies(wide, nullptr, y.data()));
  EXPECT_TRUE(conv2d_blocked_amx_applies(wide, r.data(), y.data()));
  EXPECT_FALSE(conv2d_blocked_amx_applies(wide, y.data(), y.data()));  // in place
  Conv2dShape narrow = wide;
  narrow.out_w = kConvAmxMinPixels - 1;
  EXPECT_FALSE(conv2d_blocked_amx_applies(narrow, nullptr, y.data()));
  Conv2dShape few_channels = wide;
  few_channels.out_channels = kConvAmxMinOutChannels - 16;
  EXPECT_FALSE(conv2d_blocked_amx_applies(few_channels, nullptr, y.data()));
  Conv2dShape short_k = wide;  // 32 channels, 1 tap
  short_k.kernel_w = 1;
  EXPECT_FALSE(conv2d_blocked_amx_applies(short_k, nullptr, y.data()));
  Conv2dShape first_layer = wide;
  first_layer.in_channels = 3;
  EXPECT_FALSE(conv2d_blocked_amx_applies(first_layer, nullptr, y.data()));
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
