// torchedge::conv2d_winograd.out(Tensor input, Tensor filter_u, Tensor? bias,
//     Tensor? residual, int[] padding, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Optimized: the Winograd F(2x2, 3x3) convolution on the filters to_pte
// transformed (conv/winograd.h, conv2d_winograd_pretransformed_avx2), with
// bias, residual and clamp in its output transform. The portable kernel (the
// direct convolution with the filters recovered from U) takes every call the
// fast path declines: no AVX2 or TORCHEDGE_WINOGRAD=0, non-contiguous or
// overlapping operands, malformed arguments (it reports them), short temp
// memory, and inputs holding an infinity or NaN (which the transforms would
// spread across a tile; the portable sums propagate them as eager does).
#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/conv/conv2d_call.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
#ifndef TORCHEDGE_NO_X86_SIMD
namespace {

constexpr int64_t kPoints = 16;

// The fast path's geometry, clamp and operands, or false (the portable
// kernel then takes the call, and reports it if it is malformed).
bool fast_call(Span<EValue*> args, Conv2dFastCall* f) {
  for (size_t i : {size_t{0}, size_t{1}, size_t{7}}) {
    if (!args[i]->is_tensor()) return false;
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& u = args[1]->to_tensor();
  if (!dense_float(x) || !dense_float(u) || x.dim() != 4 || u.dim() != 3 ||
      u.size(0) != kPoints || u.size(2) != x.size(1)) {
    return false;
  }
  Result<Span<const int64_t>> padding = int_list_arg(args, 4, "padding");
  Result<double> lo = double_arg(args, 5, "output_min");
  Result<double> hi = double_arg(args, 6, "output_max");
  if (!padding.ok() || (padding->size() != 1 && padding->size() != 2) || !lo.ok() || !hi.ok() ||
      !(lo.get() <= hi.get())) {
    return false;
  }
  const int64_t pad_h = (*padding)[0], pad_w = (*padding)[padding->size() - 1];
  const int64_t cout = u.size(1);
  Conv2dShape& s = f->s;
  s = Conv2dShape{x.size(0), x.size(1), x.size(2), x.size(3), cout, x.size(2) + 2 * pad_h - 2,
                  x.size(3) + 2 * pad_w - 2, 3, 3, 1, 1, pad_h, pad_w, 1, 1, 1};
  if (pad_h < 0 || pad_w < 0 || s.out_h < 1 || s.out_w < 1) return false;
  f->clamp.min = static_cast<float>(lo.get());
  f->clamp.max = static_cast<float>(hi.get());
  if (!args[2]->is_none()) {
    if (!args[2]->is_tensor()) return false;
    const Tensor& b = args[2]->to_tensor();
    if (!dense_float(b) || b.dim() != 1 || b.size(0) != cout) return false;
    f->bias = b.data_as<float>();
  }
  if (!args[3]->is_none()) {
    if (!args[3]->is_tensor()) return false;
    const Tensor& r = args[3]->to_tensor();
    const int64_t sizes[] = {s.batch, s.out_channels, s.out_h, s.out_w};
    if (!dense_float(r) || r.dim() != 4) return false;
    for (int d = 0; d < 4; ++d) {
      if (r.size(d) != sizes[d]) return false;
    }
    if (bytes_overlap(r, args[7]->to_tensor())) return false;
    f->residual = r.data_as<float>();
  }
  return true;
}

}  // namespace
#endif

Error conv2d_winograd_out(KernelContext& ctx, Span<EValue*> args) {
#ifdef TORCHEDGE_NO_X86_SIMD
  return native::conv2d_winograd_out(ctx, args);
#else
  Conv2dFastCall f;
  if (args.size() != 8 || !detail::winograd_pretransformed_available() || !fast_call(args, &f)) {
    return native::conv2d_winograd_out(ctx, args);
  }
  Tensor& out = args[7]->to_tensor();
  const int64_t sizes[] = {f.s.batch, f.s.out_channels, f.s.out_h, f.s.out_w};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 4}) != Error::Ok ||
      !out.is_contiguous() || bytes_overlap(out, args[0]->to_tensor())) {
    return native::conv2d_winograd_out(ctx, args);
  }
  if (out.numel() == 0) return Error::Ok;
  const Error err = detail::conv2d_winograd_pretransformed_avx2(
      ctx, f.s, args[0]->to_tensor().data_as<float>(), args[1]->to_tensor().data_as<float>(),
      f.bias, out.mutable_data_as<float>(), f.clamp, f.residual);
  if (err == Error::MemoryAllocationFailed || err == Error::NotSupported) {
    return native::conv2d_winograd_out(ctx, args);
  }
  return err;
#endif
}

}  // namespace optimized
}  // namespace torchedge
