// aten::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values,
//     Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
// aten::sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False,
//     Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
//
// Sorts every lane along `dim`; `indices` (int64) holds each value's
// position in its lane. NaN sorts after every number (before, when
// descending), as in ATen. The result is always the stable one (equal
// values keep their order), which is also a valid answer for stable=False.
// In place in the outputs by heapsort (keyed_sort.h): no scratch memory.
// Every dtype, bool included; values has self's dtype. Any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/keyed_sort.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/lane_walk.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <typename T>
void sort_lanes(const Tensor& self, int dim, bool descending, Tensor& values, Tensor& indices) {
  LaneWalk walk(self, dim);
  walk.add(values, true);
  walk.add(indices, true);
  const int64_t n = lane_size(self, dim), step = lane_stride(self, dim);
  const T* x = self.data_as<T>();
  KeyOrder<compute_t<T>> order;
  order.descending = descending;
  walk.for_each([&](const int64_t* at) {
    const KeyedLane<T> lane{values.mutable_data_as<T>() + at[1], lane_stride(values, dim),
                            indices.mutable_data_as<int64_t>() + at[2], lane_stride(indices, dim)};
    for (int64_t i = 0; i < n; ++i) lane.set(i, x[at[0] + i * step], i);
    heap_sort(lane, n, order);
  });
}

Error sort(const Tensor& self, int64_t dim_arg, bool descending, Tensor& values, Tensor& indices,
           const char* op) {
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self.dim(), "dim"));
  TE_RETURN_IF_ERROR(expect_same_dtype(self, values, "self", "values"));
  TE_RETURN_IF_ERROR(expect_dtype(indices, ScalarType::Long, "indices"));
  TE_RETURN_IF_ERROR(resize_like(values, self));
  TE_RETURN_IF_ERROR(resize_like(indices, self));
  return switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
    sort_lanes<decltype(tag)>(self, dim, descending, values, indices);
    return Error::Ok;
  });
}

}  // namespace

Error sort_values(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(bool descending, bool_arg(args, 2, "descending"));
  TE_ASSIGN_OR_RETURN(Tensor* values, tensor_arg(args, 3, "values"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 4, "indices"));
  return sort(*self, dim, descending, *values, *indices, "sort.values");
}

Error sort_values_stable(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  if (!args[1]->is_none()) {
    TE_RETURN_IF_ERROR(bool_arg(args, 1, "stable").error());
  }
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(bool descending, bool_arg(args, 3, "descending"));
  TE_ASSIGN_OR_RETURN(Tensor* values, tensor_arg(args, 4, "values"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 5, "indices"));
  return sort(*self, dim, descending, *values, *indices, "sort.values_stable");
}

}  // namespace native
}  // namespace torchedge
