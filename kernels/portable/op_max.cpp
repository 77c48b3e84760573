// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
//     Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)
// aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
//     Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)
//
// The max / min along `dim` and its index (int64), as torch.max(x, dim).
// As ATen's CPU kernel: the first extremum wins a tie, and the first NaN
// wins outright (it is the value, and its position the index). Every dtype,
// bool included; the values output has self's dtype. A reduced dim of size
// 0 is an error. (ATen names the out arguments oddly: max.dim_max's second
// out holds the indices.) min shares this file: only the comparison differs.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // is_nan
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/lane_walk.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <bool kMax, typename T>
void extremum_lanes(const Tensor& self, int dim, bool keepdim, Tensor& values, Tensor& indices) {
  using C = compute_t<T>;
  LaneWalk walk(self, dim);
  walk.add(values, keepdim);
  walk.add(indices, keepdim);
  const int64_t n = lane_size(self, dim), step = lane_stride(self, dim);
  const T* x = self.data_as<T>();
  T* v = values.mutable_data_as<T>();
  int64_t* idx = indices.mutable_data_as<int64_t>();
  walk.for_each([&](const int64_t* at) {
    C best = static_cast<C>(x[at[0]]);
    int64_t best_index = 0;
    for (int64_t i = 1; i < n && !is_nan(best); ++i) {
      const C e = static_cast<C>(x[at[0] + i * step]);
      // !(e <= best): a larger value, or NaN (after which the loop stops).
      if (kMax ? !(e <= best) : !(e >= best)) {
        best = e;
        best_index = i;
      }
    }
    v[at[1]] = static_cast<T>(best);
    idx[at[2]] = best_index;
  });
}

template <bool kMax>
Error extremum_dim(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* values, tensor_arg(args, 3, kMax ? "max" : "min"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 4, kMax ? "max_values" : "min_indices"));
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *values, "self", "values"));
  TE_RETURN_IF_ERROR(expect_dtype(*indices, ScalarType::Long, "indices"));
  TE_CHECK_OR_RETURN(lane_size(*self, dim) > 0, Error::InvalidArgument,
                     "%s: expected reduction dim %d to have non-zero size", op, dim);
  int64_t sizes[kTensorDimensionLimit];
  size_t rank = 0;
  for (int d = 0; d < self->dim(); ++d) {
    if (d != dim) sizes[rank++] = self->size(d);
    else if (keepdim) sizes[rank++] = 1;
  }
  TE_RETURN_IF_ERROR(resize_to(*values, {sizes, rank}));
  TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, rank}));
  return switch_dtype(self->dtype(), kAllTypes, op, [&](auto tag) {
    extremum_lanes<kMax, decltype(tag)>(*self, dim, keepdim, *values, *indices);
    return Error::Ok;
  });
}

}  // namespace

Error max_dim_max(KernelContext& ctx, Span<EValue*> args) {
  return extremum_dim<true>(args, "max.dim_max");
}

Error min_dim_min(KernelContext& ctx, Span<EValue*> args) {
  return extremum_dim<false>(args, "min.dim_min");
}

}  // namespace native
}  // namespace torchedge
