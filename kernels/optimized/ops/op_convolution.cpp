// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: float32, 2-d (4-d tensors), not transposed, input / weight /
// out contiguous NCHW: depthwise (groups == Cin == Cout) by direct loops,
// everything else by SGEMM with implicit im2col, bias fused
// (conv/conv2d.h). Every other case (1-d / 3-d, transposed, other dtypes or
// dim orders, malformed arguments, scratch too small) is handed to the
// portable kernel, which also reports the errors.
#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// Reads an int list of 1 or 2 values into (h, w); false when malformed.
bool read_pair(Span<EValue*> args, size_t index, int64_t min, int64_t* h, int64_t* w) {
  Result<Span<const int64_t>> list = int_list_arg(args, index, "list");
  if (!list.ok() || (list->size() != 1 && list->size() != 2)) return false;
  *h = (*list)[0];
  *w = (*list)[list->size() - 1];
  return *h >= min && *w >= min;
}

// The fast-path geometry, or false when the call is not one this kernel
// takes (the portable kernel then decides, including the error).
bool fast_shape(Span<EValue*> args, Conv2dShape* s) {
  if (args.size() != 10 || !args[0]->is_tensor() || !args[1]->is_tensor() ||
      !args[9]->is_tensor() || !(args[2]->is_tensor() || args[2]->is_none())) {
    return false;
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& w = args[1]->to_tensor();
  const Tensor* bias = args[2]->is_tensor() ? &args[2]->to_tensor() : nullptr;
  const Tensor& out = args[9]->to_tensor();
  Result<bool> transposed = bool_arg(args, 6, "transposed");
  Result<int64_t> groups = int_arg(args, 8, "groups");
  if (!transposed.ok() || transposed.get() || !groups.ok() || groups.get() < 1) return false;
  if (x.dtype() != ScalarType::Float || w.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float || x.dim() != 4 || w.dim() != 4 || !x.is_contiguous() ||
      !w.is_contiguous()) {
    return false;
  }
  s->groups = groups.get();
  s->batch = x.size(0), s->in_channels = x.size(1), s->in_h = x.size(2), s->in_w = x.size(3);
  s->out_channels = w.size(0), s->kernel_h = w.size(2), s->kernel_w = w.size(3);
  if (s->in_channels % s->groups != 0 || s->out_channels % s->groups != 0 ||
      w.size(1) * s->groups != s->in_channels) {
    return false;
  }
  if (bias != nullptr && (bias->dtype() != ScalarType::Float || bias->dim() != 1 ||
                          bias->size(0) != s->out_channels || bias->stride(0) != 1)) {
    return false;
  }
  if (!read_pair(args, 3, 1, &s->stride_h, &s->stride_w) ||
      !read_pair(args, 4, 0, &s->pad_h, &s->pad_w) ||
      !read_pair(args, 5, 1, &s->dilation_h, &s->dilation_w)) {
    return false;
  }
  const int64_t span_h = s->dilation_h * (s->kernel_h - 1) + 1;
  const int64_t span_w = s->dilation_w * (s->kernel_w - 1) + 1;
  if (s->in_h + 2 * s->pad_h < span_h || s->in_w + 2 * s->pad_w < span_w) return false;
  s->out_h = (s->in_h + 2 * s->pad_h - span_h) / s->stride_h + 1;
  s->out_w = (s->in_w + 2 * s->pad_w - span_w) / s->stride_w + 1;
  return true;
}

}  // namespace

Error convolution_out(KernelContext& ctx, Span<EValue*> args) {
  Conv2dShape s;
  if (!fast_shape(args, &s)) return native::convolution_out(ctx, args);
  Tensor& out = args[9]->to_tensor();
  const int64_t sizes[] = {s.batch, s.out_channels, s.out_h, s.out_w};
  TE_RETURN_IF_ERROR(resize_to(out, sizes));
  if (!out.is_contiguous()) return native::convolution_out(ctx, args);
  const float* x = args[0]->to_tensor().data_as<float>();
  const float* w = args[1]->to_tensor().data_as<float>();
  const float* b = args[2]->is_tensor() ? args[2]->to_tensor().data_as<float>() : nullptr;
  float* y = out.mutable_data_as<float>();
  Error err = Error::NotSupported;
  if (s.groups == s.in_channels && s.out_channels == s.in_channels) {
    err = conv2d_depthwise(ctx, s, x, w, b, y);
  } else {
    err = conv2d_gemm(ctx, s, x, w, b, y);
  }
  if (err == Error::NotSupported || err == Error::MemoryAllocationFailed) {
    return native::convolution_out(ctx, args);
  }
  return err;
}

}  // namespace optimized
}  // namespace torchedge
