// aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out) -> Tensor(a!)
//
// The elements of self where the bool mask is true, self and mask broadcast
// together, in row-major order of the broadcast shape, as a 1-d out of
// self's dtype. The count depends on the data: the program plans out at its
// upper bound (the broadcast numel, stated by the export) and the kernel
// resizes out to the true count.
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

// Offset of t's element at the broadcast shape's linear index (t aligned
// right, size-1 dims repeated).
int64_t broadcast_offset(const Tensor& t, const int64_t* shape, int rank, int64_t linear) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t at = linear % shape[d];
    linear /= shape[d];
    const int td = d - (rank - t.dim());
    if (td >= 0 && t.size(td) != 1) offset += at * t.stride(td);
  }
  return offset;
}

}  // namespace

Error masked_select_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "masked_select.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* mask, tensor_arg(args, 1, "mask"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*mask, ScalarType::Bool, "mask"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(out->dim() == 1, Error::InvalidArgument, "%s: out must have 1 dim, got %d",
                     kOp, out->dim());
  // The broadcast shape of self and mask.
  const int rank = self->dim() > mask->dim() ? self->dim() : mask->dim();
  int64_t shape[kTensorDimensionLimit];
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) {
    const int ds = d - (rank - self->dim()), dm = d - (rank - mask->dim());
    const int64_t s = ds >= 0 ? self->size(ds) : 1, m = dm >= 0 ? mask->size(dm) : 1;
    TE_CHECK_OR_RETURN(s == m || s == 1 || m == 1, Error::InvalidArgument,
                       "%s: self and mask do not broadcast (dim %d: %lld vs %lld)", kOp, d,
                       static_cast<long long>(s), static_cast<long long>(m));
    shape[d] = s == 1 ? m : s;
    numel *= shape[d];
  }
  const bool* keep = mask->data_as<bool>();
  int64_t count = 0;
  for (int64_t i = 0; i < numel; ++i) count += keep[broadcast_offset(*mask, shape, rank, i)] ? 1 : 0;
  TE_RETURN_IF_ERROR(resize_to(*out, {&count, 1}));  // fails past the planned bound
  return switch_element_width(element_size(self->dtype()), kOp, [&](auto tag) {
    using W = decltype(tag);
    const W* from = self->data_as<W>();
    W* to = out->mutable_data_as<W>();
    int64_t written = 0;
    for (int64_t i = 0; i < numel; ++i) {
      if (keep[broadcast_offset(*mask, shape, rank, i)]) {
        to[written++] = from[broadcast_offset(*self, shape, rank, i)];
      }
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
