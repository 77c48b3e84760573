// The optimized decoder-LLM kernels (ops/op_{rms_norm,rope,silu_mul,
// sdpa_kv_cache}.cpp) against the double-precision references of
// kernels/portable/test/decoder_reference.h and their portable twins, at 1
// and 2 threads on the active ISA (ctest reruns the suite under
// TORCHEDGE_ISA=avx2 and =scalar): sdpa_kv_cache over long caches (key
// ranges split across threads for decode), every block-size remainder, head
// dims that take the AVX-512 (64, 16), AVX2 (24) and scalar (12) paths, both
// cache paths; and each ISA's attention block directly.
#include <cstring>

#include "kernels/optimized/test/transformer_test_harness.h"
#include "kernels/optimized/vec/attention.h"
#include "kernels/portable/test/decoder_reference.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
#define TE_OPTIMIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/optimized/llm_kernels.inc"
#undef TE_OPTIMIZED_KERNEL

namespace {

Error run_with_scratch(Call& call, Fn fn) {
  std::vector<uint64_t> arena(1 << 18);  // 2 MiB
  MemoryAllocator temp(arena.data(), arena.size() * sizeof(uint64_t));
  KernelContext ctx(&temp);
  std::vector<EValue*> ptrs;
  for (EValue& v : call.values) ptrs.push_back(&v);
  return fn(ctx, {ptrs.data(), ptrs.size()});
}

struct Attention {
  AttentionShape s;
  std::deque<Buf> keep;
  Buf *q, *k, *v, *k_cache, *v_cache, *start_pos, *out, *k_out, *v_out;

  Attention(AttentionShape shape, bool in_place) : s(shape) {
    const int32_t b = static_cast<int32_t>(s.batch), t = static_cast<int32_t>(s.tokens);
    const int32_t hq = static_cast<int32_t>(s.q_heads), hkv = static_cast<int32_t>(s.kv_heads);
    const int32_t d = static_cast<int32_t>(s.dim), ctx = static_cast<int32_t>(s.context);
    q = &random({b, t, hq, d});
    k = &random({b, t, hkv, d});
    v = &random({b, t, hkv, d});
    k_cache = &random({b, ctx, hkv, d});
    v_cache = &random({b, ctx, hkv, d});
    start_pos = &keep.emplace_back(ScalarType::Long, std::vector<int32_t>{1});
    std::memcpy(start_pos->bytes.data(), &s.start, sizeof(int64_t));
    out = &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, t, hq, d});
    k_out = in_place ? k_cache : &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, ctx, hkv, d});
    v_out = in_place ? v_cache : &keep.emplace_back(ScalarType::Float, std::vector<int32_t>{b, ctx, hkv, d});
  }
  Buf& random(std::vector<int32_t> shape) {
    Buf& b = keep.emplace_back(ScalarType::Float, shape);
    fill_random(b, 1.0f);
    return b;
  }
  Error run(double scale, Fn fn) {
    Call call;
    call.t(*q).t(*k).t(*v).t(*k_cache).t(*v_cache).t(*start_pos).d(scale).t(*out).t(*k_out).t(*v_out);
    return run_with_scratch(call, fn);
  }
};

void check_attention(AttentionShape shape, bool in_place) {
  SCOPED_TRACE(testing::Message() << "B=" << shape.batch << " T=" << shape.tokens << " Hq="
                                  << shape.q_heads << " Hkv=" << shape.kv_heads << " D="
                                  << shape.dim << " S=" << shape.context << " p=" << shape.start
                                  << (in_place ? " in place" : " copy"));
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.dim));
  Attention a(shape, in_place);
  std::vector<float> k_want = a.k_cache->floats(), v_want = a.v_cache->floats();
  const std::vector<float> k_in = k_want;
  reference_cache_update(shape, a.k->floats(), k_want);
  reference_cache_update(shape, a.v->floats(), v_want);
  const std::vector<float> want = reference_attention(shape, a.q->floats(), k_want, v_want, scale);
  ASSERT_EQ(a.run(scale, sdpa_kv_cache_out), Error::Ok) << last_error_message();
  expect_close(a.out->floats(), want, 1e-5, 1e-6, "out");
  EXPECT_EQ(a.k_out->floats(), k_want);
  EXPECT_EQ(a.v_out->floats(), v_want);
  if (!in_place) EXPECT_EQ(a.k_cache->floats(), k_in);
}

TEST(OptimizedSdpaKvCache, MatchesReferenceOverShapesThreadsAndCachePaths) {
  at_thread_counts([](size_t) {
    for (bool in_place : {true, false}) {
      check_attention({1, 1, 9, 3, 64, 2048, 2047}, in_place);  // decode, last position: split ranges
      check_attention({1, 1, 9, 3, 64, 700, 600}, in_place);
      check_attention({1, 1, 9, 3, 64, 64, 0}, in_place);
      check_attention({1, 7, 9, 3, 64, 64, 0}, in_place);
      check_attention({1, 7, 9, 3, 64, 64, 5}, in_place);
      check_attention({1, 100, 9, 3, 64, 300, 150}, in_place);  // 16-token blocks and a remainder
      check_attention({2, 33, 4, 2, 16, 100, 60}, in_place);
      check_attention({1, 5, 8, 8, 24, 600, 530}, in_place);    // D = 24: the AVX2 loops at most
      check_attention({1, 3, 2, 1, 12, 80, 70}, in_place);      // D = 12: scalar
      check_attention({1, 1, 3, 1, 64, 1200, 1100}, in_place);  // a single kv head, split
    }
  });
}

TEST(OptimizedSdpaKvCache, SameErrorsAsPortable) {
  Attention a({1, 3, 2, 1, 8, 8, 6}, false);
  EXPECT_EQ(a.run(1.0, sdpa_kv_cache_out), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("positions [6, 9) do not fit the context of 8"),
            std::string::npos)
      << last_error_message();
}

// Each ISA's block function, per kv head and with both kv heads in one
// block, whole and split into two key ranges merged, against the reference.
TEST(AttentionBlock, EveryIsaWholeAndSplit) {
  const AttentionShape s{1, 20, 6, 2, 32, 400, 330};
  Attention a(s, true);
  const double scale = 0.125;
  std::vector<float> k_cache = a.k_cache->floats(), v_cache = a.v_cache->floats();
  const std::vector<float> want = reference_attention(s, a.q->floats(), k_cache, v_cache, scale);
  // Every block function this CPU runs: the x86 levels, and NEON on aarch64.
  std::vector<std::pair<const char*, AttentionBlockFn>> fns;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(detected_isa())) {
      fns.emplace_back(isa_name(isa), attention_block_fn(isa, s.dim));
    }
  }
  if (detected_arm_isa() >= ArmIsa::kNeon) {
    fns.emplace_back("neon", arm_attention_block_fn(ArmIsa::kNeon, s.dim));
  }
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    std::vector<float> out(want.size());
    const AttentionProblem p{a.q->f(), k_cache.data(), v_cache.data(), out.data(), s.tokens,
                             s.q_heads, s.kv_heads, s.dim, s.context, s.start,
                             static_cast<float>(scale)};
    for (int64_t per_block : {int64_t{1}, s.kv_heads}) {
      SCOPED_TRACE(testing::Message() << per_block << " kv heads per block");
      const int64_t head_rows = 8 * (s.q_heads / s.kv_heads), rows = per_block * head_rows;
      std::vector<float> scratch(attention_scratch_floats(per_block, head_rows, s.dim) + 16);
      float* aligned = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
      std::fill(out.begin(), out.end(), NAN);
      for (int64_t h = 0; h < s.kv_heads; h += per_block) {
        for (int64_t t0 = 0; t0 < s.tokens; t0 += 8) {
          fn(p, 0, h, h + per_block, t0, std::min<int64_t>(t0 + 8, s.tokens), 0, s.context, aligned,
             nullptr);
        }
      }
      expect_close(out, want, 1e-5, 1e-6, "whole");
      std::fill(out.begin(), out.end(), NAN);
      std::vector<float> parts(2 * rows * (s.dim + 2));
      AttentionPartial partial[2];
      for (int c = 0; c < 2; ++c) {
        float* base = parts.data() + c * rows * (s.dim + 2);
        partial[c] = {base, base + rows, base + 2 * rows};
      }
      for (int64_t h = 0; h < s.kv_heads; h += per_block) {
        for (int64_t t0 = 0; t0 < s.tokens; t0 += 8) {
          const int64_t t1 = std::min<int64_t>(t0 + 8, s.tokens);
          fn(p, 0, h, h + per_block, t0, t1, 0, 128, aligned, &partial[0]);
          fn(p, 0, h, h + per_block, t0, t1, 128, s.context, aligned, &partial[1]);
          merge_attention_partials(p, 0, h, h + per_block, t0, t1, partial, 2);
        }
      }
      expect_close(out, want, 1e-5, 1e-6, "split");
    }
  }
}

TEST(OptimizedRmsNorm, MatchesReferenceInPlaceAndThreads) {
  at_thread_counts([](size_t) {
    for (int32_t dim : {576, 7, 1100}) {
      Buf x(ScalarType::Float, {3, 40, dim}), w(ScalarType::Float, {dim}), out(ScalarType::Float, {3, 40, dim});
      fill_random(x, 4.0f);
      fill_random(w, 1.0f);
      const std::vector<float> want = reference_rms_norm(x.floats(), w.floats(), 1e-5);
      Call call;
      call.t(x).t(w).d(1e-5).t(out);
      ASSERT_EQ(run_with_scratch(call, rms_norm_out), Error::Ok);
      expect_close(out.floats(), want, 1e-5, 1e-6, "rms_norm");
      Call in_place;
      in_place.t(x).t(w).d(1e-5).t(x);
      ASSERT_EQ(run_with_scratch(in_place, rms_norm_out), Error::Ok);
      expect_close(x.floats(), want, 1e-5, 1e-6, "rms_norm in place");
    }
  });
}

TEST(OptimizedRope, MatchesPortableBitForBit) {
  at_thread_counts([](size_t) {
    Buf x(ScalarType::Float, {1, 70, 9, 64}), cos(ScalarType::Float, {70, 64}), sin(ScalarType::Float, {70, 64});
    Buf out(ScalarType::Float, {1, 70, 9, 64}), want(ScalarType::Float, {1, 70, 9, 64});
    fill_random(x);
    fill_random(cos);
    fill_random(sin);
    Call portable;
    portable.t(x).t(cos).t(sin).t(want);
    ASSERT_EQ(run_with_scratch(portable, native::rope_out), Error::Ok);
    Call call;
    call.t(x).t(cos).t(sin).t(out);
    ASSERT_EQ(run_with_scratch(call, rope_out), Error::Ok);
    expect_close(out.floats(), want.floats(), 1e-6, 1e-7, "rope");
    expect_close(out.floats(), reference_rope(x.floats(), cos.floats(), sin.floats(), 70, 9, 64),
                 1e-5, 1e-6, "rope vs reference");
  });
}

TEST(OptimizedSiluMul, MatchesReferenceInPlaceAndThreads) {
  at_thread_counts([](size_t) {
    Buf gate(ScalarType::Float, {50, 1536}), up(ScalarType::Float, {50, 1536}), out(ScalarType::Float, {50, 1536});
    fill_random(gate, 8.0f);
    fill_random(up, 2.0f);
    const std::vector<float> want = reference_silu_mul(gate.floats(), up.floats());
    Call call;
    call.t(gate).t(up).t(out);
    ASSERT_EQ(run_with_scratch(call, silu_mul_out), Error::Ok);
    expect_close(out.floats(), want, 1e-5, 1e-6, "silu_mul");
    Call in_place;
    in_place.t(gate).t(up).t(up);
    ASSERT_EQ(run_with_scratch(in_place, silu_mul_out), Error::Ok);
    expect_close(up.floats(), want, 1e-5, 1e-6, "silu_mul in place");
  });
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
