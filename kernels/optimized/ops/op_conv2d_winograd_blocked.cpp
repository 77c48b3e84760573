// torchedge::conv2d_winograd_blocked.out(Tensor input, Tensor filter_u_packed,
//     Tensor? bias, Tensor? residual, int out_channels, int[] padding,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: Winograd F(2x2, 3x3) on channel-blocked tiles
// (conv/winograd_blocked.h) with bias, residual and clamp in the output
// transform. The portable kernel (direct sums with g = H U H^T) takes every
// call the fast path declines: no AVX2, non-contiguous or overlapping
// operands, malformed arguments (it reports them), short temp memory and
// inputs holding an infinity or NaN (the transforms would spread it).
#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/conv/winograd_blocked.h"
#include "kernels/optimized/ops/blocked_conv_operands.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr size_t kOut = 8;

bool fast_call(Span<EValue*> args, Conv2dFastCall* f) {
  for (size_t i : {size_t{0}, size_t{1}, kOut}) {
    if (!args[i]->is_tensor()) return false;
  }
  const Tensor& x = args[0]->to_tensor();  // [N, Cin / 16, H, W, 16]
  const Tensor& u = args[1]->to_tensor();  // [16, ceil(Cout / 64), Cin / 16, 1024]
  if (!dense_float(x) || !dense_float(u) || x.dim() != 5 || x.size(4) != kConvBlock ||
      u.dim() != 4 || u.size(0) != kWinogradPoints || u.size(2) != x.size(1) ||
      u.size(3) != kConvBlock * kConvBlockGroup) {
    return false;
  }
  Result<int64_t> cout = int_arg(args, 4, "out_channels");
  Result<Span<const int64_t>> padding = int_list_arg(args, 5, "padding");
  if (!cout.ok() || !padding.ok() || (padding->size() != 1 && padding->size() != 2)) return false;
  const int64_t co = cout.get();
  if (co < kConvBlock || co % kConvBlock != 0 ||
      u.size(1) != (co + kConvBlockGroup - 1) / kConvBlockGroup) {
    return false;
  }
  const int64_t ph = (*padding)[0], pw = (*padding)[padding->size() - 1];
  if (ph < 0 || pw < 0 || x.size(2) + 2 * ph < 3 || x.size(3) + 2 * pw < 3) return false;
  f->s = Conv2dShape{x.size(0), x.size(1) * kConvBlock, x.size(2), x.size(3), co,
                     x.size(2) + 2 * ph - 2, x.size(3) + 2 * pw - 2, 3, 3, 1, 1, ph, pw,
                     1, 1, 1};
  return blocked_clamp_bias_residual(args, 6, 2, 3, kOut, /*out_may_be_residual=*/false, f);
}

}  // namespace

Error conv2d_winograd_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  Conv2dFastCall f;
  if (args.size() != kOut + 1 || !fast_call(args, &f)) {
    return native::conv2d_winograd_blocked_out(ctx, args);
  }
  Tensor& out = args[kOut]->to_tensor();
  const int64_t sizes[] = {f.s.batch, f.s.out_channels / kConvBlock, f.s.out_h, f.s.out_w,
                           kConvBlock};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 5}) != Error::Ok ||
      !out.is_contiguous() || bytes_overlap(out, args[0]->to_tensor())) {
    return native::conv2d_winograd_blocked_out(ctx, args);
  }
  if (out.numel() == 0) return Error::Ok;
  const Error err = conv2d_winograd_blocked(ctx, f.s, args[0]->to_tensor().data_as<float>(),
                                            args[1]->to_tensor().data_as<float>(), f.bias,
                                            f.residual, out.mutable_data_as<float>(), f.clamp);
  if (err == Error::MemoryAllocationFailed || err == Error::NotSupported) {
    return native::conv2d_winograd_blocked_out(ctx, args);
  }
  return err;
}

}  // namespace optimized
}  // namespace torchedge
