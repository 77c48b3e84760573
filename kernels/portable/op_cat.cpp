// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//
// Concatenates the tensors along `dim` (negative allowed). All must have the
// same rank and agree on every other dim; 0-d tensors are an error. As in
// ATen, 1-d tensors of size 0 (the legacy "empty" tensor) are skipped in
// every check but the dtype one. Inputs of different dtypes are converted to
// out's dtype, which each input must be castable to (torch.can_cast: no
// floating into integral, nothing but bool into bool).
#include "kernels/portable/support/convert_copy.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Checks the inputs against `ref` (the first non-skipped input) and writes
// the shape of the result into `sizes` (ref.dim() entries).
Error cat_sizes(Span<Tensor* const> tensors, const Tensor& ref, int dim, int64_t* sizes) {
  for (int d = 0; d < ref.dim(); ++d) sizes[d] = ref.size(d);
  sizes[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    if (is_legacy_empty(t)) continue;
    TE_CHECK_OR_RETURN(t.dim() == ref.dim(), Error::InvalidArgument,
                       "cat: tensors must have the same number of dims, got %d and %d (tensor %zu)",
                       ref.dim(), t.dim(), i);
    for (int d = 0; d < ref.dim(); ++d) {
      TE_CHECK_OR_RETURN(d == dim || t.size(d) == ref.size(d), Error::InvalidArgument,
                         "cat: sizes must match except in dim %d; expected size %d but got %d "
                         "at dim %d of tensor %zu",
                         dim, ref.size(d), t.size(d), d, i);
    }
    sizes[dim] += t.size(dim);
  }
  return Error::Ok;
}
}  // namespace

Error cat_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> tensors, tensor_list_arg(args, 0, "tensors"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_CHECK_OR_RETURN(!tensors.empty(), Error::InvalidArgument,
                     "cat: expected a non-empty list of tensors");
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    TE_CHECK_OR_RETURN(t.dim() > 0, Error::InvalidArgument,
                       "cat: zero-dimensional tensor (at position %zu) cannot be concatenated", i);
    TE_CHECK_OR_RETURN(can_cast(t.dtype(), out->dtype()), Error::InvalidType,
                       "cat: input %zu of dtype %s can't be cast to out dtype %s", i,
                       to_string(t.dtype()), to_string(out->dtype()));
    if (ref == nullptr && !is_legacy_empty(t)) ref = &t;
  }
  if (ref == nullptr) {  // every input is a legacy empty tensor
    const int64_t empty[1] = {0};
    return resize_to(*out, empty);
  }
  TE_ASSIGN_OR_RETURN(int d, normalize_dim(dim, ref->dim(), "cat dim"));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(cat_sizes(tensors, *ref, d, sizes));
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(ref->dim())}));
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    if (is_legacy_empty(t)) continue;
    StridedView slot = view_of(*out);
    view_narrow(slot, d, offset, t.size(d), 1);
    TE_RETURN_IF_ERROR(convert_view(view_of(t), t.dtype(), slot, out->dtype(), "cat"));
    offset += t.size(d);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
