// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)
//
// out[M, N] = self[M, K] @ mat2[K, N]. self, mat2 and out share one dtype
// (real but not bool, or complex64 / complex128: complex_matmul); integers wrap like
// ATen, 16-bit floats accumulate in float. Any strides (a transposed operand is not copied).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/matmul.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error mm_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mat2, tensor_arg(args, 1, "mat2"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(self->dim() == 2 && mat2->dim() == 2, Error::InvalidArgument,
                     "mm.out: expected 2-d self and mat2, got %d-d and %d-d", self->dim(),
                     mat2->dim());
  TE_CHECK_OR_RETURN(self->size(1) == mat2->size(0), Error::InvalidArgument,
                     "mm.out: shapes [%d, %d] and [%d, %d] cannot be multiplied", self->size(0),
                     self->size(1), mat2->size(0), mat2->size(1));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *mat2, "self", "mat2"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const int64_t m = self->size(0), k = self->size(1), n = mat2->size(1);
  const int64_t out_sizes[] = {m, n};
  TE_RETURN_IF_ERROR(resize_to(*out, out_sizes));
  return switch_dtype_only<kRealTypes | kComplexTypes>(out->dtype(), "mm.out", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      complex_matmul<T>(m, n, k, matrix_ref<const T>(*self, 0, 1), matrix_ref<const T>(*mat2, 0, 1),
                        matrix_ref<T>(*out, 0, 1), {}, 1.0, 0.0);
      return Error::Ok;
    } else {
      matmul<T>(m, n, k, matrix_ref<const T>(*self, 0, 1), matrix_ref<const T>(*mat2, 0, 1),
                matrix_ref<T>(*out, 0, 1), {}, {}, gemm::partial_strip<T>(ctx, m, k));
      return Error::Ok;
    }
  });
}

}  // namespace native
}  // namespace torchedge
