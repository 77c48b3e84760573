// aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
//
// Rotates elements: along a rolled dim of size n, out[(i + shift) mod n] =
// self[i]. With dims empty, shifts must hold one value and self is rolled
// as if flattened (row-major); otherwise shifts and dims pair up, and a dim
// named twice is rolled by the sum of its shifts.
//
// Rolling k dims is 2^k block copies: along each rolled dim, the head
// [0, n - s) moves to [s, n) and the tail [n - s, n) to [0, s).
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
// Non-negative remainder of `shift` by `n` (> 0).
int64_t wrap(int64_t shift, int64_t n) {
  const int64_t r = shift % n;
  return r < 0 ? r + n : r;
}

Error roll_flat(const Tensor& self, int64_t shift, Tensor& out) {
  const int64_t n = static_cast<int64_t>(self.numel());
  if (n == 0) return Error::Ok;
  const int64_t s = wrap(shift, n);
  const StridedView from = view_of(self);
  const StridedView to = view_of(out);
  TE_RETURN_IF_ERROR(copy_linear(from, 0, to, s, n - s));
  return copy_linear(from, n - s, to, 0, s);
}

// Rolls the `count` dims in `dims` by the matching `shift` (0 < shift < size).
Error roll_dims(const Tensor& self, const int* dims, const int64_t* shift, int count,
                Tensor& out) {
  for (uint32_t block = 0; block < (1u << count); ++block) {
    StridedView from = view_of(self);
    StridedView to = view_of(out);
    for (int k = 0; k < count; ++k) {
      const int64_t n = self.size(dims[k]);
      const int64_t s = shift[k];
      if ((block >> k) & 1u) {  // tail moves to the front
        view_narrow(from, dims[k], n - s, s, 1);
        view_narrow(to, dims[k], 0, s, 1);
      } else {  // head moves back
        view_narrow(from, dims[k], 0, n - s, 1);
        view_narrow(to, dims[k], s, n - s, 1);
      }
    }
    TE_RETURN_IF_ERROR(copy_view(from, to));
  }
  return Error::Ok;
}
}  // namespace

Error roll_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> shifts, int_list_arg(args, 1, "shifts"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, int_list_arg(args, 2, "dims"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_CHECK_OR_RETURN(dims.empty() ? shifts.size() == 1 : shifts.size() == dims.size(),
                     Error::InvalidArgument, "roll: shifts and dims must align (%zu shifts, %zu dims)",
                     shifts.size(), dims.size());
  TE_CHECK_OR_RETURN(dims.empty() || self->dim() > 0, Error::InvalidArgument,
                     "roll: dims given but self has no dimensions");
  int64_t total[kTensorDimensionLimit] = {};  // summed shift per dim
  for (size_t i = 0; i < dims.size(); ++i) {
    TE_ASSIGN_OR_RETURN(int d, normalize_dim(dims[i], self->dim(), "roll dim"));
    const int64_t n = self->size(d);
    if (n > 0) total[d] = wrap(total[d] + wrap(shifts[i], n), n);
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  if (dims.empty()) return roll_flat(*self, shifts[0], *out);
  int rolled[kTensorDimensionLimit];
  int64_t amount[kTensorDimensionLimit];
  int count = 0;
  for (int d = 0; d < self->dim(); ++d) {
    if (total[d] == 0) continue;
    rolled[count] = d;
    amount[count++] = total[d];
  }
  return roll_dims(*self, rolled, amount, count, *out);
}

}  // namespace native
}  // namespace torchedge
