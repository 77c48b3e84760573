// aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// The copy form of torch.diagonal (the exporter turns the view into it):
// out has self's dims without dim1 and dim2, then one last dim holding the
// elements self[..., i, ..., i + offset, ...] (offset > 0 above the main
// diagonal, < 0 below; an offset past the matrix gives an empty last dim).
// self needs rank >= 2 and dim1 != dim2. Every dtype; self and out share one.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error diagonal_copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "diagonal_copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t offset, int_arg(args, 1, "offset"));
  TE_ASSIGN_OR_RETURN(int64_t dim1, int_arg(args, 2, "dim1"));
  TE_ASSIGN_OR_RETURN(int64_t dim2, int_arg(args, 3, "dim2"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(self->dim() >= 2, Error::InvalidArgument,
                     "%s: self must have at least 2 dims, got %d", kOp, self->dim());
  TE_ASSIGN_OR_RETURN(int d1, normalize_dim(dim1, self->dim(), "diagonal dim1"));
  TE_ASSIGN_OR_RETURN(int d2, normalize_dim(dim2, self->dim(), "diagonal dim2"));
  TE_CHECK_OR_RETURN(d1 != d2, Error::InvalidArgument,
                     "%s: diagonal dimensions cannot be identical (%d, %d)", kOp, d1, d2);
  // Rows along d1 start at max(0, -offset), columns along d2 at max(0, offset).
  const int64_t row0 = offset < 0 ? -offset : 0;
  const int64_t col0 = offset > 0 ? offset : 0;
  const int64_t rows = self->size(d1) - row0, cols = self->size(d2) - col0;
  const int64_t length = rows <= 0 || cols <= 0 ? 0 : (rows < cols ? rows : cols);
  StridedView whole = view_of(*self);
  view_narrow(whole, d1, row0, length, 1);
  view_narrow(whole, d2, col0, length, 1);
  StridedView diag = whole;  // the other dims in order, then the diagonal
  diag.rank = 0;
  for (int d = 0; d < whole.rank; ++d) {
    if (d == d1 || d == d2) continue;
    diag.sizes[diag.rank] = whole.sizes[d];
    diag.strides[diag.rank++] = whole.strides[d];
  }
  diag.sizes[diag.rank] = length;
  diag.strides[diag.rank++] = whole.strides[d1] + whole.strides[d2];
  return copy_view_to(diag, *out);
}

}  // namespace native
}  // namespace torchedge
