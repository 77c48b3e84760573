// aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
// aten::arange.out(Scalar end, *, Tensor(a!) out)
//
// Resizes the 1-d out to ceil((end - start) / step) elements and writes
// start + i * step, in out's dtype (every dtype but bool). step must be
// nonzero with end on the side of start that step points to. As in ATen,
// values are computed in the accumulation type (double for float32 and
// float64, float for 16-bit floats, int64 for integral dtypes, so a step
// of 0.3 becomes 0 there) while the size is computed from the scalars in
// double, except for int64, whose size is computed exactly in int64 (where
// a step truncated to 0 is an error).
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

template <typename T>
using arange_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                        std::conditional_t<is_reduced_float_v<T>, float, double>>;

Error check_bounds(double start, double end, double step, const char* op) {
  TE_CHECK_OR_RETURN(step != 0, Error::InvalidArgument, "%s: step must be nonzero", op);
  TE_CHECK_OR_RETURN(std::isfinite(start) && std::isfinite(end), Error::InvalidArgument,
                     "%s: unsupported range %g -> %g", op, start, end);
  TE_CHECK_OR_RETURN((step > 0 && end >= start) || (step < 0 && end <= start),
                     Error::InvalidArgument,
                     "%s: upper bound and lower bound inconsistent with step sign", op);
  return Error::Ok;
}

// ATen's compute_arange_size: in double, except exactly in int64 for int64.
template <typename T>
Result<int64_t> arange_size(const EValue& start, const EValue& end, const EValue& step,
                            const char* op) {
  double size;
  if constexpr (std::is_same_v<T, int64_t>) {
    const int64_t xstart = scalar_to<int64_t>(start);
    const int64_t xend = scalar_to<int64_t>(end);
    const int64_t xstep = scalar_to<int64_t>(step);
    TE_CHECK_OR_RETURN(xstep != 0, Error::InvalidArgument, "%s: step must be nonzero", op);
    const int64_t sign = (xstep > 0) - (xstep < 0);
    size = static_cast<double>((xend - xstart + xstep - sign) / xstep);
  } else {
    const double span = end.scalar_as_double() - start.scalar_as_double();
    size = std::ceil(span / step.scalar_as_double());
  }
  TE_CHECK_OR_RETURN(size >= 0 && size <= static_cast<double>(INT32_MAX), Error::InvalidArgument,
                     "%s: invalid size %g", op, size);
  return static_cast<int64_t>(size);
}

Error arange_fill(const EValue& start, const EValue& end, const EValue& step, Tensor& out,
                  const char* op) {
  TE_RETURN_IF_ERROR(
      check_bounds(start.scalar_as_double(), end.scalar_as_double(), step.scalar_as_double(), op));
  TE_CHECK_OR_RETURN(out.dim() == 1, Error::InvalidArgument, "%s: out must be 1-d, got %d dims",
                     op, out.dim());
  return switch_dtype_only<kRealTypes>(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using Acc = arange_acc_t<T>;
    TE_ASSIGN_OR_RETURN(const int64_t size, arange_size<T>(start, end, step, op));
    const int64_t sizes[] = {size};
    TE_RETURN_IF_ERROR(resize_to(out, sizes));
    const Acc xstart = scalar_to<Acc>(start);
    const Acc xstep = scalar_to<Acc>(step);
    T* data = out.mutable_data_as<T>();
    for (int64_t i = 0; i < size; ++i) {
      data[i] = convert_element<T>(static_cast<Acc>(xstart + xstep * static_cast<Acc>(i)));
    }
    return Error::Ok;
  });
}

}  // namespace

Error arange_start_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const EValue* start, scalar_value_arg(args, 0, "start"));
  TE_ASSIGN_OR_RETURN(const EValue* end, scalar_value_arg(args, 1, "end"));
  TE_ASSIGN_OR_RETURN(const EValue* step, scalar_value_arg(args, 2, "step"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  return arange_fill(*start, *end, *step, *out, "arange.start_out");
}

Error arange_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const EValue* end, scalar_value_arg(args, 0, "end"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  return arange_fill(EValue(int64_t{0}), *end, EValue(int64_t{1}), *out, "arange.out");
}

}  // namespace native
}  // namespace torchedge
