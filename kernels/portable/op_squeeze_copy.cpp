// aten::squeeze_copy.out(Tensor self, *, Tensor(a!) out)
// aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
// aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
//
// out is self without the named dims that have size 1 (named dims of
// another size stay); squeeze_copy.out removes every size-1 dim. Dims may be
// negative; a 0-d self accepts 0 and -1 and is copied. Repeating a dim in
// the list is an error, as in ATen.
#include "kernels/portable/support/dim_list.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
// Copies self without the size-1 dims marked in `drop`.
Error squeeze_dims(const Tensor& self, const bool* drop, Tensor& out) {
  StridedView view = view_of(self);
  for (int d = self.dim() - 1; d >= 0; --d) {
    if (drop[d] && self.size(d) == 1) view_select(view, d, 0);
  }
  return copy_view_to(view, out);
}
}  // namespace

Error squeeze_copy_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  bool drop[kTensorDimensionLimit];
  for (int d = 0; d < kTensorDimensionLimit; ++d) drop[d] = true;
  return squeeze_dims(*self, drop, *out);
}

Error squeeze_copy_dim_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, self->dim(), "squeeze dim"));
  bool drop[kTensorDimensionLimit] = {};
  drop[d] = true;
  return squeeze_dims(*self, drop, *out);
}

Error squeeze_copy_dims_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, int_list_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  int normalized[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(normalize_dim_list(dims, self->dim(), false, "squeeze dims", normalized));
  bool drop[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dims.size(); ++i) drop[normalized[i]] = true;
  return squeeze_dims(*self, drop, *out);
}

}  // namespace native
}  // namespace torchedge
