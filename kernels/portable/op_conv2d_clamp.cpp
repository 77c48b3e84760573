// torchedge::conv2d_clamp.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int groups, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
// torchedge::conv2d_add_clamp.out(Tensor input, Tensor weight, Tensor? bias,
//     Tensor residual, int[] stride, int[] padding, int[] dilation, int groups,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// out = clamp(conv2d(input, weight, bias) (+ residual), output_min, output_max):
// a float32 2-D convolution with its activation (and residual add) fused
// (relu: [0, +inf], relu6 and hardtanh: [a, b]; python/torchedge/passes/
// activation_fusion.py makes these calls). Runs aten::convolution.out
// (transposed = false, output_padding = [0, 0]), which checks the geometry,
// then adds the residual and clamps the output in place as aten::add.out and
// aten::hardtanh.out do (NaN stays NaN). Errors: input not a 4-d float32
// tensor, a NaN bound, output_min > output_max; the residual not a
// contiguous float32 tensor of the output's shape, or overlapping out.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error convolution_out(KernelContext& ctx, Span<EValue*> args);

namespace {

// Positions of the arguments shared by both ops (the residual, when there
// is one, comes right after the bias and shifts everything after it).
struct ClampConvArgs {
  size_t stride, padding, dilation, groups, min, max, out;
};

constexpr ClampConvArgs kClampArgs{3, 4, 5, 6, 7, 8, 9};
constexpr ClampConvArgs kAddClampArgs{4, 5, 6, 7, 8, 9, 10};

// Before the convolution writes out: a residual that overlaps out would be
// overwritten (the memory planner never places them together).
Error check_residual(const Tensor& residual, const Tensor& out, const char* op) {
  TE_CHECK_OR_RETURN(residual.dtype() == ScalarType::Float && residual.dim() == 4 &&
                         residual.is_contiguous(),
                     Error::InvalidArgument,
                     "%s: residual must be a contiguous 4-d float32 tensor, got %s with %d dims",
                     op, to_string(residual.dtype()), residual.dim());
  TE_CHECK_OR_RETURN(!bytes_overlap(residual, out), Error::InvalidArgument,
                     "%s: residual must not overlap out", op);
  return Error::Ok;
}

// The convolution, then out = clamp(out (+ residual)) in place.
Error run(KernelContext& ctx, Span<EValue*> args, const ClampConvArgs& at,
          const Tensor* residual, const char* op) {
  TE_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, at.min, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, at.max, "output_max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, at.out, "out"));
  TE_CHECK_OR_RETURN(x->dim() == 4, Error::InvalidArgument,
                     "%s: input must be 4-d [N, C, H, W], got %d dims", op, x->dim());
  TE_CHECK_OR_RETURN(x->dtype() == ScalarType::Float, Error::InvalidArgument,
                     "%s: input must be float32, got %s", op, to_string(x->dtype()));
  TE_CHECK_OR_RETURN(!std::isnan(lo) && !std::isnan(hi) && lo <= hi, Error::InvalidArgument,
                     "%s: need output_min <= output_max, got %g and %g", op, lo, hi);
  if (residual != nullptr) TE_RETURN_IF_ERROR(check_residual(*residual, *out, op));
  // aten::convolution.out's arguments: input, weight, bias, stride, padding,
  // dilation, transposed, output_padding, groups, out.
  EValue zero(int64_t{0});
  EValue* zeros[2] = {&zero, &zero};
  int64_t scratch[2];
  EValue transposed(false);
  EValue output_padding(IntListRef(zeros, scratch, 2));
  EValue* conv_args[10] = {args[0],          args[1],         args[2],
                           args[at.stride],  args[at.padding], args[at.dilation],
                           &transposed,      &output_padding, args[at.groups],
                           args[at.out]};
  TE_RETURN_IF_ERROR(convolution_out(ctx, {conv_args, 10}));
  const float min_v = static_cast<float>(lo), max_v = static_cast<float>(hi);
  float* y = out->mutable_data_as<float>();
  const size_t n = out->numel();
  if (residual != nullptr) {
    bool same = true;
    for (int d = 0; d < 4; ++d) same = same && residual->size(d) == out->size(d);
    TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                       "%s: residual must have the output's shape [%d, %d, %d, %d]", op,
                       out->size(0), out->size(1), out->size(2), out->size(3));
    const float* r = residual->data_as<float>();
    for (size_t i = 0; i < n; ++i) y[i] += r[i];
  }
  for (size_t i = 0; i < n; ++i) {
    y[i] = min_propagate_nan(max_propagate_nan(y[i], min_v), max_v);
  }
  return Error::Ok;
}

}  // namespace

Error conv2d_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  return run(ctx, args, kClampArgs, nullptr, "conv2d_clamp.out");
}

Error conv2d_add_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  TE_ASSIGN_OR_RETURN(const Tensor* residual, tensor_arg(args, 3, "residual"));
  return run(ctx, args, kAddClampArgs, residual, "conv2d_add_clamp.out");
}

}  // namespace native
}  // namespace torchedge
