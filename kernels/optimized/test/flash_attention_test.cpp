// torchedge::attention.out, optimized (flash attention, vec/flash_attention.h)
// and portable, against a double-precision reference of
// safe_softmax(q @ k_t) @ v: short and odd sizes (partial key tiles, a
// partial query block, value dims that take the AVX-512, AVX2 and scalar
// blocks), Whisper's 1500 x 1500 attention and longer odd lengths (the
// long-sequence tiling: many key tiles and query blocks), a query whose
// scores are all -inf (zeros, as aten._safe_softmax), a NaN query (a NaN
// row, as eager's softmax), no keys, at 1 and 2 threads; rtol 1e-4 / atol
// 1e-5. The fast path's use is checked by its scratch (one thread's slot).
// CTest runs the binary again with TORCHEDGE_ISA=avx2 and =scalar.
#include <cfloat>
#include <random>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/flash_attention.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
Error attention_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

struct AttentionCase {
  int batch, queries, keys, dim, vdim;
  bool masked_row;       // query row 0 of batch 0 all -inf
  bool nan_row = false;  // query row 1 of the last batch item holds a NaN
};

std::vector<float> reference(const std::vector<float>& q, const std::vector<float>& kt,
                             const std::vector<float>& v, const AttentionCase& c) {
  std::vector<float> out(static_cast<size_t>(c.batch) * c.queries * c.vdim, 0.0f);
  std::vector<double> scores(static_cast<size_t>(c.keys));
  for (int b = 0; b < c.batch; ++b) {
    for (int l = 0; l < c.queries; ++l) {
      double max = -INFINITY;
      bool nan = false;  // a NaN score makes the row NaN (eager's softmax)
      for (int j = 0; j < c.keys; ++j) {
        double s = 0;
        for (int d = 0; d < c.dim; ++d) {
          s += static_cast<double>(q[(static_cast<size_t>(b) * c.queries + l) * c.dim + d]) *
               kt[(static_cast<size_t>(b) * c.dim + d) * c.keys + j];
        }
        scores[j] = s;
        max = s > max ? s : max;
        nan = nan || std::isnan(s);
      }
      if (nan) {
        for (int e = 0; e < c.vdim; ++e) out[(static_cast<size_t>(b) * c.queries + l) * c.vdim + e] = NAN;
        continue;
      }
      if (max == -INFINITY) continue;  // zeros
      double sum = 0;
      for (int j = 0; j < c.keys; ++j) sum += scores[j] = std::exp(scores[j] - max);
      for (int e = 0; e < c.vdim; ++e) {
        double acc = 0;
        for (int j = 0; j < c.keys; ++j) {
          acc += scores[j] * v[(static_cast<size_t>(b) * c.keys + j) * c.vdim + e];
        }
        out[(static_cast<size_t>(b) * c.queries + l) * c.vdim + e] = static_cast<float>(acc / sum);
      }
    }
  }
  return out;
}

// `arena` bytes of temp memory; `min_scratch` (0: one slot of the best
// ISA's) is what the fast path must have taken from it.
void run_case(const AttentionCase& c, std::mt19937& rng, bool with_portable,
              size_t arena_bytes = size_t{4} << 20, size_t min_scratch = 0) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> q(static_cast<size_t>(c.batch) * c.queries * c.dim),
      kt(static_cast<size_t>(c.batch) * c.dim * c.keys), v(static_cast<size_t>(c.batch) * c.keys * c.vdim);
  for (float& x : q) x = 0.4f * dist(rng);
  for (float& x : kt) x = c.masked_row ? std::fabs(dist(rng)) + 0.1f : dist(rng);
  for (float& x : v) x = dist(rng);
  if (c.masked_row) {
    for (int d = 0; d < c.dim; ++d) q[d] = -INFINITY;  // times positive keys: -inf scores
  }
  if (c.nan_row) q[(static_cast<size_t>(c.batch - 1) * c.queries + 1) * c.dim] = NAN;
  const std::vector<float> want = reference(q, kt, v, c);
  TestTensor tq(ScalarType::Float, {c.batch, c.queries, c.dim}),
      tk(ScalarType::Float, {c.batch, c.dim, c.keys}), tv(ScalarType::Float, {c.batch, c.keys, c.vdim});
  tq.fill(q), tk.fill(kt), tv.fill(v);
  for (int which = 0; which < (with_portable ? 2 : 1); ++which) {
    TestTensor out(ScalarType::Float, {c.batch, c.queries, c.vdim});
    Args args;
    args.t(tq).t(tk).t(tv).t(out);
    std::vector<unsigned char> arena(arena_bytes);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    ASSERT_EQ(args.run_with(which == 0 ? &optimized::attention_out : &native::attention_out, ctx),
              Error::Ok);
    if (which == 0 && c.queries > 0) {
      // One thread's slot: the fast path ran (the portable kernel takes none).
      const optimized::FlashAttentionProblem sizes{nullptr, nullptr, nullptr, nullptr, c.batch,
                                                   c.queries, c.keys, c.dim, c.vdim};
      EXPECT_GE(temp.used(), min_scratch != 0 ? min_scratch
                                              : optimized::flash_attention_scratch_bytes(
                                                    sizes, optimized::best_isa(), 1))
          << "fast path";
    }
    const std::vector<float> got = out.values<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(got[i])) << (which == 0 ? "optimized" : "portable") << " at " << i;
        continue;
      }
      ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-4 * std::fabs(want[i]))
          << (which == 0 ? "optimized" : "portable") << " at " << i;
    }
  }
}

class FlashAttentionTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(FlashAttentionTest, ShortAndOddShapes) {
  std::mt19937 rng(23);
  const AttentionCase cases[] = {
      {2, 5, 7, 8, 16, false},      // one partial key tile, partial query block
      {3, 130, 200, 64, 64, false}, // 3 query blocks, 4 key tiles (last partial)
      {4, 49, 49, 64, 64, false},   // wav2vec2's 49 frames, 4 heads
      {1, 70, 64, 40, 24, false},   // value dim 24: the AVX2 block
      {1, 33, 90, 20, 12, false},   // value dim 12: the scalar block
      {2, 9, 100, 16, 32, true},    // a query with only -inf scores: zeros
      {2, 4, 0, 16, 16, false},     // no keys: zeros
      {2, 13, 70, 40, 80, false},   // value dim 80: 64 + 16 output columns; head dim 40
      {1, 7, 65, 24, 48, false},    // value dim 48 (3 vectors), one key past a tile
      {2, 11, 150, 16, 16, false, true},  // a NaN query: its row is NaN, the others exact
  };
  for (const AttentionCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "B=" << c.batch << " L=" << c.queries << " S=" << c.keys
                                      << " D=" << c.dim << " E=" << c.vdim);
    run_case(c, rng, true);
  }
}

// Whisper's encoder self-attention: 1500 tokens, head dim 64 (24 query
// blocks x 24 key tiles, the last of each partial).
TEST_P(FlashAttentionTest, LongSequence) {
  std::mt19937 rng(29);
  run_case({1, 1500, 1500, 64, 64, false}, rng, false);
}

// Long sequences whose lengths are no multiple of any tile or block (query
// blocks of 48 and 64 rows, register blocks of 6, key tiles of 64), more
// batch items (heads) than threads, a query row of only -inf scores, and
// head and value dims that take the narrower column blocks.
TEST_P(FlashAttentionTest, LongSequencesOfOddLengths) {
  std::mt19937 rng(31);
  const AttentionCase cases[] = {
      {2, 1001, 1037, 64, 64, false},
      {2, 377, 1999, 32, 48, true},
      {1, 601, 1283, 80, 80, false, true},
  };
  for (const AttentionCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "B=" << c.batch << " L=" << c.queries << " S=" << c.keys
                                      << " D=" << c.dim << " E=" << c.vdim);
    run_case(c, rng, false);
  }
}

// A sequence whose packed keys (AVX-512: 4000 x 64 floats per thread, 1 MB)
// exceed the temp memory runs the generic block instead, which needs one
// query block's scratch: same results, no error.
TEST_P(FlashAttentionTest, KeysTooLongForTempMemoryTakeTheGenericBlock) {
  std::mt19937 rng(37);
  const AttentionCase c{2, 100, 4000, 64, 64, false};
  const optimized::FlashAttentionProblem sizes{nullptr, nullptr, nullptr, nullptr, c.batch,
                                               c.queries, c.keys, c.dim, c.vdim};
  const size_t generic = optimized::flash_attention_scratch_bytes(sizes, optimized::Isa::kAvx2, 1);
  ASSERT_LT(generic * 2 + 4096, size_t{512} << 10);
  run_case(c, rng, false, size_t{512} << 10, generic);
}

INSTANTIATE_TEST_SUITE_P(Threads, FlashAttentionTest, ::testing::Values(1, 2));

#if defined(__x86_64__)  // the AVX-512 exponential is compiled on x86 only
// The AVX-512 kernel's softmax exponential, 2^x for x <= 0: relative error
// <= 2.5e-7 on a dense sweep of [-126, 0], FLT_MIN (as rounded) below and
// at -inf, NaN kept.
TEST(FlashAttentionExp2, AccuracyOnNonPositiveInputs) {
  if (optimized::best_isa() != optimized::Isa::kAvx512) GTEST_SKIP() << "needs an AVX-512 CPU";
  std::vector<float> x;
  for (int i = 0; i <= 1260000; ++i) x.push_back(-126.0f * static_cast<float>(i) / 1260000.0f);
  const size_t swept = x.size();
  x.push_back(-126.5f), x.push_back(-1000.0f), x.push_back(-INFINITY), x.push_back(NAN);
  std::vector<float> y(x.size());
  optimized::detail::flash_exp2_avx512(x.data(), y.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < swept; ++i) {
    const double want = std::exp2(static_cast<double>(x[i]));
    const double err = std::fabs(y[i] - want) / want;
    worst = err > worst ? err : worst;
  }
  EXPECT_LE(worst, 2.5e-7);
  for (size_t i = swept; i + 1 < x.size(); ++i) EXPECT_NEAR(y[i], FLT_MIN, 2.5e-7 * FLT_MIN) << x[i];
  EXPECT_TRUE(std::isnan(y.back()));
}
#endif

TEST(FlashAttentionFallback, MismatchedShapesAndDtypesGoToPortable) {
  TestTensor q(ScalarType::Float, {1, 3, 4}), kt(ScalarType::Float, {1, 5, 6}),
      v(ScalarType::Float, {1, 6, 4}), out(ScalarType::Float, {1, 3, 4});
  Args bad;
  bad.t(q).t(kt).t(v).t(out);
  EXPECT_EQ(bad.run(&optimized::attention_out), Error::InvalidArgument);
  TestTensor dq(ScalarType::Double, {1, 3, 4}), dk(ScalarType::Double, {1, 4, 6}),
      dv(ScalarType::Double, {1, 6, 4}), dout(ScalarType::Double, {1, 3, 4});
  Args doubles;
  doubles.t(dq).t(dk).t(dv).t(dout);
  EXPECT_EQ(doubles.run(&optimized::attention_out), Error::InvalidType);
}

}  // namespace
}  // namespace torchedge
