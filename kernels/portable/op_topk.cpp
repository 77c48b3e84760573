// aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//     Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
//
// The k largest (smallest when !largest) elements of every lane along
// `dim`, with their positions (int64) in the lane. NaN counts as larger
// than every number, as in ATen; equal values go by position (first
// first). The result is always sorted (best first), which is also a valid
// answer for sorted=False, whose order ATen leaves unspecified. A bounded
// heap kept in the outputs (keyed_sort.h): O(n log k), no scratch memory.
// Real dtypes (eager has no bool topk); values has self's dtype. Any dim
// order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/keyed_sort.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/lane_walk.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "topk.values";

template <typename T>
void topk_lanes(const Tensor& self, int64_t k, int dim, bool largest, Tensor& values,
                Tensor& indices) {
  LaneWalk walk(self, dim);
  walk.add(values, true);
  walk.add(indices, true);
  const int64_t n = lane_size(self, dim), step = lane_stride(self, dim);
  const T* x = self.data_as<T>();
  KeyOrder<compute_t<T>> order;
  order.descending = largest;
  walk.for_each([&](const int64_t* at) {
    const KeyedLane<T> lane{values.mutable_data_as<T>() + at[1], lane_stride(values, dim),
                            indices.mutable_data_as<int64_t>() + at[2], lane_stride(indices, dim)};
    TopK<T> top(lane, k, order);
    for (int64_t i = 0; i < n; ++i) top.offer(x[at[0] + i * step], i);
    top.finish();
  });
}

}  // namespace

Error topk_values(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t k, int_arg(args, 1, "k"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 2, "dim"));
  TE_ASSIGN_OR_RETURN(bool largest, bool_arg(args, 3, "largest"));
  TE_ASSIGN_OR_RETURN(bool sorted, bool_arg(args, 4, "sorted"));
  TE_ASSIGN_OR_RETURN(Tensor* values, tensor_arg(args, 5, "values"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 6, "indices"));
  (void)sorted;  // always sorted: see the file comment
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  const int64_t n = lane_size(*self, dim);
  TE_CHECK_OR_RETURN(k >= 0 && k <= n, Error::InvalidArgument,
                     "%s: selected index k (%lld) out of range for a dim of size %lld", kOp,
                     static_cast<long long>(k), static_cast<long long>(n));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *values, "self", "values"));
  TE_RETURN_IF_ERROR(expect_dtype(*indices, ScalarType::Long, "indices"));
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < self->dim(); ++d) sizes[d] = d == dim ? k : self->size(d);
  TE_RETURN_IF_ERROR(resize_to(*values, {sizes, static_cast<size_t>(self->dim())}));
  TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, static_cast<size_t>(self->dim())}));
  if (self->dim() == 0) k = 1;  // ATen: a scalar's topk is the scalar, even for k = 0
  return switch_dtype_only<kRealTypes>(self->dtype(), kOp, [&](auto tag) {
    topk_lanes<decltype(tag)>(*self, k, dim, largest, *values, *indices);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
