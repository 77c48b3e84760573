// aten::_pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out) -> Tensor(a!)
//
// The p-norm distances (support/p_norm_distance.h) between every pair of
// rows i < j of a 2-d self [N, M], in row-major pair order: out has
// N * (N - 1) / 2 elements (none for N < 2). p >= 0 and a 2-d self are
// checked here, as F.pdist does (ATen's _pdist_forward leaves them to it).
// float32 and float64 (as eager on CPU); self and out share one.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/p_norm_distance.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error pdist_forward_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_pdist_forward.out";
  constexpr DtypeSet kPdistTypes = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(double p, double_arg(args, 1, "p"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(p >= 0, Error::InvalidArgument, "%s: p must be non-negative, got %g", kOp,
                     p);
  TE_CHECK_OR_RETURN(self->dim() == 2, Error::InvalidArgument,
                     "%s: self must be 2-d [N, M], got %d-d", kOp, self->dim());
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const int64_t n = self->size(0), m = self->size(1);
  const int64_t pairs[] = {n < 2 ? 0 : n * (n - 1) / 2};
  TE_RETURN_IF_ERROR(resize_to(*out, pairs));
  return switch_dtype_only<kPdistTypes>(self->dtype(), kOp, [&](auto tag) {
    using T = decltype(tag);
    const T* x = self->data_as<T>();
    T* y = out->mutable_data_as<T>();
    const int64_t row = self->stride(0), col = self->stride(1);
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        y[k++ * out->stride(0)] =
            static_cast<T>(p_norm_distance(x + i * row, col, x + j * row, col, m, p));
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
