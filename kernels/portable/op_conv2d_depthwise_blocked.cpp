// torchedge::conv2d_depthwise_blocked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     int[] stride, int[] padding, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// out = clamp(depthwise conv2d(input, w, bias, stride, padding), output_min,
// output_max) in the channel-blocked layout (NCHW16c, python/torchedge/
// passes/conv2d_blocked_op.py, the op's definition): one filter per
// channel (groups = channels), no dilation. input is float32 [N, CB, H, W,
// 16], channel c of pixel (h, w) at [n, c / 16, h, w, c % 16]; weight_packed
// is float32 [CB, KH, KW, 16], channel c's tap (kh, kw) at [c / 16, kh, kw,
// c % 16]; bias None or float32 [CB * 16]; out [N, CB, OH, OW, 16] with OH =
// (H + 2 pad_h - KH) / stride_h + 1, OW likewise. Taps outside the input
// contribute nothing. This reference sums each lane's taps in (kh, kw)
// order in float32, adds the bias, then clamps (NaN stays NaN); the
// optimized kernel fuses each multiply-add and comes here for what it
// declines. Any dim order.
// Errors: non-float32 or wrongly shaped tensors (named), an empty map or
// channel dim, stride not 1 or 2 values >= 1, padding not 1 or 2 values
// >= 0, a padded input smaller than the filter, a NaN bound or output_min >
// output_max, input, weight_packed or bias overlapping out.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kBlock = 16;  // channels per blocked vector
constexpr const char* kOp = "conv2d_depthwise_blocked.out";

struct Arguments {
  const Tensor* x = nullptr;
  const Tensor* w = nullptr;
  const Tensor* bias = nullptr;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  float lo = 0.0f, hi = 0.0f;
  Tensor* out = nullptr;
};

Error check_tensors(const Arguments& a) {
  const Tensor& x = *a.x;
  TE_RETURN_IF_ERROR(expect_dtype(x, ScalarType::Float, "conv2d_depthwise_blocked.out: input"));
  TE_CHECK_OR_RETURN(x.dim() == 5 && x.size(4) == kBlock, Error::InvalidArgument,
                     "%s: input must be blocked [N, C/16, H, W, 16], got %d dims (last %lld)",
                     kOp, x.dim(), static_cast<long long>(x.dim() > 0 ? x.size(x.dim() - 1) : 0));
  for (int d = 1; d < 4; ++d) {
    TE_CHECK_OR_RETURN(x.size(d) > 0, Error::InvalidArgument,
                       "%s: input dim %d is empty (only the batch dim may be)", kOp, d);
  }
  const Tensor& w = *a.w;
  TE_RETURN_IF_ERROR(
      expect_dtype(w, ScalarType::Float, "conv2d_depthwise_blocked.out: weight_packed"));
  TE_CHECK_OR_RETURN(w.dim() == 4 && w.size(0) == x.size(1) && w.size(1) >= 1 &&
                         w.size(2) >= 1 && w.size(3) == kBlock,
                     Error::InvalidArgument,
                     "%s: weight_packed must be [%lld, KH, KW, 16] (the input's channel blocks), "
                     "got %d dims",
                     kOp, static_cast<long long>(x.size(1)), w.dim());
  if (a.bias != nullptr) {
    TE_RETURN_IF_ERROR(
        expect_dtype(*a.bias, ScalarType::Float, "conv2d_depthwise_blocked.out: bias"));
    TE_CHECK_OR_RETURN(a.bias->dim() == 1 && a.bias->size(0) == x.size(1) * kBlock,
                       Error::InvalidArgument, "%s: bias must be [%lld] (the input's channels)",
                       kOp, static_cast<long long>(x.size(1) * kBlock));
  }
  return expect_dtype(*a.out, ScalarType::Float, "conv2d_depthwise_blocked.out: out");
}

Error read_arguments(Span<EValue*> args, Arguments* a) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(a->x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a->w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(a->bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> stride, int_list_arg(args, 3, "stride"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 4, "padding"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, 5, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, 6, "output_max"));
  TE_ASSIGN_OR_RETURN(a->out, tensor_arg(args, 7, "out"));
  TE_RETURN_IF_ERROR(check_tensors(*a));
  TE_RETURN_IF_ERROR(read_int_pair(stride, kOp, "stride", 1, &a->stride_h, &a->stride_w));
  TE_RETURN_IF_ERROR(read_int_pair(padding, kOp, "padding", 0, &a->pad_h, &a->pad_w));
  const Tensor& x = *a->x;
  const int64_t kh = a->w->size(1), kw = a->w->size(2);
  TE_CHECK_OR_RETURN(x.size(2) + 2 * a->pad_h >= kh && x.size(3) + 2 * a->pad_w >= kw,
                     Error::InvalidArgument,
                     "%s: the padded input (%lld x %lld) is smaller than the %lld x %lld filter",
                     kOp, static_cast<long long>(x.size(2) + 2 * a->pad_h),
                     static_cast<long long>(x.size(3) + 2 * a->pad_w), static_cast<long long>(kh),
                     static_cast<long long>(kw));
  TE_CHECK_OR_RETURN(!std::isnan(lo) && !std::isnan(hi) && lo <= hi, Error::InvalidArgument,
                     "%s: need output_min <= output_max, got %g and %g", kOp, lo, hi);
  a->lo = static_cast<float>(lo);
  a->hi = static_cast<float>(hi);
  const int64_t sizes[5] = {x.size(0), x.size(1), (x.size(2) + 2 * a->pad_h - kh) / a->stride_h + 1,
                            (x.size(3) + 2 * a->pad_w - kw) / a->stride_w + 1, kBlock};
  TE_RETURN_IF_ERROR(resize_to(*a->out, {sizes, 5}));
  TE_CHECK_OR_RETURN(!bytes_overlap(x, *a->out), Error::InvalidArgument,
                     "%s: input must not overlap out", kOp);
  TE_CHECK_OR_RETURN(!bytes_overlap(*a->w, *a->out), Error::InvalidArgument,
                     "%s: weight_packed must not overlap out", kOp);
  TE_CHECK_OR_RETURN(a->bias == nullptr || !bytes_overlap(*a->bias, *a->out),
                     Error::InvalidArgument, "%s: bias must not overlap out", kOp);
  return Error::Ok;
}

// Lane l of output pixel (oh, ow) in channel block (n, cb), before the clamp.
float sum_lane(const Arguments& a, int64_t n, int64_t cb, int64_t oh, int64_t ow, int64_t l) {
  const Tensor& x = *a.x;
  const Tensor& w = *a.w;
  const float* xd = x.data_as<float>() + n * x.stride(0) + cb * x.stride(1) + l * x.stride(4);
  const float* wd = w.data_as<float>() + cb * w.stride(0) + l * w.stride(3);
  float acc = 0.0f;
  for (int64_t kh = 0; kh < w.size(1); ++kh) {
    const int64_t ih = oh * a.stride_h - a.pad_h + kh;
    if (ih < 0 || ih >= x.size(2)) continue;
    for (int64_t kw = 0; kw < w.size(2); ++kw) {
      const int64_t iw = ow * a.stride_w - a.pad_w + kw;
      if (iw < 0 || iw >= x.size(3)) continue;
      acc += xd[ih * x.stride(2) + iw * x.stride(3)] * wd[kh * w.stride(1) + kw * w.stride(2)];
    }
  }
  if (a.bias != nullptr) acc += a.bias->data_as<float>()[(cb * kBlock + l) * a.bias->stride(0)];
  return acc;
}

}  // namespace

Error conv2d_depthwise_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  Arguments a;
  TE_RETURN_IF_ERROR(read_arguments(args, &a));
  Tensor& out = *a.out;
  float* y = out.mutable_data_as<float>();
  for (int64_t n = 0; n < out.size(0); ++n) {
    for (int64_t cb = 0; cb < out.size(1); ++cb) {
      for (int64_t oh = 0; oh < out.size(2); ++oh) {
        for (int64_t ow = 0; ow < out.size(3); ++ow) {
          float* py = y + n * out.stride(0) + cb * out.stride(1) + oh * out.stride(2) +
                      ow * out.stride(3);
          for (int64_t l = 0; l < kBlock; ++l) {
            const float v = sum_lane(a, n, cb, oh, ow, l);
            py[l * out.stride(4)] = min_propagate_nan(max_propagate_nan(v, a.lo), a.hi);
          }
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
