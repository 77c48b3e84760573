// torchedge::conv2d_clamp.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int groups, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
// torchedge::conv2d_add_clamp.out(Tensor input, Tensor weight, Tensor? bias,
//     Tensor residual, int[] stride, int[] padding, int[] dilation, int groups,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: the float32 convolution fast path of aten::convolution.out
// (conv/conv2d_call.h) with the residual added and the clamp applied where the
// bias is added (GEMM) or before each output store (depthwise; its residual
// takes one more pass), so neither costs a pass of its own over memory. The
// result is bit-identical to the optimized convolution followed by aten::add.out
// and aten::hardtanh.out. Everything the fast path declines, and every
// malformed call, goes to the portable kernel.
#include "kernels/optimized/conv/conv2d_call.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// The fast path's output range from (output_min, output_max) at `lo_index`,
// or false (NaN bounds, min > max, malformed: the portable kernel's error).
bool read_clamp(Span<EValue*> args, size_t lo_index, Conv2dClamp* clamp) {
  Result<double> lo = double_arg(args, lo_index, "output_min");
  Result<double> hi = double_arg(args, lo_index + 1, "output_max");
  if (!lo.ok() || !hi.ok() || !(lo.get() <= hi.get())) return false;
  clamp->min = static_cast<float>(lo.get());
  clamp->max = static_cast<float>(hi.get());
  return true;
}

// The residual when the fast path can read it in place: a dense float32
// tensor of the output's shape that does not overlap out (the GEMM writes
// partial sums into out before the residual is read); else null.
const float* fast_residual(Span<EValue*> args, size_t index, size_t out_index,
                           const Conv2dShape& s) {
  if (!args[index]->is_tensor() || !args[out_index]->is_tensor()) return nullptr;
  const Tensor& r = args[index]->to_tensor();
  const int64_t sizes[] = {s.batch, s.out_channels, s.out_h, s.out_w};
  if (r.dtype() != ScalarType::Float || r.dim() != 4 || !r.is_contiguous()) return nullptr;
  for (int d = 0; d < 4; ++d) {
    if (r.size(d) != sizes[d]) return nullptr;
  }
  if (r.data() == nullptr || bytes_overlap(r, args[out_index]->to_tensor())) return nullptr;
  return r.data_as<float>();
}

}  // namespace

Error conv2d_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr Conv2dArgs kAt{0, 1, 2, 3, 4, 5, 6, 9};
  if (args.size() != 10) return native::conv2d_clamp_out(ctx, args);
  Conv2dClamp clamp;
  Conv2dShape s;
  if (!read_clamp(args, 7, &clamp) || !conv2d_fast_shape(args, kAt, &s)) {
    return native::conv2d_clamp_out(ctx, args);
  }
  bool declined = false;
  TE_RETURN_IF_ERROR(run_conv2d_fast(ctx, args, kAt, s, clamp, nullptr, &declined));
  return declined ? native::conv2d_clamp_out(ctx, args) : Error::Ok;
}

Error conv2d_add_clamp_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr Conv2dArgs kAt{0, 1, 2, 4, 5, 6, 7, 10};
  constexpr size_t kResidual = 3;
  if (args.size() != 11) return native::conv2d_add_clamp_out(ctx, args);
  Conv2dClamp clamp;
  Conv2dShape s;
  if (!read_clamp(args, 8, &clamp) || !conv2d_fast_shape(args, kAt, &s)) {
    return native::conv2d_add_clamp_out(ctx, args);
  }
  const float* residual = fast_residual(args, kResidual, kAt.out, s);
  if (residual == nullptr) return native::conv2d_add_clamp_out(ctx, args);
  bool declined = false;
  TE_RETURN_IF_ERROR(run_conv2d_fast(ctx, args, kAt, s, clamp, residual, &declined));
  return declined ? native::conv2d_add_clamp_out(ctx, args) : Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
