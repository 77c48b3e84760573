// aten::_unique2.out(Tensor self, bool sorted=True, bool return_inverse=False,
//     bool return_counts=False, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
// aten::unique_consecutive.out(Tensor self, bool return_inverse=False,
//     bool return_counts=False, int? dim=None, *, Tensor(a!) out0, Tensor(b!) out1,
//     Tensor(c!) out2)
//
// The distinct values of flattened self (out0, self's dtype), with the index
// of each element's value in out0 (out1, int64, self's shape) and how often
// each value occurs (out2, int64). _unique2 sorts ascending, as eager on CPU
// does whatever `sorted` says (NaNs last, each NaN its own value);
// unique_consecutive only merges runs of equal neighbours. out1 / out2 are
// empty (size 0) unless requested. The number of values depends on the
// data: out0 and out2 are planned at their upper bound (self's numel) and
// resized to the true count. unique_consecutive along a dim is not
// supported (dim must be None).
#include <algorithm>
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

template <typename V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point<V>::value) {
    return std::isnan(v);
  } else {
    return false;
  }
}

int64_t row_major_offset(const Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (int d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % t.size(d)) * t.stride(d);
    linear /= t.size(d);
  }
  return offset;
}

struct UniqueOuts {
  Tensor* values;
  Tensor* inverse;
  Tensor* counts;
  bool return_inverse;
  bool return_counts;
};

Error prepare(const Tensor& self, const UniqueOuts& outs, const char* op) {
  TE_RETURN_IF_ERROR(expect_same_dtype(self, *outs.values, "self", "out0"));
  TE_RETURN_IF_ERROR(expect_dtype(*outs.inverse, ScalarType::Long, "out1"));
  TE_RETURN_IF_ERROR(expect_dtype(*outs.counts, ScalarType::Long, "out2"));
  TE_CHECK_OR_RETURN(outs.values->dim() == 1 && outs.counts->dim() == 1, Error::InvalidArgument,
                     "%s: out0 and out2 must have 1 dim", op);
  if (outs.return_inverse) return resize_like(*outs.inverse, self);
  const int64_t empty = 0;
  TE_CHECK_OR_RETURN(outs.inverse->dim() == 1, Error::InvalidArgument,
                     "%s: out1 must have 1 dim when return_inverse is false", op);
  return resize_to(*outs.inverse, {&empty, 1});
}

// Groups the elements visited in `order` (a permutation of row-major
// indices): a new value starts where `same(prev, next)` is false.
template <typename T, typename Same>
Error group(const Tensor& self, const int64_t* order, int64_t n, const UniqueOuts& outs,
            Same&& same) {
  const T* data = self.data_as<T>();
  int64_t groups = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || !same(data[row_major_offset(self, order[i - 1])],
                        data[row_major_offset(self, order[i])])) {
      ++groups;
    }
  }
  TE_RETURN_IF_ERROR(resize_to(*outs.values, {&groups, 1}));  // fails past the planned bound
  const int64_t counts_size = outs.return_counts ? groups : 0;
  TE_RETURN_IF_ERROR(resize_to(*outs.counts, {&counts_size, 1}));
  T* values = outs.values->mutable_data_as<T>();
  int64_t* inverse = outs.inverse->mutable_data_as<int64_t>();
  int64_t* counts = outs.counts->mutable_data_as<int64_t>();
  int64_t g = -1;
  for (int64_t i = 0; i < n; ++i) {
    const T value = data[row_major_offset(self, order[i])];
    if (i == 0 || !same(data[row_major_offset(self, order[i - 1])], value)) {
      values[++g] = value;
      if (outs.return_counts) counts[g] = 0;
    }
    if (outs.return_counts) ++counts[g];
    if (outs.return_inverse) inverse[row_major_offset(*outs.inverse, order[i])] = g;
  }
  return Error::Ok;
}

Error unique(KernelContext& ctx, const Tensor& self, const UniqueOuts& outs, bool consecutive,
             const char* op) {
  TE_RETURN_IF_ERROR(prepare(self, outs, op));
  const int64_t n = static_cast<int64_t>(self.numel());
  int64_t* order = static_cast<int64_t*>(ctx.allocate_temp(sizeof(int64_t) * (n > 0 ? n : 1)));
  TE_CHECK_OR_RETURN(order != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %lld bytes of kernel scratch", op,
                     static_cast<long long>(sizeof(int64_t) * n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  return switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
    using T = decltype(tag);
    using V = compute_t<T>;
    const T* data = self.data_as<T>();
    if (!consecutive) {  // ascending, NaNs last, ties by position (deterministic)
      std::sort(order, order + n, [&](int64_t a, int64_t b) {
        const V x = data[row_major_offset(self, a)], y = data[row_major_offset(self, b)];
        if (is_nan(x) || is_nan(y)) return !is_nan(x) || (is_nan(y) && a < b);
        return x < y || (x == y && a < b);
      });
    }
    return group<T>(self, order, n, outs, [](T a, T b) {
      const V x = a, y = b;
      return x == y;  // NaN != NaN: each NaN its own value
    });
  });
}

}  // namespace

Error _unique2_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_unique2.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool sorted, bool_arg(args, 1, "sorted"));
  (void)sorted;  // eager on CPU sorts either way
  UniqueOuts outs{};
  TE_ASSIGN_OR_RETURN(outs.return_inverse, bool_arg(args, 2, "return_inverse"));
  TE_ASSIGN_OR_RETURN(outs.return_counts, bool_arg(args, 3, "return_counts"));
  TE_ASSIGN_OR_RETURN(outs.values, tensor_arg(args, 4, "out0"));
  TE_ASSIGN_OR_RETURN(outs.inverse, tensor_arg(args, 5, "out1"));
  TE_ASSIGN_OR_RETURN(outs.counts, tensor_arg(args, 6, "out2"));
  return unique(ctx, *self, outs, /*consecutive=*/false, kOp);
}

Error unique_consecutive_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "unique_consecutive.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  UniqueOuts outs{};
  TE_ASSIGN_OR_RETURN(outs.return_inverse, bool_arg(args, 1, "return_inverse"));
  TE_ASSIGN_OR_RETURN(outs.return_counts, bool_arg(args, 2, "return_counts"));
  TE_CHECK_OR_RETURN(args[3]->is_none(), Error::NotSupported,
                     "%s: unique_consecutive along a dim is not supported (dim must be None)", kOp);
  TE_ASSIGN_OR_RETURN(outs.values, tensor_arg(args, 4, "out0"));
  TE_ASSIGN_OR_RETURN(outs.inverse, tensor_arg(args, 5, "out1"));
  TE_ASSIGN_OR_RETURN(outs.counts, tensor_arg(args, 6, "out2"));
  return unique(ctx, *self, outs, /*consecutive=*/true, kOp);
}

}  // namespace native
}  // namespace torchedge
