// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
//
// Advanced indexing, self[indices] in Python, with ATen's rules:
//   - entry k of `indices` indexes the next self dim(s); None keeps a dim
//     whole, self dims after the list are kept whole too;
//   - an int64/int32 tensor picks positions along one dim (negative values
//     count from the end, out-of-range values are an error);
//   - a bool/uint8 mask of k dims (its shape matching those self dims)
//     stands for the positions of its true elements, in row-major order,
//     i.e. a 1-d index of length count(true) per masked dim;
//   - the index tensors broadcast together to a shape B; out holds, for
//     every position of B, the kept dims of self at the indexed place;
//   - B sits where the indexed dims were when they are adjacent (no None
//     between them), else at the front of out.
// At least one entry must be a tensor; 0-d masks are not supported.
//
// The result is built as one strided copy of the kept dims per position of
// B, so no scratch memory is needed; masks are walked with a cursor instead
// of being expanded to index lists.
#include "kernels/portable/support/index_values.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

constexpr int kMaxDims = kTensorDimensionLimit;

// One tensor entry of `indices`.
struct IndexItem {
  const Tensor* tensor;
  int first_dim;              // the (first) self dim it indexes
  bool is_mask;
  int64_t count;              // mask: number of true elements
  int64_t strides[kMaxDims];  // int index: element stride per dim of B (0 = broadcast)
};

struct IndexPlan {
  int num_items = 0;
  IndexItem items[kMaxDims];
  int brank = 0;  // the broadcast shape B of all index tensors
  int64_t bsizes[kMaxDims];
  int num_kept = 0;  // self dims not indexed, in order
  int kept_dims[kMaxDims];
  int split = 0;  // kept dims placed before B in out
};

// Walks the true elements of a mask in row-major order.
class MaskCursor {
 public:
  void reset(const Tensor* mask) {
    mask_ = mask;
    found_ = -1;
    fresh_ = true;
    for (int d = 0; d < mask->dim(); ++d) coords_[d] = 0;
  }
  // Moves to the n-th (0-based) true element; n must be < the true count.
  void seek(int64_t n) {
    if (n < found_) reset(mask_);
    while (found_ < n) {
      if (!fresh_) step();
      fresh_ = false;
      int64_t offset = 0;
      for (int d = 0; d < mask_->dim(); ++d) offset += coords_[d] * mask_->stride(d);
      if (mask_->data_as<uint8_t>()[offset] != 0) ++found_;
    }
  }
  int64_t coord(int d) const { return coords_[d]; }

 private:
  void step() {
    for (int d = mask_->dim() - 1; d >= 0 && ++coords_[d] == mask_->size(d); --d) coords_[d] = 0;
  }
  const Tensor* mask_ = nullptr;
  int64_t found_ = -1;
  bool fresh_ = true;
  int64_t coords_[kMaxDims] = {};
};

int64_t count_true(const Tensor& mask) {
  int64_t count = 0;
  const uint8_t* bytes = mask.data_as<uint8_t>();
  for (size_t i = 0; i < mask.numel(); ++i) count += bytes[i] != 0 ? 1 : 0;
  return count;
}

// Assigns every entry of `indices` its self dims and checks dtypes and mask
// shapes; fills items, kept dims and split.
Error plan_items(const Tensor& self, Span<Tensor* const> indices, IndexPlan& plan) {
  TE_CHECK_OR_RETURN(!indices.empty(), Error::InvalidArgument,
                     "index: at least one index must be provided");
  bool indexed[kMaxDims] = {};
  bool gap = false;  // a None seen after the first tensor entry
  bool adjacent = true;
  int dim = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor* t = indices[k];
    const bool mask =
        t != nullptr && (t->dtype() == ScalarType::Bool || t->dtype() == ScalarType::Byte);
    TE_CHECK_OR_RETURN(t == nullptr || mask || is_index_dtype(t->dtype()), Error::InvalidType,
                       "index: tensors used as indices must be int64, int32, uint8 or bool, got %s",
                       to_string(t->dtype()));
    const int span = mask ? t->dim() : 1;
    TE_CHECK_OR_RETURN(dim + span <= self.dim(), Error::InvalidArgument,
                       "index: too many indices for a tensor of dimension %d", self.dim());
    if (t == nullptr) {
      gap = plan.num_items > 0;
      ++dim;
      continue;
    }
    TE_CHECK_OR_RETURN(!mask || t->dim() > 0, Error::NotSupported,
                       "index: 0-d boolean masks are not supported");
    for (int j = 0; mask && j < t->dim(); ++j) {
      TE_CHECK_OR_RETURN(t->size(j) == self.size(dim + j), Error::InvalidArgument,
                         "index: mask %zu has size %d at dim %d but self has size %d there", k,
                         t->size(j), j, self.size(dim + j));
    }
    adjacent = adjacent && !gap;
    IndexItem& item = plan.items[plan.num_items++];
    item.tensor = t;
    item.first_dim = dim;
    item.is_mask = mask;
    item.count = mask ? count_true(*t) : 0;
    for (int j = 0; j < span; ++j) indexed[dim + j] = true;
    dim += span;
  }
  TE_CHECK_OR_RETURN(plan.num_items > 0, Error::InvalidArgument,
                     "index: at least one index must be a tensor, not None");
  const int first_indexed = plan.items[0].first_dim;
  for (int d = 0; d < self.dim(); ++d) {
    if (indexed[d]) continue;
    plan.kept_dims[plan.num_kept++] = d;
    if (adjacent && d < first_indexed) ++plan.split;
  }
  return Error::Ok;
}

// Broadcasts the index shapes (a mask counts as 1-d of its true count) into
// B and gives every int index its strides over B.
Error plan_broadcast(IndexPlan& plan) {
  for (int i = 0; i < plan.num_items; ++i) {
    const IndexItem& item = plan.items[i];
    const int rank = item.is_mask ? 1 : item.tensor->dim();
    if (rank > plan.brank) {  // widen B with leading 1s
      const int grow = rank - plan.brank;
      for (int j = plan.brank - 1; j >= 0; --j) plan.bsizes[j + grow] = plan.bsizes[j];
      for (int j = 0; j < grow; ++j) plan.bsizes[j] = 1;
      plan.brank = rank;
    }
    for (int j = 0; j < rank; ++j) {
      const int64_t size = item.is_mask ? item.count : item.tensor->size(j);
      int64_t& b = plan.bsizes[plan.brank - rank + j];
      TE_CHECK_OR_RETURN(size == b || size == 1 || b == 1, Error::InvalidArgument,
                         "index: indexing tensors could not be broadcast together (size %lld vs "
                         "%lld)",
                         static_cast<long long>(size), static_cast<long long>(b));
      if (b == 1) b = size;
    }
  }
  for (int i = 0; i < plan.num_items; ++i) {
    IndexItem& item = plan.items[i];
    if (item.is_mask) continue;
    const int lead = plan.brank - item.tensor->dim();
    for (int j = 0; j < plan.brank; ++j) {
      const bool real = j >= lead && item.tensor->size(j - lead) != 1;
      item.strides[j] = real ? item.tensor->stride(j - lead) : 0;
    }
  }
  return Error::Ok;
}

}  // namespace

namespace {

// Offset in self (elements) of the indexed place for position `b` of B.
int64_t indexed_offset(const Tensor& self, const IndexPlan& plan, const int64_t* b,
                       MaskCursor* cursors) {
  int64_t offset = 0;
  for (int i = 0; i < plan.num_items; ++i) {
    const IndexItem& item = plan.items[i];
    if (item.is_mask) {
      cursors[i].seek(item.count == 1 ? 0 : b[plan.brank - 1]);
      for (int j = 0; j < item.tensor->dim(); ++j) {
        offset += cursors[i].coord(j) * self.stride(item.first_dim + j);
      }
      continue;
    }
    int64_t at = 0;
    for (int j = 0; j < plan.brank; ++j) at += b[j] * item.strides[j];
    int64_t value = load_index(*item.tensor, at);
    if (value < 0) value += self.size(item.first_dim);
    offset += value * self.stride(item.first_dim);
  }
  return offset;
}

// Copies the kept dims of self, for every position of B, into out.
Error copy_indexed(const Tensor& self, const IndexPlan& plan, Tensor& out) {
  MaskCursor cursors[kMaxDims];
  for (int i = 0; i < plan.num_items; ++i) {
    if (plan.items[i].is_mask) cursors[i].reset(plan.items[i].tensor);
  }
  StridedView kept = view_of(self);
  kept.rank = plan.num_kept;
  for (int k = 0; k < plan.num_kept; ++k) {
    kept.sizes[k] = self.size(plan.kept_dims[k]);
    kept.strides[k] = self.stride(plan.kept_dims[k]);
  }
  int64_t b[kMaxDims] = {};
  for (;;) {
    StridedView from = kept;
    from.data += indexed_offset(self, plan, b, cursors) * static_cast<int64_t>(from.element_size);
    StridedView to = view_of(out);
    for (int j = 0; j < plan.brank; ++j) view_select(to, plan.split, b[j]);
    TE_RETURN_IF_ERROR(copy_view(from, to));
    int j = plan.brank - 1;
    for (; j >= 0 && ++b[j] == plan.bsizes[j]; --j) b[j] = 0;
    if (j < 0) return Error::Ok;
  }
}

Result<Span<Tensor* const>> optional_tensor_list(Span<EValue*> args, size_t index) {
  const EValue* v = args[index];
  if (v->tag() != Tag::OptionalTensorList && v->tag() != Tag::TensorList) {
    record_error_message("argument %zu 'indices': expected OptionalTensorList, got %s", index,
                         tag_name(v->tag()));
    return Error::InvalidType;
  }
  return v->to_tensor_list();
}

}  // namespace

Error index_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<Tensor* const> indices, optional_tensor_list(args, 1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  IndexPlan plan;
  TE_RETURN_IF_ERROR(plan_items(*self, indices, plan));
  TE_RETURN_IF_ERROR(plan_broadcast(plan));
  TE_CHECK_OR_RETURN(plan.num_kept + plan.brank <= kMaxDims, Error::InvalidArgument,
                     "index: result would have %d dims, more than the limit of %d",
                     plan.num_kept + plan.brank, kMaxDims);
  int64_t sizes[kMaxDims];
  int rank = 0;
  for (int k = 0; k < plan.split; ++k) sizes[rank++] = self->size(plan.kept_dims[k]);
  for (int j = 0; j < plan.brank; ++j) sizes[rank++] = plan.bsizes[j];
  for (int k = plan.split; k < plan.num_kept; ++k) sizes[rank++] = self->size(plan.kept_dims[k]);
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(rank)}));
  if (out->numel() == 0) return Error::Ok;
  for (int i = 0; i < plan.num_items; ++i) {
    const IndexItem& item = plan.items[i];
    if (item.is_mask) continue;
    TE_RETURN_IF_ERROR(
        check_index_range(*item.tensor, self->size(item.first_dim), true, "index"));
  }
  return copy_indexed(*self, plan, *out);
}

}  // namespace native
}  // namespace torchedge
