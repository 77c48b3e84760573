// torchedge::conv2d_blocked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     Tensor? residual, int out_channels, int[] stride, int[] padding,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// torchedge::conv2d_blocked_gelu.out / conv2d_blocked_silu.out (the same
// arguments): then the exact GELU / the SiLU.
//
// Optimized: the channel-blocked direct convolution (conv/conv2d_blocked.h)
// with bias, residual, clamp (and the GELU / SiLU) on its accumulators. The portable kernel
// takes every call the fast path declines: no AVX2, non-contiguous or
// overlapping operands, malformed arguments (it reports them) and short temp
// memory for the padded input copy.
#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/conv/conv2d_call.h"
#include "kernels/optimized/ops/blocked_conv_operands.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr size_t kOut = 9;

// The fast path's geometry, clamp and operands, or false (the portable
// kernel then takes the call, and reports it if it is malformed).
bool fast_call(Span<EValue*> args, Conv2dFastCall* f) {
  for (size_t i : {size_t{0}, size_t{1}, kOut}) {
    if (!args[i]->is_tensor()) return false;
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  // Blocked [N, Cin / 16, H, W, 16], or a first layer's plain [N, Cin < 16, H, W].
  const bool plain = x.dim() == 4;
  if (!dense_float(x) || !dense_float(w) || w.dim() != 5 ||
      w.size(4) != kConvBlock * kConvBlockGroup) {
    return false;
  }
  if (plain ? !(x.size(1) > 0 && x.size(1) < kConvBlock && w.size(1) == 1)
            : !(x.dim() == 5 && x.size(4) == kConvBlock && w.size(1) == x.size(1))) {
    return false;
  }
  const int64_t cin = plain ? x.size(1) : x.size(1) * kConvBlock;
  Result<int64_t> cout = int_arg(args, 4, "out_channels");
  Result<Span<const int64_t>> stride = int_list_arg(args, 5, "stride");
  Result<Span<const int64_t>> padding = int_list_arg(args, 6, "padding");
  if (!cout.ok() || !stride.ok() || !padding.ok() || (stride->size() != 1 && stride->size() != 2) ||
      (padding->size() != 1 && padding->size() != 2)) {
    return false;
  }
  const int64_t co = cout.get();
  if (co < kConvBlock || co % kConvBlock != 0 ||
      w.size(0) != (co + kConvBlockGroup - 1) / kConvBlockGroup) {
    return false;
  }
  const int64_t sh = (*stride)[0], sw = (*stride)[stride->size() - 1];
  const int64_t ph = (*padding)[0], pw = (*padding)[padding->size() - 1];
  const int64_t kh = w.size(2), kw = w.size(3);
  if (sh < 1 || sw < 1 || ph < 0 || pw < 0 || kh < 1 || kw < 1) return false;
  Conv2dShape& s = f->s;
  s = Conv2dShape{x.size(0), cin, x.size(2), x.size(3), co,
                  (x.size(2) + 2 * ph - kh) / sh + 1, (x.size(3) + 2 * pw - kw) / sw + 1,
                  kh, kw, sh, sw, ph, pw, 1, 1, 1};
  if (x.size(2) + 2 * ph < kh || x.size(3) + 2 * pw < kw) return false;
  return blocked_clamp_bias_residual(args, 7, 2, 3, kOut, /*out_may_be_residual=*/true, f);
}


using PortableFn = Error (*)(KernelContext&, Span<EValue*>);

Error run(KernelContext& ctx, Span<EValue*> args, BlockedActivation activation,
          PortableFn portable) {
  Conv2dFastCall f;
  if (args.size() != kOut + 1 || !fast_call(args, &f)) return portable(ctx, args);
  Tensor& out = args[kOut]->to_tensor();
  const int64_t sizes[] = {f.s.batch, f.s.out_channels / kConvBlock, f.s.out_h, f.s.out_w,
                           kConvBlock};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 5}) != Error::Ok ||
      !out.is_contiguous() || bytes_overlap(out, args[0]->to_tensor())) {
    return portable(ctx, args);
  }
  if (out.numel() == 0) return Error::Ok;
  const Error err = conv2d_blocked(ctx, f.s, args[0]->to_tensor().data_as<float>(),
                                   args[1]->to_tensor().data_as<float>(), f.bias, f.residual,
                                   out.mutable_data_as<float>(), f.clamp, activation);
  if (err == Error::MemoryAllocationFailed || err == Error::NotSupported) {
    return portable(ctx, args);
  }
  return err;
}

}  // namespace

Error conv2d_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  return run(ctx, args, BlockedActivation::kNone, &native::conv2d_blocked_out);
}

Error conv2d_blocked_gelu_out(KernelContext& ctx, Span<EValue*> args) {
  return run(ctx, args, BlockedActivation::kGelu, &native::conv2d_blocked_gelu_out);
}

Error conv2d_blocked_silu_out(KernelContext& ctx, Span<EValue*> args) {
  return run(ctx, args, BlockedActivation::kSilu, &native::conv2d_blocked_silu_out);
}

}  // namespace optimized
}  // namespace torchedge
