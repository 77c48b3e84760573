// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
//     Tensor(a!)[] out) -> ()
//
// Cuts self along `dim` into consecutive chunks of split_sizes[i] elements,
// chunk i into out[i]. The sizes must be >= 0 and sum to self.size(dim);
// out must hold exactly one tensor per size, each of self's dtype.
#include "kernels/portable/support/chunk_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error split_with_sizes_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> split_sizes, int_list_arg(args, 1, "split_sizes"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> outs, tensor_list_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "split_with_sizes expects at least a 1-d tensor");
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "split dim"));
  TE_CHECK_OR_RETURN(outs.size() == split_sizes.size(), Error::InvalidArgument,
                     "split_with_sizes: %zu sizes but %zu out tensors", split_sizes.size(),
                     outs.size());
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    TE_CHECK_OR_RETURN(split_sizes[i] >= 0 && split_sizes[i] <= self->size(d),
                       Error::InvalidArgument, "split_with_sizes: split_sizes[%zu] = %lld is invalid",
                       i, static_cast<long long>(split_sizes[i]));
    total += split_sizes[i];
  }
  TE_CHECK_OR_RETURN(total == self->size(d), Error::InvalidArgument,
                     "split_with_sizes: sizes sum to %lld but dim %d has size %d",
                     static_cast<long long>(total), d, self->size(d));
  return copy_chunks(*self, d, outs, [&](size_t i) { return split_sizes[i]; });
}

}  // namespace native
}  // namespace torchedge
