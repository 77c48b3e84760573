// torchedge::attention.out(Tensor query, Tensor key_t, Tensor value, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// out[b] = safe_softmax(query[b] @ key_t[b], -1) @ value[b] for query
// [B, L, D], key_t [B, D, S] (the keys transposed) and value [B, S, E]:
// scaled_dot_product_attention without a mask once its scale is applied,
// as python/torchedge/passes/attention_fusion.py folds torch's bmm +
// safe softmax + bmm (python/torchedge/passes/attention_op.py defines the
// op). A query whose scores are all -inf gives zeros (aten._safe_softmax).
// float32, any strides. Per query row: its S scores (temp memory), their
// max, exp(score - max) and the weighted sum of value rows in double.
#include <cmath>
#include <limits>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "attention.out";

void attention_row(const Tensor& q, const Tensor& kt, const Tensor& v, Tensor& out, int64_t b,
                   int64_t l, float* scores, double* acc) {
  const int64_t dim = q.size(2), keys = kt.size(2), vdim = v.size(2);
  const float* qp = q.data_as<float>() + b * q.stride(0) + l * q.stride(1);
  const float* kp = kt.data_as<float>() + b * kt.stride(0);
  const float* vp = v.data_as<float>() + b * v.stride(0);
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    float s = 0.0f;
    for (int64_t d = 0; d < dim; ++d) s += qp[d * q.stride(2)] * kp[d * kt.stride(1) + j * kt.stride(2)];
    scores[j] = s;
    max = s > max || std::isnan(s) ? s : max;
  }
  for (int64_t e = 0; e < vdim; ++e) acc[e] = 0.0;
  double sum = 0.0;
  if (max != -std::numeric_limits<float>::infinity()) {
    for (int64_t j = 0; j < keys; ++j) {
      const double p = std::exp(static_cast<double>(scores[j]) - static_cast<double>(max));
      sum += p;
      for (int64_t e = 0; e < vdim; ++e) acc[e] += p * vp[j * v.stride(1) + e * v.stride(2)];
    }
  }
  float* op = out.mutable_data_as<float>() + b * out.stride(0) + l * out.stride(1);
  for (int64_t e = 0; e < vdim; ++e) {
    op[e * out.stride(2)] = sum == 0.0 ? 0.0f : static_cast<float>(acc[e] / sum);
  }
}

}  // namespace

Error attention_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* q, tensor_arg(args, 0, "query"));
  TE_ASSIGN_OR_RETURN(Tensor* kt, tensor_arg(args, 1, "key_t"));
  TE_ASSIGN_OR_RETURN(Tensor* v, tensor_arg(args, 2, "value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(q->dim() == 3 && kt->dim() == 3 && v->dim() == 3, Error::InvalidArgument,
                     "%s: expected 3-d query, key_t and value, got %d-d, %d-d and %d-d", kOp,
                     q->dim(), kt->dim(), v->dim());
  TE_CHECK_OR_RETURN(q->size(0) == kt->size(0) && q->size(0) == v->size(0) &&
                         q->size(2) == kt->size(1) && kt->size(2) == v->size(1),
                     Error::InvalidArgument,
                     "%s: query [%d, %d, %d], key_t [%d, %d, %d] and value [%d, %d, %d] do not "
                     "match ([B, L, D], [B, D, S], [B, S, E])",
                     kOp, q->size(0), q->size(1), q->size(2), kt->size(0), kt->size(1),
                     kt->size(2), v->size(0), v->size(1), v->size(2));
  for (const Tensor* t : {q, kt, v, out}) {
    TE_CHECK_OR_RETURN(t->dtype() == ScalarType::Float, Error::InvalidType,
                       "%s: expected float32 tensors, got %s", kOp, to_string(t->dtype()));
  }
  const int64_t out_sizes[] = {q->size(0), q->size(1), v->size(2)};
  TE_RETURN_IF_ERROR(resize_to(*out, out_sizes));
  const int64_t keys = kt->size(2), vdim = v->size(2);
  float* scores = static_cast<float*>(ctx.allocate_temp(sizeof(float) * (keys > 0 ? keys : 1), 16));
  double* acc = static_cast<double*>(ctx.allocate_temp(sizeof(double) * (vdim > 0 ? vdim : 1), 16));
  TE_CHECK_OR_RETURN(scores != nullptr && acc != nullptr, Error::MemoryAllocationFailed,
                     "%s: no room for %lld scores in the temp allocator", kOp,
                     static_cast<long long>(keys));
  for (int64_t b = 0; b < q->size(0); ++b) {
    for (int64_t l = 0; l < q->size(1); ++l) attention_row(*q, *kt, *v, *out, b, l, scores, acc);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
