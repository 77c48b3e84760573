// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
//
// out[B, M, N] = self[B, M, K] @ mat2[B, K, N], one GEMM per batch (no
// broadcasting, as in ATen). Dtypes as mm.out; any strides.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/matmul.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error bmm_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mat2, tensor_arg(args, 1, "mat2"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(self->dim() == 3 && mat2->dim() == 3, Error::InvalidArgument,
                     "bmm.out: expected 3-d self and mat2, got %d-d and %d-d", self->dim(),
                     mat2->dim());
  TE_CHECK_OR_RETURN(self->size(0) == mat2->size(0) && self->size(2) == mat2->size(1),
                     Error::InvalidArgument,
                     "bmm.out: shapes [%d, %d, %d] and [%d, %d, %d] cannot be multiplied",
                     self->size(0), self->size(1), self->size(2), mat2->size(0), mat2->size(1),
                     mat2->size(2));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *mat2, "self", "mat2"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const int64_t batch = self->size(0), m = self->size(1), k = self->size(2), n = mat2->size(2);
  const int64_t out_sizes[] = {batch, m, n};
  TE_RETURN_IF_ERROR(resize_to(*out, out_sizes));
  return switch_dtype_only<kRealTypes | kComplexTypes>(out->dtype(), "bmm.out", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      for (int64_t b = 0; b < batch; ++b) {
        complex_matmul<T>(m, n, k, matrix_ref<const T>(*self, 1, 2, b * self->stride(0)),
                          matrix_ref<const T>(*mat2, 1, 2, b * mat2->stride(0)),
                          matrix_ref<T>(*out, 1, 2, b * out->stride(0)), {}, 1.0, 0.0);
      }
      return Error::Ok;
    } else {
      gemm::acc_t<T>* strip = gemm::partial_strip<T>(ctx, m, k);
      for (int64_t b = 0; b < batch; ++b) {
        matmul<T>(m, n, k, matrix_ref<const T>(*self, 1, 2, b * self->stride(0)),
                  matrix_ref<const T>(*mat2, 1, 2, b * mat2->stride(0)),
                  matrix_ref<T>(*out, 1, 2, b * out->stride(0)), {}, {}, strip);
      }
      return Error::Ok;
    }
  });
}

}  // namespace native
}  // namespace torchedge
