// aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// out = self, then for every position p of index: out[p with p[dim] =
// index[p]] += src[p], so repeated targets sum up. The index rules are
// scatter's (support/scatter.h), checked before anything is written.
// Sums wrap for integers, round per add for float16/bfloat16 (computed in
// float), and are "or" for bool, as in ATen. Every dtype; src, self and out
// share one. Any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // wrapping_add
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/scatter.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error scatter_add_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "scatter_add.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 3, "src"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *src, "self", "src"));
  TE_RETURN_IF_ERROR(check_scatter(*self, dim, *index, src, kOp));
  TE_RETURN_IF_ERROR(copy_view_to(view_of(*self), *out));
  return switch_dtype(self->dtype(), kAllTypes, kOp, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T* from = src->data_as<T>();
    T* to = out->mutable_data_as<T>();
    for_each_scatter(*out, dim, *index, src, [&](int64_t o, int64_t s) {
      to[o] = static_cast<T>(wrapping_add(static_cast<C>(to[o]), static_cast<C>(from[s])));
    });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
