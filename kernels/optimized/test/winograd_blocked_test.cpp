// conv2d_winograd_blocked (conv/winograd_blocked.h) against a
// double-precision direct 3x3 convolution of the filters g whose transform
// U = G g G^T the kernel reads, at the NCHW Winograd kernel's tolerance
// (1e-5 + 1e-4 relative to the sum of |terms|): padding 0 / 1 and uneven
// (ph != pw), odd output sizes (tiles cut at the edge), maps smaller than a
// tile, output channels that fill 1-4 blocks of the last 64-channel group,
// more input channels than one GEMM chunk (192), maps split into several
// bands (64 @ 56x56) and single bands shared by the threads, a batch, bias
// or none, residual and clamp, 1 and 2 threads. An infinity or NaN in the
// input makes it decline (NotSupported); so does TORCHEDGE_ISA=scalar
// (ctest's third run); a short temp allocator gives MemoryAllocationFailed
// with the output untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/optimized/conv/winograd_blocked.h"
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
  int n, cin, h, w, cout, pad_h, pad_w;
  bool bias, residual;
  float lo, hi;
};

const Case kCases[] = {
    {1, 16, 8, 8, 16, 1, 1, true, false, -kInf, kInf},       // one block each way
    {2, 32, 7, 7, 48, 1, 1, true, true, 0.0f, kInf},         // batch, odd map, residual, relu
    {1, 64, 14, 14, 80, 1, 1, false, false, -kInf, kInf},    // 5 blocks: a 1-block group
    {1, 192, 9, 11, 96, 0, 0, true, true, -0.5f, 2.0f},      // chunks, no padding, odd 7x9
    {1, 32, 13, 10, 128, 1, 0, true, false, 0.0f, 6.0f},     // ph != pw, 2 full groups
    {1, 16, 2, 3, 32, 1, 1, true, true, -kInf, kInf},        // a map smaller than a tile
    {1, 64, 56, 56, 64, 1, 1, true, true, 0.0f, kInf},       // several bands
    {1, 512, 7, 7, 64, 1, 1, true, false, -kInf, kInf},      // one band, many channels
};

Conv2dShape shape_of(const Case& c) {
  return Conv2dShape{c.n,  c.cin, c.h,     c.w,     c.cout, c.h + 2 * c.pad_h - 2,
                     c.w + 2 * c.pad_w - 2, 3, 3, 1, 1, c.pad_h, c.pad_w, 1, 1, 1};
}

// U = G g G^T per (co, ci), G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]],
// packed [16, ceil(Cout / 64), Cin / 16, 16 ci, 64 co].
std::vector<float> transform_and_pack(const std::vector<float>& w, const Conv2dShape& s) {
  const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const int64_t groups = (s.out_channels + 63) / 64, cb = s.in_channels / 16;
  std::vector<float> packed(static_cast<size_t>(16 * groups * cb * 1024), 0.0f);
  for (int64_t co = 0; co < s.out_channels; ++co) {
    for (int64_t ci = 0; ci < s.in_channels; ++ci) {
      const float* g = &w[static_cast<size_t>((co * s.in_channels + ci) * 9)];
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          double u = 0;
          for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) u += G[i][r] * g[r * 3 + q] * G[j][q];
          }
          const int64_t at = (((4 * i + j) * groups + co / 64) * cb + ci / 16) * 1024 +
                             (ci % 16) * 64 + co % 64;
          packed[static_cast<size_t>(at)] = static_cast<float>(u);
        }
      }
    }
  }
  return packed;
}

struct Operands {
  std::vector<float> x, w, bias, residual;  // NCHW
  std::vector<float> xb, u, rb, y;          // blocked / transformed, blocked output
};

Operands make_run(const Case& c, uint32_t seed) {
  const Conv2dShape s = shape_of(c);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operands r;
  r.x.resize(static_cast<size_t>(s.batch * s.in_channels * s.in_h * s.in_w));
  r.w.resize(static_cast<size_t>(s.out_channels * s.in_channels * 9));
  r.bias.resize(static_cast<size_t>(s.out_channels));
  r.residual.resize(static_cast<size_t>(s.batch * s.out_channels * s.out_h * s.out_w));
  for (std::vector<float>* v : {&r.x, &r.w, &r.bias, &r.residual}) {
    for (float& e : *v) e = dist(gen);
  }
  r.xb = to_blocked(r.x, s.batch, s.in_channels, s.in_h, s.in_w);
  r.rb = to_blocked(r.residual, s.batch, s.out_channels, s.out_h, s.out_w);
  r.u = transform_and_pack(r.w, s);
  r.y.assign(r.residual.size(), 0.0f);
  return r;
}

// Against the filters g themselves: U's transform is exact up to float rounding.
void expect_matches(const Case& c, const Operands& r) {
  expect_blocked_conv_matches(shape_of(c), r.x, r.w, c.bias ? r.bias.data() : nullptr,
                              c.residual ? r.residual.data() : nullptr, c.lo, c.hi, r.y);
}

Error run_kernel(const Case& c, Operands& r, size_t temp_bytes = size_t{16} << 20) {
  std::vector<uint8_t> temp(temp_bytes);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  Conv2dClamp clamp;
  clamp.min = c.lo;
  clamp.max = c.hi;
  return conv2d_winograd_blocked(ctx, shape_of(c), r.xb.data(), r.u.data(),
                                 c.bias ? r.bias.data() : nullptr,
                                 c.residual ? r.rb.data() : nullptr, r.y.data(), clamp);
}

bool simd() { return has_simd(); }

TEST(WinogradBlocked, MatchesDirectSumsAtOneAndTwoThreads) {
  for (size_t threads : {size_t{1}, size_t{2}}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    uint32_t seed = 1;
    for (const Case& c : kCases) {
      SCOPED_TRACE(testing::Message() << "cin " << c.cin << " cout " << c.cout << " " << c.h << "x"
                                      << c.w << " pad " << c.pad_h << "," << c.pad_w
                                      << " threads " << threads);
      Operands r = make_run(c, seed++);
      const Error err = run_kernel(c, r);
      if (!simd()) {
        EXPECT_EQ(err, Error::NotSupported);
        continue;
      }
      ASSERT_EQ(err, Error::Ok);
      expect_matches(c, r);
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(WinogradBlocked, DeclinesInfinityAndNan) {
  if (!simd()) return;  // NotSupported: checked above
  for (float bad : {kInf, -kInf, std::numeric_limits<float>::quiet_NaN()}) {
    for (size_t threads : {size_t{1}, size_t{2}}) {
      ASSERT_EQ(set_num_threads(threads), Error::Ok);
      const Case c = kCases[2];
      Operands r = make_run(c, 7);
      r.xb[r.xb.size() / 2 + 5] = bad;
      EXPECT_EQ(run_kernel(c, r), Error::NotSupported) << bad << " threads " << threads;
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(WinogradBlocked, ShortTempMemoryLeavesTheOutputUntouched) {
  if (!simd()) return;
  const Case c = kCases[6];
  Operands r = make_run(c, 3);
  r.y.assign(r.y.size(), 42.0f);
  EXPECT_EQ(run_kernel(c, r, 4096), Error::MemoryAllocationFailed);
  for (float v : r.y) ASSERT_EQ(v, 42.0f);
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
