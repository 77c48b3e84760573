// ops/blocked_conv_operands.h
#include "kernels/optimized/ops/blocked_conv_operands.h"

#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {

bool blocked_clamp_bias_residual(Span<EValue*> args, size_t lo_at, size_t bias_at,
                                 size_t residual_at, size_t out_at, bool out_may_be_residual,
                                 Conv2dFastCall* f) {
  Result<double> lo = double_arg(args, lo_at, "output_min");
  Result<double> hi = double_arg(args, lo_at + 1, "output_max");
  if (!lo.ok() || !hi.ok() || !(lo.get() <= hi.get())) return false;
  f->clamp.min = static_cast<float>(lo.get());
  f->clamp.max = static_cast<float>(hi.get());
  const Conv2dShape& s = f->s;
  if (!args[bias_at]->is_none()) {
    if (!args[bias_at]->is_tensor()) return false;
    const Tensor& b = args[bias_at]->to_tensor();
    if (!dense_float(b) || b.dim() != 1 || b.size(0) != s.out_channels) return false;
    f->bias = b.data_as<float>();
  }
  if (!args[residual_at]->is_none()) {
    if (!args[residual_at]->is_tensor()) return false;
    const Tensor& r = args[residual_at]->to_tensor();
    const int64_t sizes[] = {s.batch, s.out_channels / kConvBlock, s.out_h, s.out_w, kConvBlock};
    if (!dense_float(r) || r.dim() != 5) return false;
    for (int d = 0; d < 5; ++d) {
      if (r.size(d) != sizes[d]) return false;
    }
    const Tensor& out = args[out_at]->to_tensor();
    const bool in_place = out_may_be_residual && out.data() == r.data();
    if (!in_place && bytes_overlap(r, out)) return false;
    f->residual = r.data_as<float>();
  }
  return true;
}

}  // namespace optimized
}  // namespace torchedge
