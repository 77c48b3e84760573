// aten::nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// aten::nonzero_static.out(Tensor self, *, SymInt size, int fill_value=-1, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// The indices of self's nonzero elements (NaN counts as nonzero), one int64
// row of self.dim() coordinates per element, in row-major order. nonzero's
// row count depends on the data: the program plans out at its upper bound
// (self's numel, stated by the export) and the kernel resizes out to the
// true count, which later kernels follow. nonzero_static always has `size`
// rows: the first nonzero elements, then rows of fill_value.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

// Calls visit(linear, offset) for every element of t in row-major order.
template <typename F>
void for_each_element(const Tensor& t, F&& visit) {
  const int64_t n = static_cast<int64_t>(t.numel());
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, offset = 0;
    for (int d = t.dim() - 1; d >= 0; --d) {
      offset += (rest % t.size(d)) * t.stride(d);
      rest /= t.size(d);
    }
    visit(i, offset);
  }
}

// Writes row `row` of out (through its strides: eager's nonzero result,
// and so the planned out, is column-major): the coordinates of self's
// element `linear`.
void write_coordinates(const Tensor& self, int64_t linear, Tensor& out, int64_t row) {
  int64_t* data = out.mutable_data_as<int64_t>();
  for (int d = self.dim() - 1; d >= 0; --d) {
    data[row * out.stride(0) + d * out.stride(1)] = linear % self.size(d);
    linear /= self.size(d);
  }
}

// Counts self's nonzero elements; with `out`, also writes the first
// `limit` of their coordinate rows.
Result<int64_t> find_nonzero(const Tensor& self, Tensor* out, int64_t limit, const char* op) {
  int64_t count = 0;
  const Error error = switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
    using T = decltype(tag);
    const T* data = self.data_as<T>();
    for_each_element(self, [&](int64_t linear, int64_t offset) {
      if (!(static_cast<compute_t<T>>(data[offset]) != compute_t<T>(0))) return;
      if (out != nullptr && count < limit) write_coordinates(self, linear, *out, count);
      ++count;
    });
    return Error::Ok;
  });
  if (error != Error::Ok) return error;
  return count;
}

}  // namespace

Error nonzero_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "nonzero.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Long, "out"));
  TE_CHECK_OR_RETURN(out->dim() == 2, Error::InvalidArgument, "%s: out must have 2 dims, got %d",
                     kOp, out->dim());
  TE_ASSIGN_OR_RETURN(int64_t count, find_nonzero(*self, nullptr, 0, kOp));
  const int64_t sizes[] = {count, self->dim()};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 2}));  // fails past the planned bound
  return find_nonzero(*self, out, count, kOp).error();
}

Error nonzero_static_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "nonzero_static.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t size, int_arg(args, 1, "size"));
  TE_ASSIGN_OR_RETURN(int64_t fill_value, int_arg(args, 2, "fill_value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Long, "out"));
  TE_CHECK_OR_RETURN(size >= 0, Error::InvalidArgument, "%s: size must be >= 0, got %lld", kOp,
                     static_cast<long long>(size));
  TE_CHECK_OR_RETURN(out->dim() == 2, Error::InvalidArgument, "%s: out must have 2 dims, got %d",
                     kOp, out->dim());
  const int64_t sizes[] = {size, self->dim()};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 2}));
  TE_ASSIGN_OR_RETURN(int64_t count, find_nonzero(*self, out, size, kOp));
  int64_t* rows = out->mutable_data_as<int64_t>();
  for (int64_t row = count < size ? count : size; row < size; ++row) {
    for (int d = 0; d < self->dim(); ++d) rows[row * out->stride(0) + d * out->stride(1)] = fill_value;
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
