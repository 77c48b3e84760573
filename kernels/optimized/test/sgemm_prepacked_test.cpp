// SGEMM with B packed ahead of time (SgemmProblem::b_prepacked, the layout
// torchedge::linear_prepacked's weight uses) against the same problem with
// B as a strided [N, K] weight: the micro-kernels see the same strips in the
// same order, so the results must be bit-identical. Every ISA this CPU runs,
// 1 and 2 threads (plans that split N and that split M), N not a multiple
// of 16, K over several KC blocks, M = 1 / 5 / 128; the in-place path
// (16-wide, 64-byte aligned) and the repacking one (other strip widths, a
// misaligned pointer); the scratch the in-place path saves; errors.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

std::vector<Isa> runnable_isas() {
  std::vector<Isa> isas{Isa::kScalar};
  if (static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2)) isas.push_back(Isa::kAvx2);
  if (best_isa() == Isa::kAvx512) isas.push_back(Isa::kAvx512);
  return isas;
}

// A row-major [N, K] weight packed as B = weight^T in nr-wide strips, placed
// `misalign` floats past a 64-byte boundary inside `storage`.
const float* prepack(const std::vector<float>& weight, int64_t n, int64_t k, int64_t nr,
                     int64_t misalign, std::vector<float>* storage) {
  const int64_t strips = (n + nr - 1) / nr;
  storage->assign(static_cast<size_t>(strips * k * nr + 16 + misalign), 0.0f);
  float* base = storage->data();
  while (reinterpret_cast<uintptr_t>(base) % 64 != 0) ++base;
  base += misalign;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t kk = 0; kk < k; ++kk) {
      base[(j / nr) * k * nr + kk * nr + j % nr] = weight[j * k + kk];
    }
  }
  return base;
}

struct Shape {
  int64_t m, n, k;
};

// The shapes: N % 16 != 0 throughout; K = 1000 spans several KC blocks;
// with 2 threads, N > M splits N and M = 128 > N splits M; M = 700 over
// strips read in place splits M into more parts than threads.
constexpr Shape kShapes[] = {
    {1, 37, 1000}, {5, 100, 1000}, {128, 37, 1000}, {128, 200, 384},
    {1, 300, 64},  {5, 1, 7},      {700, 40, 300},
};

class SgemmPrepackedTest : public ::testing::TestWithParam<int> {};

TEST_P(SgemmPrepackedTest, BitIdenticalToStridedWeight) {
  ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint8_t> temp(size_t{16} << 20);
  struct Layout {
    int64_t nr, misalign;
  };
  // 16 aligned: in place for every kernel; the others repack.
  const Layout layouts[] = {{16, 0}, {16, 1}, {8, 0}, {32, 0}};
  for (Isa isa : runnable_isas()) {
    for (const Shape& sh : kShapes) {
      std::vector<float> a(static_cast<size_t>(sh.m * sh.k)), w(static_cast<size_t>(sh.n * sh.k));
      std::vector<float> bias(static_cast<size_t>(sh.n));
      for (float& x : a) x = dist(rng);
      for (float& x : w) x = dist(rng);
      for (float& x : bias) x = dist(rng);
      SgemmProblem p;
      p.m = sh.m, p.n = sh.n, p.k = sh.k;
      p.a = MatrixView{a.data(), sh.k, 1};
      p.b = MatrixView{w.data(), 1, sh.k};  // B = weight^T
      p.col_bias = bias.data();
      p.ldc = sh.n;
      std::vector<float> expected(static_cast<size_t>(sh.m * sh.n), 1.0f);
      p.c = expected.data();
      {
        MemoryAllocator allocator(temp.data(), temp.size());
        KernelContext ctx(&allocator);
        ASSERT_EQ(sgemm_with_isa(ctx, p, isa), Error::Ok);
      }
      for (const Layout& layout : layouts) {
        std::vector<float> storage;
        SgemmProblem q = p;
        q.b = MatrixView{};
        q.b_prepacked = prepack(w, sh.n, sh.k, layout.nr, layout.misalign, &storage);
        q.b_prepacked_nr = layout.nr;
        std::vector<float> got(expected.size(), -1.0f);
        q.c = got.data();
        MemoryAllocator allocator(temp.data(), temp.size());
        KernelContext ctx(&allocator);
        ASSERT_EQ(sgemm_with_isa(ctx, q, isa), Error::Ok);
        EXPECT_EQ(std::memcmp(got.data(), expected.data(), sizeof(float) * got.size()), 0)
            << isa_name(isa) << " threads=" << GetParam() << " m=" << sh.m << " n=" << sh.n
            << " k=" << sh.k << " nr=" << layout.nr << " misalign=" << layout.misalign;
      }
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

INSTANTIATE_TEST_SUITE_P(Threads, SgemmPrepackedTest, ::testing::Values(1, 2));

// One row against prepacked B takes its own path (sgemm_driver.h
// run_gemv: whole strips, then the unfused epilogue); with every epilogue
// term it must still match the strided weight's fused tiles bit for bit.
TEST_P(SgemmPrepackedTest, OneRowWithEveryEpilogueTerm) {
  ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint8_t> temp(size_t{16} << 20);
  const int64_t n = 1000, k = 1280;  // MobileNetV2's head: 63 strips, 5 KC blocks
  std::vector<float> a(k), w(n * k), col_bias(n), addend(n), row_bias{0.25f};
  for (float& x : a) x = dist(rng);
  for (float& x : w) x = dist(rng);
  for (float& x : col_bias) x = dist(rng);
  for (float& x : addend) x = dist(rng);
  for (Isa isa : runnable_isas()) {
    SgemmProblem p;
    p.m = 1, p.n = n, p.k = k;
    p.a = MatrixView{a.data(), k, 1};
    p.b = MatrixView{w.data(), 1, k};
    p.alpha = 0.75f, p.beta = -0.5f;
    p.addend = MatrixView{addend.data(), n, 1};
    p.row_bias = row_bias.data();
    p.col_bias = col_bias.data();
    p.min = -4.0f, p.max = 4.0f;
    p.ldc = n;
    std::vector<float> expected(n), got(n, -1.0f), storage;
    p.c = expected.data();
    {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      ASSERT_EQ(sgemm_with_isa(ctx, p, isa), Error::Ok);
    }
    SgemmProblem q = p;
    q.b = MatrixView{};
    q.b_prepacked = prepack(w, n, k, 16, 0, &storage);
    q.b_prepacked_nr = 16;
    q.c = got.data();
    MemoryAllocator allocator(temp.data(), temp.size());
    KernelContext ctx(&allocator);
    ASSERT_EQ(sgemm_with_isa(ctx, q, isa), Error::Ok);
    EXPECT_EQ(std::memcmp(got.data(), expected.data(), sizeof(float) * got.size()), 0)
        << isa_name(isa) << " threads=" << GetParam();
    int64_t clamped = 0;
    for (float v : got) clamped += v == -4.0f || v == 4.0f;
    EXPECT_GT(clamped, 0) << "the clamp never bit: the test would not see it";
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(SgemmPrepacked, InPlaceNeedsNoBPanelScratch) {
  const int64_t m = 128, n = 384, k = 384;
  std::vector<float> w(static_cast<size_t>(n * k), 0.5f), storage;
  SgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.b = MatrixView{w.data(), 1, k};
  SgemmProblem q = p;
  q.b = MatrixView{};
  q.b_prepacked = prepack(w, n, k, 16, 0, &storage);
  q.b_prepacked_nr = 16;
  // Every kernel reads 16-wide strips in place (the AVX-512 one two at a
  // time), so prepacked B needs no B panel.
  EXPECT_LT(sgemm_scratch_bytes(q), sgemm_scratch_bytes(p));
}

TEST(SgemmPrepacked, Errors) {
  std::vector<float> a(8, 1.0f), b(16 * 8, 1.0f), c(2 * 16);
  std::vector<uint8_t> temp(size_t{1} << 20);
  MemoryAllocator allocator(temp.data(), temp.size());
  KernelContext ctx(&allocator);
  SgemmProblem p;
  p.m = 1, p.n = 16, p.k = 8;
  p.a = MatrixView{a.data(), 8, 1};
  p.b_prepacked = b.data();
  p.b_prepacked_nr = 16;
  p.c = c.data();
  p.ldc = 16;
  ASSERT_EQ(sgemm(ctx, p), Error::Ok);
  for (float v : std::vector<float>(c.begin(), c.begin() + 16)) EXPECT_EQ(v, 8.0f);
  p.batch = 2;
  EXPECT_EQ(sgemm(ctx, p), Error::InvalidArgument);
  p.batch = 1;
  p.b_prepacked_nr = 0;
  EXPECT_EQ(sgemm(ctx, p), Error::InvalidArgument);
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
