// torchedge/kernels/portable/support/decoder_op_args.h
//
// Argument checking of the decoder-LLM operators (python/torchedge/llm/ops.py
// is their contract), shared by the portable kernels (kernels/portable/
// op_{rms_norm,rope,silu_mul,sdpa_kv_cache}.cpp) and the optimized ones
// (kernels/optimized/ops/op_decoder.cpp, op_sdpa_kv_cache.cpp), so both
// accept and reject exactly the same calls with the same messages.
//
// Each parse_* function reads the boxed arguments (schema order, out
// arguments last), checks dtypes (float32; start_pos int64 [1]), ranks,
// shapes and the default dim order, resizes the outputs and returns raw
// pointers. Errors (InvalidArgument / InvalidType) name the operator, the
// argument and what was expected versus found. The pointers stay valid for
// the kernel call only.
#pragma once

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// rms_norm.out(Tensor input, Tensor weight, float eps, *, Tensor(a!) out):
/// `rows` rows of `dim` floats.
struct RmsNormCall {
  const float* input;
  const float* weight;  // [dim]
  float* out;
  int64_t rows, dim;
  float eps;
};
Result<RmsNormCall> parse_rms_norm_args(Span<EValue*> args);

/// rope.out(Tensor x, Tensor cos, Tensor sin, *, Tensor(a!) out):
/// x and out [B, T, H, D] (D even), cos and sin [T, D].
struct RopeCall {
  const float* x;
  const float* cos;
  const float* sin;
  float* out;
  int64_t batch, tokens, heads, dim;
};
Result<RopeCall> parse_rope_args(Span<EValue*> args);

/// silu_mul.out(Tensor gate, Tensor up, *, Tensor(a!) out): `count` floats.
struct SiluMulCall {
  const float* gate;
  const float* up;
  float* out;
  int64_t count;
};
Result<SiluMulCall> parse_silu_mul_args(Span<EValue*> args);

/// sdpa_kv_cache.out(Tensor q, Tensor k, Tensor v, Tensor k_cache,
///     Tensor v_cache, Tensor start_pos, float scale, *, Tensor(a!) out,
///     Tensor(b!) k_cache_out, Tensor(c!) v_cache_out).
/// q [B, T, Hq, D]; k, v [B, T, Hkv, D]; caches [B, S, Hkv, D]; Hq % Hkv == 0.
/// After parse_sdpa_kv_cache_args the caller runs update_kv_caches(), then
/// reads keys and values from k_cache_out / v_cache_out.
struct SdpaKvCacheCall {
  const float* q;
  const float* k;
  const float* v;
  const float* k_cache_in;
  const float* v_cache_in;
  float* out;
  float* k_cache;  // the output caches (== the inputs when the plan aliases them)
  float* v_cache;
  int64_t batch, tokens, q_heads, kv_heads, head_dim, context;
  int64_t start;  // start_pos[0], 0 <= start and start + tokens <= context
  float scale;

  /// Float offset of (b, position, head) in a [B, S, Hkv, D] cache.
  int64_t cache_offset(int64_t b, int64_t position, int64_t head) const {
    return ((b * context + position) * kv_heads + head) * head_dim;
  }
};

/// Also checks that `out` overlaps no input and that each output cache is
/// either exactly its input cache (same data pointer: written in place) or
/// disjoint from every input.
Result<SdpaKvCacheCall> parse_sdpa_kv_cache_args(Span<EValue*> args);

/// Makes the output caches the input caches with rows [start, start + T)
/// replaced by k / v: when an output cache is its input (aliased by the
/// memory plan) only those rows are written; otherwise the input cache is
/// copied first.
void update_kv_caches(const SdpaKvCacheCall& call);

}  // namespace torchedge
