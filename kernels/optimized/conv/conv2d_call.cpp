// The boxed-argument side of the optimized 2-D convolutions (see conv2d_call.h).
#include "kernels/optimized/conv/conv2d_call.h"

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// Reads an int list of `size` values (1 or 2; 0: either) into (h, w);
// false when malformed.
bool read_pair(Span<EValue*> args, size_t index, int64_t min, int64_t* h, int64_t* w,
               size_t size = 0) {
  Result<Span<const int64_t>> list = int_list_arg(args, index, "list");
  if (!list.ok() || (list->size() != 1 && list->size() != 2)) return false;
  if (size != 0 && list->size() != size) return false;
  *h = (*list)[0];
  *w = (*list)[list->size() - 1];
  return *h >= min && *w >= min;
}

// y[i] = clamp(y[i] + residual[i]) after the depthwise loops, which fuse
// only the clamp (the zoo's depthwise layers have no residual; this keeps
// the op correct for any model at one extra pass).
void add_residual(float* y, const float* residual, int64_t count, const Conv2dClamp& clamp) {
  parallel_for(0, count, 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = clamp.apply(y[i] + residual[i]);
  });
}

}  // namespace

bool conv2d_fast_shape(Span<EValue*> args, const Conv2dArgs& at, Conv2dShape* s) {
  if (!args[at.input]->is_tensor() || !args[at.weight]->is_tensor() ||
      !args[at.out]->is_tensor() || !(args[at.bias]->is_tensor() || args[at.bias]->is_none())) {
    return false;
  }
  const Tensor& x = args[at.input]->to_tensor();
  const Tensor& w = args[at.weight]->to_tensor();
  const Tensor* bias = args[at.bias]->is_tensor() ? &args[at.bias]->to_tensor() : nullptr;
  const Tensor& out = args[at.out]->to_tensor();
  Result<int64_t> groups = int_arg(args, at.groups, "groups");
  if (!groups.ok() || groups.get() < 1) return false;
  if (x.dtype() != ScalarType::Float || w.dtype() != ScalarType::Float ||
      out.dtype() != ScalarType::Float || (x.dim() != 4 && x.dim() != 3) || w.dim() != x.dim() ||
      !x.is_contiguous() || !w.is_contiguous()) {
    return false;
  }
  // A 1-d convolution ([N, C, L]) is the 2-d one over a 1 x L plane.
  const bool one_d = x.dim() == 3;
  s->groups = groups.get();
  s->batch = x.size(0), s->in_channels = x.size(1);
  s->in_h = one_d ? 1 : x.size(2), s->in_w = x.size(x.dim() - 1);
  s->out_channels = w.size(0);
  s->kernel_h = one_d ? 1 : w.size(2), s->kernel_w = w.size(w.dim() - 1);
  if (s->in_channels % s->groups != 0 || s->out_channels % s->groups != 0 ||
      w.size(1) * s->groups != s->in_channels) {
    return false;
  }
  if (bias != nullptr && (bias->dtype() != ScalarType::Float || bias->dim() != 1 ||
                          bias->size(0) != s->out_channels || bias->stride(0) != 1)) {
    return false;
  }
  const size_t list_size = one_d ? 1 : 0;
  if (!read_pair(args, at.stride, 1, &s->stride_h, &s->stride_w, list_size) ||
      !read_pair(args, at.padding, 0, &s->pad_h, &s->pad_w, list_size) ||
      !read_pair(args, at.dilation, 1, &s->dilation_h, &s->dilation_w, list_size)) {
    return false;
  }
  if (one_d) s->stride_h = 1, s->pad_h = 0, s->dilation_h = 1;
  const int64_t span_h = s->dilation_h * (s->kernel_h - 1) + 1;
  const int64_t span_w = s->dilation_w * (s->kernel_w - 1) + 1;
  if (s->in_h + 2 * s->pad_h < span_h || s->in_w + 2 * s->pad_w < span_w) return false;
  s->out_h = (s->in_h + 2 * s->pad_h - span_h) / s->stride_h + 1;
  s->out_w = (s->in_w + 2 * s->pad_w - span_w) / s->stride_w + 1;
  return true;
}

Error run_conv2d_fast(KernelContext& ctx, Span<EValue*> args, const Conv2dArgs& at,
                      const Conv2dShape& s, const Conv2dClamp& clamp, const float* residual,
                      bool* declined) {
  *declined = false;
  Tensor& out = args[at.out]->to_tensor();
  const int64_t sizes[] = {s.batch, s.out_channels, s.out_h, s.out_w};
  const bool one_d = args[at.input]->to_tensor().dim() == 3;
  const int64_t sizes_1d[] = {s.batch, s.out_channels, s.out_w};
  if (one_d) {
    TE_RETURN_IF_ERROR(resize_to(out, sizes_1d));
  } else {
    TE_RETURN_IF_ERROR(resize_to(out, sizes));
  }
  if (!out.is_contiguous()) {
    *declined = true;
    return Error::Ok;
  }
  const float* x = args[at.input]->to_tensor().data_as<float>();
  const float* w = args[at.weight]->to_tensor().data_as<float>();
  const float* b = args[at.bias]->is_tensor() ? args[at.bias]->to_tensor().data_as<float>() : nullptr;
  float* y = out.mutable_data_as<float>();
  Error err = Error::NotSupported;
  if (s.groups == s.in_channels && s.out_channels == s.in_channels) {
    err = conv2d_depthwise(ctx, s, x, w, b, y, residual == nullptr ? clamp : Conv2dClamp{});
    if (err == Error::Ok && residual != nullptr) {
      add_residual(y, residual, static_cast<int64_t>(out.numel()), clamp);
    }
  } else {
    err = conv2d_gemm(ctx, s, x, w, b, y, clamp, residual);
  }
  if (err == Error::NotSupported || err == Error::MemoryAllocationFailed) {
    *declined = true;
    return Error::Ok;
  }
  return err;
}

}  // namespace optimized
}  // namespace torchedge
