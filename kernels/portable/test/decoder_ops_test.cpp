// The portable decoder-LLM kernels (rms_norm, rope, silu_mul, sdpa_kv_cache)
// against the double-precision references of decoder_reference.h: grouped
// query heads, decode near the end of the cache, prefill at 0 and past it,
// the in-place (aliased caches) and copy paths, and argument errors.
#include <cstring>
#include <random>
#include <string>

#include "kernels/portable/test/decoder_reference.h"
#include "kernels/portable/test/nn_test_harness.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/llm_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

size_t numel(const std::vector<int32_t>& s) {
  size_t n = 1;
  for (int32_t v : s) n *= static_cast<size_t>(v);
  return n;
}

TestTensor& filled(std::deque<TestTensor>& keep, std::vector<int32_t> shape, uint32_t seed,
                   float scale = 1.0f) {
  TestTensor& t = keep.emplace_back(ScalarType::Float, shape);
  t.fill(random_floats(numel(shape), seed, scale));
  return t;
}

TEST(RmsNorm, MatchesReferenceAndRunsInPlace) {
  std::deque<TestTensor> keep;
  TestTensor& x = filled(keep, {2, 3, 40}, 1, 3.0f);
  TestTensor& w = filled(keep, {40}, 2);
  TestTensor& out = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{2, 3, 40});
  const std::vector<float> want = reference_rms_norm(x.values<float>(), w.values<float>(), 1e-5);
  ASSERT_EQ(Args().t(x).t(w).d(1e-5).t(out).run(native::rms_norm_out), Error::Ok);
  expect_near_all(out.values<float>(), want, 1e-6f);
  ASSERT_EQ(Args().t(x).t(w).d(1e-5).t(x).run(native::rms_norm_out), Error::Ok);
  expect_near_all(x.values<float>(), want, 1e-6f);
}

TEST(RmsNorm, RejectsBadArguments) {
  std::deque<TestTensor> keep;
  TestTensor& x = filled(keep, {3, 8}, 1);
  TestTensor& w = filled(keep, {7}, 2);
  TestTensor& out = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{3, 8});
  EXPECT_EQ(Args().t(x).t(w).d(1e-5).t(out).run(native::rms_norm_out), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("weight must be [8]"), std::string::npos)
      << last_error_message();
  TestTensor& xd = keep.emplace_back(ScalarType::Double, std::vector<int32_t>{3, 8});
  TestTensor& w8 = filled(keep, {8}, 3);
  EXPECT_EQ(Args().t(xd).t(w8).d(1e-5).t(out).run(native::rms_norm_out), Error::InvalidType);
}

TEST(Rope, MatchesReferenceAndRunsInPlace) {
  std::deque<TestTensor> keep;
  TestTensor& x = filled(keep, {2, 5, 3, 8}, 4, 2.0f);
  TestTensor& cos = filled(keep, {5, 8}, 5);
  TestTensor& sin = filled(keep, {5, 8}, 6);
  TestTensor& out = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{2, 5, 3, 8});
  const std::vector<float> want =
      reference_rope(x.values<float>(), cos.values<float>(), sin.values<float>(), 5, 3, 8);
  ASSERT_EQ(Args().t(x).t(cos).t(sin).t(out).run(native::rope_out), Error::Ok);
  expect_near_all(out.values<float>(), want, 1e-6f);
  ASSERT_EQ(Args().t(x).t(cos).t(sin).t(x).run(native::rope_out), Error::Ok);
  expect_near_all(x.values<float>(), want, 1e-6f);
}

TEST(Rope, RejectsBadShapes) {
  std::deque<TestTensor> keep;
  TestTensor& odd = filled(keep, {1, 2, 1, 7}, 1);
  TestTensor& c7 = filled(keep, {2, 7}, 2);
  TestTensor& out7 = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{1, 2, 1, 7});
  EXPECT_EQ(Args().t(odd).t(c7).t(c7).t(out7).run(native::rope_out), Error::InvalidArgument);
  TestTensor& x = filled(keep, {1, 2, 1, 8}, 3);
  TestTensor& c = filled(keep, {3, 8}, 4);
  TestTensor& out = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{1, 2, 1, 8});
  EXPECT_EQ(Args().t(x).t(c).t(c).t(out).run(native::rope_out), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("cos must be [2, 8], got [3, 8]"),
            std::string::npos)
      << last_error_message();
}

TEST(SiluMul, MatchesReferenceInPlaceOnEitherInput) {
  std::deque<TestTensor> keep;
  TestTensor& gate = filled(keep, {3, 50}, 7, 6.0f);
  TestTensor& up = filled(keep, {3, 50}, 8, 2.0f);
  TestTensor& out = keep.emplace_back(ScalarType::Float, std::vector<int32_t>{3, 50});
  const std::vector<float> want = reference_silu_mul(gate.values<float>(), up.values<float>());
  ASSERT_EQ(Args().t(gate).t(up).t(out).run(native::silu_mul_out), Error::Ok);
  expect_near_all(out.values<float>(), want, 1e-6f);
  ASSERT_EQ(Args().t(gate).t(up).t(up).run(native::silu_mul_out), Error::Ok);
  expect_near_all(up.values<float>(), want, 1e-6f);
  TestTensor& other = filled(keep, {3, 49}, 9);
  EXPECT_EQ(Args().t(gate).t(other).t(out).run(native::silu_mul_out), Error::InvalidArgument);
}

// One sdpa_kv_cache call's tensors.
struct Attention {
  AttentionShape s;
  std::deque<TestTensor> keep;
  TestTensor *q, *k, *v, *k_cache, *v_cache, *start_pos, *out, *k_out, *v_out;

  Attention(AttentionShape shape, bool in_place, uint32_t seed) : s(shape) {
    const int32_t b = static_cast<int32_t>(s.batch), t = static_cast<int32_t>(s.tokens);
    const int32_t hq = static_cast<int32_t>(s.q_heads), hkv = static_cast<int32_t>(s.kv_heads);
    const int32_t d = static_cast<int32_t>(s.dim), ctx = static_cast<int32_t>(s.context);
    q = &filled(keep, {b, t, hq, d}, seed);
    k = &filled(keep, {b, t, hkv, d}, seed + 1);
    v = &filled(keep, {b, t, hkv, d}, seed + 2);
    k_cache = &filled(keep, {b, ctx, hkv, d}, seed + 3);
    v_cache = &filled(keep, {b, ctx, hkv, d}, seed + 4);
    start_pos = &keep.emplace_back(ScalarType::Long, std::vector<int32_t>{1});
    start_pos->fill(std::vector<int64_t>{s.start});
    out = &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, t, hq, d});
    k_out = in_place ? k_cache : &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, ctx, hkv, d});
    v_out = in_place ? v_cache : &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, ctx, hkv, d});
  }
  Error run(double scale, KernelFn fn = native::sdpa_kv_cache_out) {
    return Args().t(*q).t(*k).t(*v).t(*k_cache).t(*v_cache).t(*start_pos).d(scale).t(*out)
        .t(*k_out).t(*v_out).run(fn);
  }
};

void check_attention(AttentionShape shape, bool in_place) {
  SCOPED_TRACE(testing::Message() << "B=" << shape.batch << " T=" << shape.tokens << " Hq="
                                  << shape.q_heads << " Hkv=" << shape.kv_heads << " p="
                                  << shape.start << (in_place ? " in place" : " copy"));
  Attention a(shape, in_place, static_cast<uint32_t>(shape.tokens * 31 + shape.start));
  std::vector<float> k_want = a.k_cache->values<float>(), v_want = a.v_cache->values<float>();
  const std::vector<float> k_in = k_want, v_in = v_want;
  reference_cache_update(shape, a.k->values<float>(), k_want);
  reference_cache_update(shape, a.v->values<float>(), v_want);
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.dim));
  const std::vector<float> want = reference_attention(shape, a.q->values<float>(), k_want, v_want, scale);
  ASSERT_EQ(a.run(scale), Error::Ok) << last_error_message();
  expect_near_all(a.out->values<float>(), want, 1e-5f);
  EXPECT_EQ(a.k_out->values<float>(), k_want);
  EXPECT_EQ(a.v_out->values<float>(), v_want);
  if (!in_place) {  // the inputs are left alone
    EXPECT_EQ(a.k_cache->values<float>(), k_in);
    EXPECT_EQ(a.v_cache->values<float>(), v_in);
  }
}

TEST(SdpaKvCache, GroupedQueryHeadsDecodeAndPrefillBothCachePaths) {
  for (bool in_place : {false, true}) {
    check_attention({1, 1, 9, 3, 16, 32, 31}, in_place);  // decode at the last position
    check_attention({1, 1, 9, 3, 16, 32, 0}, in_place);   // first token
    check_attention({1, 7, 9, 3, 16, 32, 0}, in_place);   // prefill from the start
    check_attention({1, 7, 9, 3, 16, 32, 5}, in_place);   // prefill after 5 cached tokens
    check_attention({2, 3, 4, 4, 8, 12, 9}, in_place);    // batch 2, one query head per kv head
    check_attention({1, 4, 6, 1, 12, 10, 6}, in_place);   // one kv head for all
  }
}

TEST(SdpaKvCache, InPlaceWritesOnlyTheNewRows) {
  Attention a({1, 2, 2, 1, 4, 8, 3}, true, 5);
  std::vector<float> before = a.k_cache->values<float>();
  ASSERT_EQ(a.run(0.5), Error::Ok);
  const std::vector<float> after = a.k_cache->values<float>(), k = a.k->values<float>();
  for (size_t i = 0; i < after.size(); ++i) {
    const size_t position = i / 4;
    EXPECT_EQ(after[i], position == 3 || position == 4 ? k[i - 12] : before[i]) << i;
  }
}

TEST(SdpaKvCache, OutOfRangePositionsAreErrorsNamingThem) {
  {
    Attention a({1, 3, 2, 1, 4, 8, 6}, false, 1);  // [6, 9) past a context of 8
    EXPECT_EQ(a.run(1.0), Error::InvalidArgument);
    EXPECT_NE(std::string(last_error_message()).find("positions [6, 9) do not fit the context of 8"),
              std::string::npos)
        << last_error_message();
  }
  {
    Attention a({1, 1, 2, 1, 4, 8, 0}, true, 1);
    a.start_pos->fill(std::vector<int64_t>{-1});
    EXPECT_EQ(a.run(1.0), Error::InvalidArgument);
    EXPECT_NE(std::string(last_error_message()).find("positions [-1, 0)"), std::string::npos);
  }
}

TEST(SdpaKvCache, RejectsBadArguments) {
  {
    Attention a({1, 1, 4, 3, 4, 8, 0}, false, 1);
    EXPECT_EQ(a.run(1.0), Error::InvalidArgument);
    EXPECT_NE(std::string(last_error_message()).find("4 query heads are not a multiple of 3"),
              std::string::npos);
  }
  {
    Attention a({1, 1, 2, 1, 4, 8, 0}, false, 1);
    TestTensor wrong(ScalarType::Int, {1});
    a.start_pos = &wrong;
    EXPECT_EQ(a.run(1.0), Error::InvalidArgument);
    EXPECT_NE(std::string(last_error_message()).find("start_pos must be int64 [1]"), std::string::npos);
  }
  {
    // An output cache that overlaps its input without being it.
    Attention a({1, 1, 2, 1, 4, 8, 0}, false, 1);
    std::vector<float> storage(64 + 4);
    FloatView in(storage.data(), {1, 8, 1, 4}), shifted(storage.data() + 4, {1, 8, 1, 4});
    EXPECT_EQ(Args().t(*a.q).t(*a.k).t(*a.v).t(&in.tensor).t(*a.v_cache).t(*a.start_pos).d(1.0)
                  .t(*a.out).t(&shifted.tensor).t(*a.v_out).run(native::sdpa_kv_cache_out),
              Error::InvalidArgument);
  }
  {
    Attention a({1, 1, 2, 1, 4, 8, 0}, false, 1);
    EXPECT_EQ(Args().t(*a.q).t(*a.k).t(*a.v).t(*a.k_cache).t(*a.v_cache).t(*a.start_pos).d(1.0)
                  .t(*a.out).t(*a.k_out).t(*a.v_out).run(native::sdpa_kv_cache_out, false),
              Error::MemoryAllocationFailed);
  }
}

}  // namespace
}  // namespace torchedge
