// aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// out has the broadcast shape of self and the bool mask; walking out in
// logical row-major order, each position whose mask is true takes the next
// element of source (read in its own row-major order, whatever its shape),
// the others take self. source needs at least as many elements as the mask
// has trues there. Every dtype; self, source and out share one (as eager);
// any dim order.
#include "kernels/portable/support/elementwise.h"  // resize_to_broadcast
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"  // switch_element_width
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "masked_scatter.out";

// Walks a shape in row-major order, tracking each operand's element offset
// (operands align with the shape from the right; size-1 dims broadcast).
class RowMajorWalk {
 public:
  RowMajorWalk(const Tensor& shape, const Tensor* const* operands, int count)
      : shape_(shape), count_(count) {
    for (int k = 0; k < count; ++k) {
      const Tensor& t = *operands[k];
      for (int d = 0; d < shape.dim(); ++d) {
        const int td = d - (shape.dim() - t.dim());
        strides_[k][d] = td >= 0 && t.size(td) != 1 ? t.stride(td) : 0;
      }
    }
  }
  int64_t offset(int k) const { return offset_[k]; }
  void next() {
    for (int d = shape_.dim() - 1; d >= 0; --d) {
      for (int k = 0; k < count_; ++k) offset_[k] += strides_[k][d];
      if (++counter_[d] < shape_.size(d)) return;
      for (int k = 0; k < count_; ++k) offset_[k] -= strides_[k][d] * counter_[d];
      counter_[d] = 0;
    }
  }

 private:
  const Tensor& shape_;
  int count_;
  int64_t counter_[kTensorDimensionLimit] = {};
  int64_t strides_[3][kTensorDimensionLimit] = {};
  int64_t offset_[3] = {};
};

}  // namespace

Error masked_scatter_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mask, tensor_arg(args, 1, "mask"));
  TE_ASSIGN_OR_RETURN(Tensor* source, tensor_arg(args, 2, "source"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*mask, ScalarType::Bool, "mask"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *source, "self", "source"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *mask));
  const Tensor* walked[] = {out, self, mask};
  const bool* m = mask->data_as<bool>();
  int64_t trues = 0;
  RowMajorWalk count_walk(*out, walked, 3);
  for (size_t i = 0; i < out->numel(); ++i, count_walk.next()) trues += m[count_walk.offset(2)];
  TE_CHECK_OR_RETURN(trues <= static_cast<int64_t>(source->numel()), Error::InvalidArgument,
                     "%s: source has %zu elements, fewer than the mask's %lld true values", kOp,
                     source->numel(), static_cast<long long>(trues));
  return switch_element_width(element_size(self->dtype()), kOp, [&](auto tag) {
    using W = decltype(tag);
    const W* x = self->data_as<W>();
    const W* s = source->data_as<W>();
    W* y = out->mutable_data_as<W>();
    RowMajorWalk walk(*out, walked, 3);
    RowMajorWalk source_walk(*source, &source, 1);
    for (size_t i = 0; i < out->numel(); ++i, walk.next()) {
      if (m[walk.offset(2)]) {
        y[walk.offset(0)] = s[source_walk.offset(0)];
        source_walk.next();
      } else {
        y[walk.offset(0)] = x[walk.offset(1)];
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
