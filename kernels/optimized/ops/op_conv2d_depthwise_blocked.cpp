// torchedge::conv2d_depthwise_blocked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     int[] stride, int[] padding, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Optimized: the channel-blocked depthwise convolution (conv/
// depthwise_blocked.h) on dense float32 operands, bias and clamp on its
// accumulators. The portable kernel takes every call the fast path
// declines: no AVX2, non-contiguous or overlapping operands, empty tensors
// and malformed arguments (it reports them).
#include "kernels/optimized/conv/depthwise_blocked.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kBlock = 16;
constexpr size_t kOut = 7;

struct FastCall {
  DepthwiseBlockedShape s;
  Conv2dClamp clamp;
  const float* bias = nullptr;
};

// A 1- or 2-value int[] argument as (h, w), each >= minimum; false otherwise.
bool read_pair(Span<EValue*> args, size_t index, const char* name, int64_t minimum, int64_t* h,
               int64_t* w) {
  Result<Span<const int64_t>> values = int_list_arg(args, index, name);
  if (!values.ok() || (values->size() != 1 && values->size() != 2)) return false;
  *h = (*values)[0];
  *w = (*values)[values->size() - 1];
  return *h >= minimum && *w >= minimum;
}

// The fast path's geometry, clamp and bias, or false (the portable kernel
// then takes the call, and reports it if it is malformed).
bool fast_call(Span<EValue*> args, FastCall* f) {
  if (args.size() != kOut + 1 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[kOut]->is_tensor()) {
    return false;
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  if (!dense_float(x) || x.numel() == 0 || x.dim() != 5 || x.size(4) != kBlock ||
      !dense_float(w) || w.dim() != 4 || w.size(0) != x.size(1) || w.size(1) < 1 ||
      w.size(2) < 1 || w.size(3) != kBlock) {
    return false;
  }
  DepthwiseBlockedShape& s = f->s;
  s.batch = x.size(0);
  s.blocks = x.size(1);
  s.in_h = x.size(2);
  s.in_w = x.size(3);
  s.kernel_h = w.size(1);
  s.kernel_w = w.size(2);
  if (!read_pair(args, 3, "stride", 1, &s.stride_h, &s.stride_w) ||
      !read_pair(args, 4, "padding", 0, &s.pad_h, &s.pad_w) || s.in_h + 2 * s.pad_h < s.kernel_h ||
      s.in_w + 2 * s.pad_w < s.kernel_w) {
    return false;
  }
  s.out_h = (s.in_h + 2 * s.pad_h - s.kernel_h) / s.stride_h + 1;
  s.out_w = (s.in_w + 2 * s.pad_w - s.kernel_w) / s.stride_w + 1;
  Result<double> lo = double_arg(args, 5, "output_min");
  Result<double> hi = double_arg(args, 6, "output_max");
  if (!lo.ok() || !hi.ok() || !(lo.get() <= hi.get())) return false;  // NaN too
  f->clamp.min = static_cast<float>(lo.get());
  f->clamp.max = static_cast<float>(hi.get());
  if (!args[2]->is_none()) {
    if (!args[2]->is_tensor()) return false;
    const Tensor& b = args[2]->to_tensor();
    if (!dense_float(b) || b.dim() != 1 || b.size(0) != s.blocks * kBlock) return false;
    f->bias = b.data_as<float>();
  }
  return true;
}

}  // namespace

Error conv2d_depthwise_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  FastCall f;
  if (!fast_call(args, &f)) return native::conv2d_depthwise_blocked_out(ctx, args);
  Tensor& out = args[kOut]->to_tensor();
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  const int64_t sizes[] = {f.s.batch, f.s.blocks, f.s.out_h, f.s.out_w, kBlock};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 5}) != Error::Ok ||
      !dense_float(out) || bytes_overlap(out, x) || bytes_overlap(out, w) ||
      (!args[2]->is_none() && bytes_overlap(out, args[2]->to_tensor()))) {
    return native::conv2d_depthwise_blocked_out(ctx, args);
  }
  const Error err = conv2d_depthwise_blocked(f.s, x.data_as<float>(), w.data_as<float>(), f.bias,
                                             out.mutable_data_as<float>(), f.clamp);
  if (err == Error::NotSupported) return native::conv2d_depthwise_blocked_out(ctx, args);
  return err;
}

}  // namespace optimized
}  // namespace torchedge
