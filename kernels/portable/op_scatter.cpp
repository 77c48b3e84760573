// aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//     -> Tensor(a!)
// aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// out = self, then for every position p of index: out[p with p[dim] =
// index[p]] = src[p] (or value). index is int64 or int32 with self's rank,
// no larger than src in any dim nor than self outside `dim`; its values
// must lie in [0, self.size(dim)) (ATen takes no negative indices), checked
// before anything is written. With repeated targets the last position in
// row-major order wins, as on ATen's CPU. Every dtype; src, self and out
// share one; value must fit self's dtype. Any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // scalar_to, expect_scalar_fits
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/scatter.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// Validates, then copies self into out; returns the normalized dim.
Result<int> start_scatter(const Tensor& self, int64_t dim_arg, const Tensor& index,
                          const Tensor* src, Tensor& out, const char* op) {
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self.dim(), "dim"));
  TE_RETURN_IF_ERROR(expect_same_dtype(self, out, "self", "out"));
  if (src != nullptr) TE_RETURN_IF_ERROR(expect_same_dtype(self, *src, "self", "src"));
  TE_RETURN_IF_ERROR(check_scatter(self, dim, index, src, op));
  TE_RETURN_IF_ERROR(copy_view_to(view_of(self), out));
  return dim;
}

}  // namespace

Error scatter_src_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "scatter.src_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 3, "src"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_ASSIGN_OR_RETURN(int dim, start_scatter(*self, dim_arg, *index, src, *out, kOp));
  // A pure move of elements: one instantiation per element width.
  return switch_element_width(element_size(self->dtype()), kOp, [&](auto tag) {
    using W = decltype(tag);
    const W* from = static_cast<const W*>(src->data());
    W* to = static_cast<W*>(out->mutable_data());
    for_each_scatter(*out, dim, *index, src, [&](int64_t o, int64_t s) { to[o] = from[s]; });
    return Error::Ok;
  });
}

Error scatter_value_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "scatter.value_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 3, "value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_scalar_fits(*value, self->dtype(), kOp));
  TE_ASSIGN_OR_RETURN(int dim, start_scatter(*self, dim_arg, *index, nullptr, *out, kOp));
  return switch_dtype(self->dtype(), kAllTypes, kOp, [&](auto tag) {
    using T = decltype(tag);
    const T v = static_cast<T>(scalar_to<compute_t<T>>(*value));
    T* to = out->mutable_data_as<T>();
    for_each_scatter(*out, dim, *index, nullptr, [&](int64_t o, int64_t) { to[o] = v; });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
