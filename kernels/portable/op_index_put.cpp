// aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False,
//                     *, Tensor(a!) out)
//
// out = self with out[indices] = values (or += values when accumulate), the
// functional form of `self[indices] = values` and of index_put_, which is
// how a KV cache is written at positions given by an input. Indexing rules
// are index.Tensor's (op_index.cpp): entries index successive dims, None
// keeps a dim whole, int64/int32 index tensors broadcast together to a shape
// B that sits where the indexed dims were (adjacent) or in front; values
// broadcast to that indexed shape. Negative indices count from the end;
// out-of-range ones are an error, checked before anything is written. With
// repeated indices the last write wins (accumulate sums them all). Boolean
// mask indices are not supported. values must have self's dtype, as in ATen.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/index_values.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/strided_loop.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

constexpr int kMaxDims = kTensorDimensionLimit;

struct PutPlan {
  int num_items = 0;
  const Tensor* items[kMaxDims];
  int item_dim[kMaxDims];                // the self dim each index tensor indexes
  int64_t item_strides[kMaxDims][kMaxDims];  // element stride over B (0 = broadcast)
  int brank = 0;
  int64_t bsizes[kMaxDims];
  int num_kept = 0;
  int kept_dims[kMaxDims];
  int split = 0;  // kept dims placed before B in the indexed shape
};

Error plan_put(const Tensor& self, Span<Tensor* const> indices, PutPlan& plan) {
  TE_CHECK_OR_RETURN(!indices.empty() && indices.size() <= static_cast<size_t>(self.dim()),
                     Error::InvalidArgument,
                     "index_put: %zu indices for a tensor of dimension %d", indices.size(),
                     self.dim());
  bool indexed[kMaxDims] = {};
  bool gap = false;
  bool adjacent = true;
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor* t = indices[k];
    if (t == nullptr) {
      gap = plan.num_items > 0;
      continue;
    }
    TE_CHECK_OR_RETURN(is_index_dtype(t->dtype()), Error::NotSupported,
                       "index_put: indices must be int64 or int32 tensors (boolean masks are "
                       "not supported), got %s",
                       to_string(t->dtype()));
    adjacent = adjacent && !gap;
    plan.items[plan.num_items] = t;
    plan.item_dim[plan.num_items++] = static_cast<int>(k);
    indexed[k] = true;
  }
  TE_CHECK_OR_RETURN(plan.num_items > 0, Error::InvalidArgument,
                     "index_put: at least one index must be a tensor, not None");
  for (int d = 0; d < self.dim(); ++d) {
    if (indexed[d]) continue;
    plan.kept_dims[plan.num_kept++] = d;
    if (adjacent && d < plan.item_dim[0]) ++plan.split;
  }
  for (int i = 0; i < plan.num_items; ++i) {  // broadcast the index shapes into B
    const Tensor& t = *plan.items[i];
    if (t.dim() > plan.brank) {
      const int grow = t.dim() - plan.brank;
      for (int j = plan.brank - 1; j >= 0; --j) plan.bsizes[j + grow] = plan.bsizes[j];
      for (int j = 0; j < grow; ++j) plan.bsizes[j] = 1;
      plan.brank = t.dim();
    }
    for (int j = 0; j < t.dim(); ++j) {
      int64_t& b = plan.bsizes[plan.brank - t.dim() + j];
      TE_CHECK_OR_RETURN(t.size(j) == b || t.size(j) == 1 || b == 1, Error::InvalidArgument,
                         "index_put: index tensors could not be broadcast together");
      if (b == 1) b = t.size(j);
    }
  }
  for (int i = 0; i < plan.num_items; ++i) {
    const Tensor& t = *plan.items[i];
    const int lead = plan.brank - t.dim();
    for (int j = 0; j < plan.brank; ++j) {
      const bool real = j >= lead && t.size(j - lead) != 1;
      plan.item_strides[i][j] = real ? t.stride(j - lead) : 0;
    }
  }
  TE_CHECK_OR_RETURN(plan.num_kept + plan.brank <= kMaxDims, Error::InvalidArgument,
                     "index_put: the indexed shape would have more than %d dims", kMaxDims);
  for (int i = 0; i < plan.num_items; ++i) {
    TE_RETURN_IF_ERROR(
        check_index_range(*plan.items[i], self.size(plan.item_dim[i]), true, "index_put"));
  }
  return Error::Ok;
}

// values as a view of the indexed shape (kept dims around B), broadcast.
Result<StridedView> values_view(const Tensor& values, const Tensor& self, const PutPlan& plan) {
  int64_t shape[kMaxDims];
  int rank = 0;
  for (int k = 0; k < plan.split; ++k) shape[rank++] = self.size(plan.kept_dims[k]);
  for (int j = 0; j < plan.brank; ++j) shape[rank++] = plan.bsizes[j];
  for (int k = plan.split; k < plan.num_kept; ++k) shape[rank++] = self.size(plan.kept_dims[k]);
  TE_CHECK_OR_RETURN(values.dim() <= rank, Error::InvalidArgument,
                     "index_put: values of rank %d do not broadcast to the indexed rank %d",
                     values.dim(), rank);
  const StridedView from = view_of(values);
  StridedView view = from;
  view.rank = rank;
  const int lead = rank - values.dim();
  for (int d = 0; d < rank; ++d) {
    const int64_t size = d < lead ? 1 : from.sizes[d - lead];
    TE_CHECK_OR_RETURN(size == shape[d] || size == 1, Error::InvalidArgument,
                       "index_put: values of size %lld at dim %d do not broadcast to %lld",
                       static_cast<long long>(size), d - lead,
                       static_cast<long long>(shape[d]));
    view.sizes[d] = shape[d];
    view.strides[d] = d < lead || size != shape[d] ? 0 : from.strides[d - lead];
  }
  return view;
}

template <typename T>
void accumulate_into(const StridedView& src, const StridedView& dst) {
  const PairLoop loop = make_pair_loop(src.rank, src.sizes, src.strides, dst.strides);
  const T* a = reinterpret_cast<const T*>(src.data);
  T* b = reinterpret_cast<T*>(dst.data);
  const int64_t n = loop.run_length();
  const int64_t sa = loop.run_stride_a();
  const int64_t sb = loop.run_stride_b();
  for_each_run(loop, [&](int64_t oa, int64_t ob) {
    for (int64_t i = 0; i < n; ++i) {
      T& to = b[ob + i * sb];
      to = static_cast<T>(static_cast<compute_t<T>>(to) + static_cast<compute_t<T>>(a[oa + i * sa]));
    }
  });
}

Error put_all(const Tensor& self, const PutPlan& plan, const StridedView& values, bool accumulate,
              Tensor& out) {
  StridedView kept = view_of(out);
  kept.rank = plan.num_kept;
  for (int k = 0; k < plan.num_kept; ++k) {
    kept.sizes[k] = out.size(plan.kept_dims[k]);
    kept.strides[k] = out.stride(plan.kept_dims[k]);
  }
  int64_t b[kMaxDims] = {};
  for (;;) {
    int64_t offset = 0;
    for (int i = 0; i < plan.num_items; ++i) {
      int64_t at = 0;
      for (int j = 0; j < plan.brank; ++j) at += b[j] * plan.item_strides[i][j];
      int64_t index = load_index(*plan.items[i], at);
      if (index < 0) index += self.size(plan.item_dim[i]);
      offset += index * out.stride(plan.item_dim[i]);
    }
    StridedView to = kept;
    to.data += offset * static_cast<int64_t>(to.element_size);
    StridedView from = values;
    for (int j = 0; j < plan.brank; ++j) view_select(from, plan.split, b[j]);
    if (accumulate) {
      // Every dtype, as in ATen: for bool, true + x is true (a logical or).
      TE_RETURN_IF_ERROR(switch_dtype(out.dtype(), kAllTypes, "index_put", [&](auto tag) {
        accumulate_into<decltype(tag)>(from, to);
        return Error::Ok;
      }));
    } else {
      TE_RETURN_IF_ERROR(copy_view(from, to));
    }
    int j = plan.brank - 1;
    for (; j >= 0 && ++b[j] == plan.bsizes[j]; --j) b[j] = 0;
    if (j < 0) return Error::Ok;
  }
}

}  // namespace

Error index_put_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  const EValue* list = args[1];
  TE_CHECK_OR_RETURN(list->tag() == Tag::OptionalTensorList || list->tag() == Tag::TensorList,
                     Error::InvalidType, "argument 1 'indices': expected OptionalTensorList, got %s",
                     tag_name(list->tag()));
  TE_ASSIGN_OR_RETURN(Tensor* values, tensor_arg(args, 2, "values"));
  TE_ASSIGN_OR_RETURN(bool accumulate, bool_arg(args, 3, "accumulate"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *values, "self", "values"));
  PutPlan plan;
  TE_RETURN_IF_ERROR(plan_put(*self, list->to_tensor_list(), plan));
  TE_ASSIGN_OR_RETURN(StridedView from, values_view(*values, *self, plan));
  TE_RETURN_IF_ERROR(copy_view_to(view_of(*self), *out));
  for (int j = 0; j < plan.brank; ++j) {
    if (plan.bsizes[j] == 0) return Error::Ok;
  }
  for (int k = 0; k < plan.num_kept; ++k) {
    if (out->size(plan.kept_dims[k]) == 0) return Error::Ok;
  }
  return put_all(*self, plan, from, accumulate, *out);
}

}  // namespace native
}  // namespace torchedge
