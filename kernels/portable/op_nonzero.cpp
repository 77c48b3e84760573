// aten::nonzero.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
//
// out [n, self.dim()] (int64) lists, in row-major order, the index of every
// element of self that is not zero (NaN counts; -0.0 does not). n depends
// on the data: out is resized to it inside its planned bound, which the
// exporter sets to self's element count, and a count past the bound is an
// error rather than a write past the buffer. A 0-d self gives [1, 0] or
// [0, 0]. Every dtype; any dim order of self.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "nonzero.out";

// Calls f(index) with the logical index of each nonzero element, in order.
template <typename T, typename F>
void for_each_nonzero(const Tensor& self, F&& f) {
  const T* x = self.data_as<T>();
  const int rank = self.dim();
  int64_t index[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < self.numel(); ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * self.stride(d);
    if (static_cast<compute_t<T>>(x[offset]) != static_cast<compute_t<T>>(0)) f(index);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < self.size(d)) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Error nonzero_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Long, "out"));
  TE_CHECK_OR_RETURN(out->dim() == 2, Error::InvalidArgument, "%s: out must be 2-d, got %d-d",
                     kOp, out->dim());
  return switch_dtype(self->dtype(), kAllTypes, kOp, [&](auto tag) {
    using T = decltype(tag);
    int64_t count = 0;  // first pass: the row count, so out is resized once
    for_each_nonzero<T>(*self, [&](const int64_t*) { ++count; });
    const int64_t sizes[] = {count, self->dim()};
    TE_RETURN_IF_ERROR(resize_to(*out, sizes));
    int64_t* y = out->mutable_data_as<int64_t>();
    int64_t row = 0;
    for_each_nonzero<T>(*self, [&](const int64_t* index) {
      for (int d = 0; d < self->dim(); ++d) y[row * out->stride(0) + d * out->stride(1)] = index[d];
      ++row;
    });
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
