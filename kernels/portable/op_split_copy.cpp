// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *,
//     Tensor(a!)[] out) -> ()
//
// Cuts self along `dim` into chunks of split_size elements, the last one
// possibly shorter: max(ceil(size / split_size), 1) chunks, which is the
// number of out tensors required. split_size may be 0 only when the dim
// is empty (one empty chunk).
#include "kernels/portable/support/chunk_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error split_copy_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t split_size, int_arg(args, 1, "split_size"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> outs, tensor_list_arg(args, 3, "out"));
  TE_CHECK_OR_RETURN(self->dim() > 0, Error::InvalidArgument,
                     "split expects at least a 1-d tensor");
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "split dim"));
  const int64_t size = self->size(d);
  TE_CHECK_OR_RETURN(split_size > 0 || (split_size == 0 && size == 0), Error::InvalidArgument,
                     "split_size %lld is invalid for a dim of size %lld (it must be > 0, or 0 "
                     "when the dim is empty)",
                     static_cast<long long>(split_size), static_cast<long long>(size));
  const int64_t chunks = size == 0 ? 1 : (size - 1) / split_size + 1;
  TE_CHECK_OR_RETURN(static_cast<int64_t>(outs.size()) == chunks, Error::InvalidArgument,
                     "split: %lld chunks but %zu out tensors", static_cast<long long>(chunks),
                     outs.size());
  return copy_chunks(*self, d, outs, [&](size_t i) {
    const int64_t left = size - static_cast<int64_t>(i) * split_size;
    return left < split_size ? left : split_size;
  });
}

}  // namespace native
}  // namespace torchedge
