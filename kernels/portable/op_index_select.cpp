// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
//
// out.select(dim, i) = self.select(dim, index[i]): out is self with dim
// `dim` replaced by index.numel(). index is a 0-d or 1-d int64/int32 tensor
// whose values lie in [0, self.size(dim)) (negative values are an error, as
// in ATen). A 0-d self takes a single index 0 and gives a 0-d out.
#include "kernels/portable/support/index_values.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error index_select_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(is_index_dtype(index->dtype()), Error::InvalidType,
                     "index_select: index must be int64 or int32, got %s",
                     to_string(index->dtype()));
  TE_CHECK_OR_RETURN(index->dim() <= 1, Error::InvalidArgument,
                     "index_select: index must be a vector, got %d dims", index->dim());
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "index_select dim"));
  const int64_t count = static_cast<int64_t>(index->numel());
  if (self->dim() == 0) {
    TE_CHECK_OR_RETURN(count == 1, Error::InvalidArgument,
                       "index_select: index to a 0-d tensor must hold 1 value, got %lld",
                       static_cast<long long>(count));
    TE_RETURN_IF_ERROR(check_index_range(*index, 1, false, "index_select"));
    return copy_view_to(view_of(*self), *out);
  }
  TE_RETURN_IF_ERROR(check_index_range(*index, self->size(d), false, "index_select"));
  StridedView whole = view_of(*self);
  whole.sizes[d] = count;
  TE_RETURN_IF_ERROR(resize_to(*out, {whole.sizes, static_cast<size_t>(whole.rank)}));
  for (int64_t i = 0; i < count; ++i) {
    StridedView from = view_of(*self);
    view_select(from, d, load_index(*index, i));
    StridedView to = view_of(*out);
    view_select(to, d, i);
    TE_RETURN_IF_ERROR(copy_view(from, to));
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
