// torchedge::max_pool2d_blocked.out(Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: dense float32 [N, C / 16, H, W, 16] self and out, not
// overlapping, any window (conv/max_pool2d_blocked.h; ResNet's stem pool
// on the blocked activations). Every other call (other dim orders or
// dtypes, empty tensors, malformed arguments, which it reports) goes to the
// portable kernel; the values are the same bits either way.
#include "kernels/optimized/conv/max_pool2d_blocked.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kBlock = 16;
constexpr const char* kOp = "max_pool2d_blocked.out";

// False when the fast path does not take the call (the portable kernel
// then does); else runs it.
Result<bool> run_fast(Span<EValue*> args) {
  if (args.size() != 7 || !args[0]->is_tensor() || !args[6]->is_tensor()) return false;
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[6]->to_tensor();
  Result<bool> ceil_mode = bool_arg(args, 5, "ceil_mode");
  MaxPoolWindow w;
  if (!ceil_mode.ok() || !dense_float(self) || self.numel() == 0 || self.dim() != 5 ||
      self.size(4) != kBlock || out.dtype() != ScalarType::Float ||
      read_max_pool_window(args, kOp, &w) != Error::Ok) {
    return false;
  }
  BlockedPool2dShape s{self.size(0) * self.size(1), self.size(2), self.size(3), 0, 0,
                       w.kernel[0], w.kernel[1], w.stride[0], w.stride[1], w.padding[0],
                       w.padding[1], w.dilation[0], w.dilation[1]};
  if (pool_output_size(s.in_h, s.kernel_h, s.pad_h, s.stride_h, s.dilation_h, ceil_mode.get(),
                       kOp, &s.out_h) != Error::Ok ||
      pool_output_size(s.in_w, s.kernel_w, s.pad_w, s.stride_w, s.dilation_w, ceil_mode.get(),
                       kOp, &s.out_w) != Error::Ok) {
    return false;
  }
  const int64_t sizes[5] = {self.size(0), self.size(1), s.out_h, s.out_w, kBlock};
  if (resize_to(out, {sizes, 5}) != Error::Ok || !dense_float(out) || out.numel() == 0 ||
      bytes_overlap(self, out)) {
    return false;
  }
  max_pool2d_blocked_f32(s, self.data_as<float>(), out.mutable_data_as<float>());
  return true;
}

}  // namespace

Error max_pool2d_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(bool done, run_fast(args));
  return done ? Error::Ok : native::max_pool2d_blocked_out(ctx, args);
}

}  // namespace optimized
}  // namespace torchedge
