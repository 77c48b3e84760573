// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
//     Tensor(a!) out) -> Tensor(a!)
//
// out[M, N] = beta * self + alpha * (mat1[M, K] @ mat2[K, N]); self
// broadcasts to [M, N] (0-d, [N], [1, N], [M, 1], ...). With beta == 0
// self is not read, so its NaN/inf do not propagate (as in ATen). Dtypes as
// mm.out; alpha and beta are cast to the accumulation type (float, double
// or int64; complex128 for complex64 and complex128 operands).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/matmul.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// Strides that broadcast `self` to [m, n], or an error naming the shapes.
Error broadcast_addend(const Tensor& self, int64_t m, int64_t n, int64_t* row_stride,
                       int64_t* col_stride) {
  const int rank = self.dim();
  const int64_t rows = rank == 2 ? self.size(0) : 1;
  const int64_t cols = rank >= 1 ? self.size(rank - 1) : 1;
  TE_CHECK_OR_RETURN(rank <= 2 && (rows == m || rows == 1) && (cols == n || cols == 1),
                     Error::InvalidArgument,
                     "addmm.out: self of rank %d with trailing sizes [%lld, %lld] does not "
                     "broadcast to [%lld, %lld]",
                     rank, static_cast<long long>(rows), static_cast<long long>(cols),
                     static_cast<long long>(m), static_cast<long long>(n));
  *row_stride = rows == 1 ? 0 : self.stride(0);
  *col_stride = cols == 1 ? 0 : self.stride(rank - 1);
  return Error::Ok;
}

}  // namespace

Error addmm_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mat1, tensor_arg(args, 1, "mat1"));
  TE_ASSIGN_OR_RETURN(Tensor* mat2, tensor_arg(args, 2, "mat2"));
  TE_ASSIGN_OR_RETURN(const EValue* beta, scalar_value_arg(args, 3, "beta"));
  TE_ASSIGN_OR_RETURN(const EValue* alpha, scalar_value_arg(args, 4, "alpha"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_CHECK_OR_RETURN(mat1->dim() == 2 && mat2->dim() == 2, Error::InvalidArgument,
                     "addmm.out: expected 2-d mat1 and mat2, got %d-d and %d-d", mat1->dim(),
                     mat2->dim());
  TE_CHECK_OR_RETURN(mat1->size(1) == mat2->size(0), Error::InvalidArgument,
                     "addmm.out: shapes [%d, %d] and [%d, %d] cannot be multiplied",
                     mat1->size(0), mat1->size(1), mat2->size(0), mat2->size(1));
  TE_RETURN_IF_ERROR(expect_same_dtype(*mat1, *mat2, "mat1", "mat2"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*mat1, *self, "mat1", "self"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*mat1, *out, "mat1", "out"));
  const int64_t m = mat1->size(0), k = mat1->size(1), n = mat2->size(1);
  int64_t add_row_stride = 0, add_col_stride = 0;
  TE_RETURN_IF_ERROR(broadcast_addend(*self, m, n, &add_row_stride, &add_col_stride));
  const int64_t out_sizes[] = {m, n};
  TE_RETURN_IF_ERROR(resize_to(*out, out_sizes));
  return switch_dtype_only<kRealTypes | kComplexTypes>(out->dtype(), "addmm.out", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      const MatrixRef<const T> addend{self->data_as<T>(), add_row_stride, add_col_stride};
      complex_matmul<T>(m, n, k, matrix_ref<const T>(*mat1, 0, 1), matrix_ref<const T>(*mat2, 0, 1),
                        matrix_ref<T>(*out, 0, 1), addend, alpha->scalar_as_double(),
                        beta->scalar_as_double());
      return Error::Ok;
    } else {
      using Acc = gemm::acc_t<T>;
      const MatrixRef<const T> addend{self->data_as<T>(), add_row_stride, add_col_stride};
      MatmulScalars<T> scalars;
      scalars.alpha = scalar_as_acc<Acc>(*alpha);
      scalars.beta = scalar_as_acc<Acc>(*beta);
      matmul<T>(m, n, k, matrix_ref<const T>(*mat1, 0, 1), matrix_ref<const T>(*mat2, 0, 1),
                matrix_ref<T>(*out, 0, 1), addend, scalars, gemm::partial_strip<T>(ctx, m, k));
      return Error::Ok;
    }
  });
}

}  // namespace native
}  // namespace torchedge
