#include "kernels/portable/support/decoder_op_args.h"

#include <cstdio>
#include <cstring>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

// "[2, 7, 9, 64]" into `buffer`.
const char* shape_text(const Tensor& t, char* buffer, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, size, "["));
  for (int d = 0; d < t.dim() && used < size; ++d) {
    used += static_cast<size_t>(std::snprintf(buffer + used, size - used, d == 0 ? "%d" : ", %d",
                                              static_cast<int>(t.size(d))));
  }
  if (used < size) std::snprintf(buffer + used, size - used, "]");
  return buffer;
}

// float32 in the default dim order.
Error expect_dense_float(const Tensor& t, const char* op, const char* what) {
  TE_CHECK_OR_RETURN(t.dtype() == ScalarType::Float, Error::InvalidType,
                     "%s: %s must be float32, got %s", op, what, to_string(t.dtype()));
  TE_CHECK_OR_RETURN(t.is_contiguous(), Error::InvalidArgument,
                     "%s: %s must be in the default (contiguous) dim order", op, what);
  return Error::Ok;
}

// t has exactly the sizes `want` (rank included).
Error expect_shape(const Tensor& t, std::initializer_list<int64_t> want, const char* op,
                   const char* what) {
  bool same = t.dim() == static_cast<int>(want.size());
  int d = 0;
  for (int64_t s : want) {
    if (!same) break;
    same = t.size(d++) == s;
  }
  if (!same) {
    char want_text[96], have_text[96];
    size_t used = static_cast<size_t>(std::snprintf(want_text, sizeof(want_text), "["));
    d = 0;
    for (int64_t s : want) {
      used += static_cast<size_t>(std::snprintf(want_text + used, sizeof(want_text) - used,
                                                d++ == 0 ? "%lld" : ", %lld",
                                                static_cast<long long>(s)));
      if (used >= sizeof(want_text)) break;
    }
    if (used < sizeof(want_text)) std::snprintf(want_text + used, sizeof(want_text) - used, "]");
    TE_CHECK_OR_RETURN(false, Error::InvalidArgument, "%s: %s must be %s, got %s", op, what,
                       want_text, shape_text(t, have_text, sizeof(have_text)));
  }
  return Error::Ok;
}

// An output cache is its input (the plan aliased them) or disjoint from
// every input; a partial overlap would be read while written.
Error check_cache_output(const Tensor& out, const Tensor& in, Span<const Tensor* const> inputs,
                         const char* op, const char* what) {
  if (out.data() == in.data()) return Error::Ok;
  for (const Tensor* t : inputs) {
    TE_CHECK_OR_RETURN(!bytes_overlap(out, *t), Error::InvalidArgument,
                       "%s: %s overlaps an input without being its input cache", op, what);
  }
  return Error::Ok;
}

}  // namespace

Result<RmsNormCall> parse_rms_norm_args(Span<EValue*> args) {
  constexpr const char* kOp = "rms_norm.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 2, "eps"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_dense_float(*x, kOp, "input"));
  TE_RETURN_IF_ERROR(expect_dense_float(*w, kOp, "weight"));
  TE_RETURN_IF_ERROR(expect_dense_float(*out, kOp, "out"));
  TE_CHECK_OR_RETURN(x->dim() >= 1, Error::InvalidArgument, "%s: input must have rank >= 1", kOp);
  const int64_t dim = x->size(-1);
  TE_RETURN_IF_ERROR(expect_shape(*w, {dim}, kOp, "weight"));
  TE_RETURN_IF_ERROR(resize_like(*out, *x));
  TE_CHECK_OR_RETURN(out->data() == x->data() || !bytes_overlap(*out, *x), Error::InvalidArgument,
                     "%s: out partially overlaps input", kOp);
  RmsNormCall call;
  call.input = x->data_as<float>();
  call.weight = w->data_as<float>();
  call.out = out->mutable_data_as<float>();
  call.dim = dim;
  call.rows = dim == 0 ? 0 : static_cast<int64_t>(x->numel()) / dim;
  call.eps = static_cast<float>(eps);
  return call;
}

Result<RopeCall> parse_rope_args(Span<EValue*> args) {
  constexpr const char* kOp = "rope.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "x"));
  TE_ASSIGN_OR_RETURN(const Tensor* cos, tensor_arg(args, 1, "cos"));
  TE_ASSIGN_OR_RETURN(const Tensor* sin, tensor_arg(args, 2, "sin"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_dense_float(*x, kOp, "x"));
  TE_RETURN_IF_ERROR(expect_dense_float(*cos, kOp, "cos"));
  TE_RETURN_IF_ERROR(expect_dense_float(*sin, kOp, "sin"));
  TE_RETURN_IF_ERROR(expect_dense_float(*out, kOp, "out"));
  char have[96];
  TE_CHECK_OR_RETURN(x->dim() == 4 && x->size(3) % 2 == 0, Error::InvalidArgument,
                     "%s: x must be [B, T, H, D] with D even, got %s", kOp,
                     shape_text(*x, have, sizeof(have)));
  const int64_t tokens = x->size(1), dim = x->size(3);
  TE_RETURN_IF_ERROR(expect_shape(*cos, {tokens, dim}, kOp, "cos"));
  TE_RETURN_IF_ERROR(expect_shape(*sin, {tokens, dim}, kOp, "sin"));
  TE_RETURN_IF_ERROR(resize_like(*out, *x));
  TE_CHECK_OR_RETURN(!bytes_overlap(*out, *cos) && !bytes_overlap(*out, *sin) &&
                         (out->data() == x->data() || !bytes_overlap(*out, *x)),
                     Error::InvalidArgument, "%s: out overlaps an input", kOp);
  return RopeCall{x->data_as<float>(), cos->data_as<float>(), sin->data_as<float>(),
                  out->mutable_data_as<float>(), x->size(0), tokens, x->size(2), dim};
}

Result<SiluMulCall> parse_silu_mul_args(Span<EValue*> args) {
  constexpr const char* kOp = "silu_mul.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* gate, tensor_arg(args, 0, "gate"));
  TE_ASSIGN_OR_RETURN(const Tensor* up, tensor_arg(args, 1, "up"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_dense_float(*gate, kOp, "gate"));
  TE_RETURN_IF_ERROR(expect_dense_float(*up, kOp, "up"));
  TE_RETURN_IF_ERROR(expect_dense_float(*out, kOp, "out"));
  bool same = gate->dim() == up->dim();
  for (int d = 0; same && d < gate->dim(); ++d) same = gate->size(d) == up->size(d);
  char a[96], b[96];
  TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                     "%s: gate and up must have one shape, got %s and %s", kOp,
                     shape_text(*gate, a, sizeof(a)), shape_text(*up, b, sizeof(b)));
  TE_RETURN_IF_ERROR(resize_like(*out, *gate));
  // Elementwise: out may be exactly gate or up, never a shifted window.
  TE_CHECK_OR_RETURN((out->data() == gate->data() || !bytes_overlap(*out, *gate)) &&
                         (out->data() == up->data() || !bytes_overlap(*out, *up)),
                     Error::InvalidArgument, "%s: out partially overlaps an input", kOp);
  return SiluMulCall{gate->data_as<float>(), up->data_as<float>(), out->mutable_data_as<float>(),
                     static_cast<int64_t>(gate->numel())};
}

Result<SdpaKvCacheCall> parse_sdpa_kv_cache_args(Span<EValue*> args) {
  constexpr const char* kOp = "sdpa_kv_cache.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  TE_ASSIGN_OR_RETURN(const Tensor* q, tensor_arg(args, 0, "q"));
  TE_ASSIGN_OR_RETURN(const Tensor* k, tensor_arg(args, 1, "k"));
  TE_ASSIGN_OR_RETURN(const Tensor* v, tensor_arg(args, 2, "v"));
  TE_ASSIGN_OR_RETURN(const Tensor* k_cache, tensor_arg(args, 3, "k_cache"));
  TE_ASSIGN_OR_RETURN(const Tensor* v_cache, tensor_arg(args, 4, "v_cache"));
  TE_ASSIGN_OR_RETURN(const Tensor* start_pos, tensor_arg(args, 5, "start_pos"));
  TE_ASSIGN_OR_RETURN(double scale, double_arg(args, 6, "scale"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 7, "out"));
  TE_ASSIGN_OR_RETURN(Tensor* k_cache_out, tensor_arg(args, 8, "k_cache_out"));
  TE_ASSIGN_OR_RETURN(Tensor* v_cache_out, tensor_arg(args, 9, "v_cache_out"));
  const char* names[] = {"q", "k", "v", "k_cache", "v_cache", "out", "k_cache_out", "v_cache_out"};
  const Tensor* tensors[] = {q, k, v, k_cache, v_cache, out, k_cache_out, v_cache_out};
  for (int i = 0; i < 8; ++i) TE_RETURN_IF_ERROR(expect_dense_float(*tensors[i], kOp, names[i]));
  char have[96];
  TE_CHECK_OR_RETURN(q->dim() == 4, Error::InvalidArgument, "%s: q must be [B, T, Hq, D], got %s",
                     kOp, shape_text(*q, have, sizeof(have)));
  const int64_t batch = q->size(0), tokens = q->size(1), q_heads = q->size(2), dim = q->size(3);
  TE_CHECK_OR_RETURN(k->dim() == 4, Error::InvalidArgument,
                     "%s: k must be [B, T, Hkv, D], got %s", kOp, shape_text(*k, have, sizeof(have)));
  const int64_t kv_heads = k->size(2);
  TE_RETURN_IF_ERROR(expect_shape(*k, {batch, tokens, kv_heads, dim}, kOp, "k"));
  TE_RETURN_IF_ERROR(expect_shape(*v, {batch, tokens, kv_heads, dim}, kOp, "v"));
  TE_CHECK_OR_RETURN(kv_heads > 0 && q_heads % kv_heads == 0, Error::InvalidArgument,
                     "%s: %lld query heads are not a multiple of %lld kv heads", kOp,
                     static_cast<long long>(q_heads), static_cast<long long>(kv_heads));
  TE_CHECK_OR_RETURN(k_cache->dim() == 4, Error::InvalidArgument,
                     "%s: k_cache must be [B, S, Hkv, D], got %s", kOp,
                     shape_text(*k_cache, have, sizeof(have)));
  const int64_t context = k_cache->size(1);
  TE_RETURN_IF_ERROR(expect_shape(*k_cache, {batch, context, kv_heads, dim}, kOp, "k_cache"));
  TE_RETURN_IF_ERROR(expect_shape(*v_cache, {batch, context, kv_heads, dim}, kOp, "v_cache"));
  TE_CHECK_OR_RETURN(start_pos->dtype() == ScalarType::Long && start_pos->numel() == 1,
                     Error::InvalidArgument, "%s: start_pos must be int64 [1], got %s %s", kOp,
                     to_string(start_pos->dtype()), shape_text(*start_pos, have, sizeof(have)));
  const int64_t start = start_pos->data_as<int64_t>()[0];
  TE_CHECK_OR_RETURN(start >= 0 && start <= context - tokens, Error::InvalidArgument,
                     "%s: positions [%lld, %lld) do not fit the context of %lld", kOp,
                     static_cast<long long>(start), static_cast<long long>(start + tokens),
                     static_cast<long long>(context));
  TE_RETURN_IF_ERROR(resize_like(*out, *q));
  TE_RETURN_IF_ERROR(resize_like(*k_cache_out, *k_cache));
  TE_RETURN_IF_ERROR(resize_like(*v_cache_out, *v_cache));
  const Tensor* inputs[] = {q, k, v, k_cache, v_cache, start_pos};
  for (const Tensor* t : inputs) {
    TE_CHECK_OR_RETURN(!bytes_overlap(*out, *t), Error::InvalidArgument,
                       "%s: out overlaps an input", kOp);
  }
  TE_CHECK_OR_RETURN(!bytes_overlap(*out, *k_cache_out) && !bytes_overlap(*out, *v_cache_out) &&
                         !bytes_overlap(*k_cache_out, *v_cache_out),
                     Error::InvalidArgument, "%s: the outputs overlap each other", kOp);
  TE_RETURN_IF_ERROR(check_cache_output(*k_cache_out, *k_cache, {inputs, 6}, kOp, "k_cache_out"));
  TE_RETURN_IF_ERROR(check_cache_output(*v_cache_out, *v_cache, {inputs, 6}, kOp, "v_cache_out"));
  // An aliased cache must not also be read as k or v (rows would change
  // under the reads).
  TE_CHECK_OR_RETURN(!bytes_overlap(*k_cache_out, *k) && !bytes_overlap(*k_cache_out, *v) &&
                         !bytes_overlap(*v_cache_out, *k) && !bytes_overlap(*v_cache_out, *v) &&
                         !bytes_overlap(*k_cache_out, *q) && !bytes_overlap(*v_cache_out, *q),
                     Error::InvalidArgument, "%s: a cache output overlaps q, k or v", kOp);
  SdpaKvCacheCall call;
  call.q = q->data_as<float>();
  call.k = k->data_as<float>();
  call.v = v->data_as<float>();
  call.k_cache_in = k_cache->data_as<float>();
  call.v_cache_in = v_cache->data_as<float>();
  call.out = out->mutable_data_as<float>();
  call.k_cache = k_cache_out->mutable_data_as<float>();
  call.v_cache = v_cache_out->mutable_data_as<float>();
  call.batch = batch;
  call.tokens = tokens;
  call.q_heads = q_heads;
  call.kv_heads = kv_heads;
  call.head_dim = dim;
  call.context = context;
  call.start = start;
  call.scale = static_cast<float>(scale);
  return call;
}

void update_kv_caches(const SdpaKvCacheCall& call) {
  const size_t cache_bytes =
      static_cast<size_t>(call.batch * call.context * call.kv_heads * call.head_dim) * sizeof(float);
  // Empty tensors have no data pointer (memcpy from null is undefined even for 0 bytes).
  if (cache_bytes == 0) return;
  if (call.k_cache != call.k_cache_in) std::memcpy(call.k_cache, call.k_cache_in, cache_bytes);
  if (call.v_cache != call.v_cache_in) std::memcpy(call.v_cache, call.v_cache_in, cache_bytes);
  // Rows [start, start + T) of one batch item are one contiguous run.
  const size_t run = static_cast<size_t>(call.tokens * call.kv_heads * call.head_dim);
  if (run == 0) return;
  for (int64_t b = 0; b < call.batch; ++b) {
    const int64_t dst = call.cache_offset(b, call.start, 0);
    std::memcpy(call.k_cache + dst, call.k + b * static_cast<int64_t>(run), run * sizeof(float));
    std::memcpy(call.v_cache + dst, call.v + b * static_cast<int64_t>(run), run * sizeof(float));
  }
}

}  // namespace torchedge
