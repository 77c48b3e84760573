// torchedge::conv2d_blocked.out(Tensor input, Tensor weight_packed, Tensor? bias,
//     Tensor? residual, int out_channels, int[] stride, int[] padding,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// out = clamp(conv2d(input, w, bias, stride, padding) (+ residual),
// output_min, output_max) in the channel-blocked layout (NCHW16c,
// python/torchedge/passes/conv2d_blocked_op.py, the op's definition): input,
// residual and out are float32 [N, C / 16, H, W, 16], element (n, c, h, w)
// at [n, c / 16, h, w, c % 16]; weight_packed holds the [Cout, Cin, KH, KW]
// filters w as [ceil(Cout / 64), ceil(Cin / 16), KH, KW, 1024], element
// (co, ci, kh, kw) at [co / 64, ci / 16, kh, kw, (ci % 16) * 64 + co % 64].
// The input may instead be a plain float32 [N, Cin, H, W] with 0 < Cin < 16
// (a network's first layer: RGB), read as it is, with one packed input
// block (its lanes from Cin on are zeros and never read). One group, no
// dilation. This reference sums the direct convolution of each output pixel
// in float32, then rounds as conv2d_add_clamp does: ((sum + bias) +
// residual), then the clamp (NaN stays NaN). The optimized kernel sums in
// another order and comes here for what it declines. out may be the
// residual itself (the memory planner writes a residual block's output over
// its residual): each output value is stored right after its residual
// value is read, and nothing else reads it.
// Errors: non-float32 or wrongly shaped tensors (named; a 4-d input of 16
// or more channels must be blocked), out_channels not a positive multiple
// of 16, stride not 1 or 2 values >= 1, padding not 1 or 2 values >= 0, a
// padded input smaller than the filter, a NaN bound or output_min >
// output_max, input overlapping out, residual overlapping out other than
// as out itself.
//
// torchedge::conv2d_blocked_gelu.out (the same arguments) is
// gelu(conv2d_blocked(...)) with the exact GELU, x/2 (1 + erf(x / sqrt 2))
// as aten::gelu computes it in float, applied to each value after its clamp;
// torchedge::conv2d_blocked_silu.out is silu(conv2d_blocked(...)),
// x / (1 + exp(-x)) as aten::silu computes it.
#include <cmath>

#include "kernels/portable/support/blocked_conv_checks.h"
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/gelu.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kBlock = kChannelBlock;
constexpr int64_t kGroup = 64;  // output channels per packed weight group
constexpr const char* kOp = "conv2d_blocked.out";

struct Arguments {
  const Tensor* x = nullptr;
  const Tensor* w = nullptr;
  const Tensor* bias = nullptr;
  const Tensor* residual = nullptr;
  int64_t cout = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  float lo = 0.0f, hi = 0.0f;
  Tensor* out = nullptr;
};

Error check_input_and_weight(const Arguments& a) {
  const Tensor& x = *a.x;
  if (x.dim() == 4) {
    TE_RETURN_IF_ERROR(expect_dtype(x, ScalarType::Float, "conv2d_blocked.out: input"));
    TE_CHECK_OR_RETURN(x.size(1) > 0 && x.size(1) < kBlock, Error::InvalidArgument,
                       "%s: input must be blocked [N, C/16, H, W, 16] or plain [N, C, H, W] "
                       "with 0 < C < 16, got C = %lld",
                       kOp, static_cast<long long>(x.size(1)));
  } else {
    TE_RETURN_IF_ERROR(check_blocked_input(x, kOp));
  }
  TE_RETURN_IF_ERROR(check_blocked_out_channels(a.cout, kOp));
  const Tensor& w = *a.w;
  const int64_t groups = (a.cout + kGroup - 1) / kGroup;
  const int64_t cin_blocks = x.dim() == 4 ? 1 : x.size(1);
  TE_RETURN_IF_ERROR(expect_dtype(w, ScalarType::Float, "conv2d_blocked.out: weight_packed"));
  TE_CHECK_OR_RETURN(w.dim() == 5 && w.size(0) == groups && w.size(1) == cin_blocks &&
                         w.size(2) >= 1 && w.size(3) >= 1 && w.size(4) == kBlock * kGroup &&
                         w.is_contiguous(),
                     Error::InvalidArgument,
                     "%s: weight_packed must be a contiguous [%lld, %lld, KH, KW, 1024] "
                     "(ceil(out_channels / 64), the input's channel blocks: 1 for a plain input)",
                     kOp, static_cast<long long>(groups), static_cast<long long>(cin_blocks));
  return Error::Ok;
}

Error read_arguments(Span<EValue*> args, Arguments* a) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  TE_ASSIGN_OR_RETURN(a->x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a->w, tensor_arg(args, 1, "weight_packed"));
  TE_ASSIGN_OR_RETURN(a->bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(a->residual, optional_tensor_arg(args, 3, "residual"));
  TE_ASSIGN_OR_RETURN(a->cout, int_arg(args, 4, "out_channels"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> stride, int_list_arg(args, 5, "stride"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 6, "padding"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, 7, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, 8, "output_max"));
  TE_ASSIGN_OR_RETURN(a->out, tensor_arg(args, 9, "out"));
  TE_RETURN_IF_ERROR(check_input_and_weight(*a));
  TE_RETURN_IF_ERROR(read_int_pair(stride, kOp, "stride", 1, &a->stride_h, &a->stride_w));
  TE_RETURN_IF_ERROR(read_int_pair(padding, kOp, "padding", 0, &a->pad_h, &a->pad_w));
  const Tensor& x = *a->x;
  const int64_t kh = a->w->size(2), kw = a->w->size(3);
  TE_RETURN_IF_ERROR(check_padded_input(x, a->pad_h, a->pad_w, kh, kw, kOp));
  TE_RETURN_IF_ERROR(check_blocked_bias(a->bias, a->cout, kOp));
  TE_RETURN_IF_ERROR(read_clamp_bounds(lo, hi, kOp, &a->lo, &a->hi));
  const int64_t sizes[5] = {x.size(0), a->cout / kBlock,
                            (x.size(2) + 2 * a->pad_h - kh) / a->stride_h + 1,
                            (x.size(3) + 2 * a->pad_w - kw) / a->stride_w + 1, kBlock};
  return prepare_blocked_output(x, a->residual, *a->out, sizes, kOp, /*out_may_be_residual=*/true);
}

// The input as channel blocks of `lanes` channels: the blocked layout has
// C / 16 blocks of 16, a plain NCHW input one block of its C channels.
struct InputBlocks {
  int64_t blocks, lanes;
  int64_t stride_n, stride_block, stride_h, stride_w, stride_lane;
};

InputBlocks input_blocks(const Tensor& x) {
  if (x.dim() == 4) return {1, x.size(1), x.stride(0), 0, x.stride(2), x.stride(3), x.stride(1)};
  return {x.size(1), kBlock, x.stride(0), x.stride(1), x.stride(2), x.stride(3), x.stride(4)};
}

// The 16 sums of output block `cob` at pixel (oh, ow) of image n.
void sum_pixel(const Arguments& a, const InputBlocks& in, int64_t n, int64_t cob, int64_t oh,
               int64_t ow, float acc[kBlock]) {
  const int64_t in_h = a.x->size(2), in_w = a.x->size(3);
  const int64_t kh_size = a.w->size(2), kw_size = a.w->size(3);
  const float* xd = a.x->data_as<float>();
  // This block's 16 filters start at lane (cob % 4) * 16 of its group's 64.
  const float* wg = a.w->data_as<float>() + (cob * kBlock / kGroup) * a.w->stride(0) +
                    (cob * kBlock) % kGroup;
  for (int64_t i = 0; i < kBlock; ++i) acc[i] = 0.0f;
  for (int64_t cib = 0; cib < in.blocks; ++cib) {
    for (int64_t kh = 0; kh < kh_size; ++kh) {
      const int64_t ih = oh * a.stride_h + kh - a.pad_h;
      if (ih < 0 || ih >= in_h) continue;
      for (int64_t kw = 0; kw < kw_size; ++kw) {
        const int64_t iw = ow * a.stride_w + kw - a.pad_w;
        if (iw < 0 || iw >= in_w) continue;
        const float* xp = xd + n * in.stride_n + cib * in.stride_block + ih * in.stride_h +
                          iw * in.stride_w;
        const float* wp = wg + cib * a.w->stride(1) + kh * a.w->stride(2) + kw * a.w->stride(3);
        for (int64_t ci = 0; ci < in.lanes; ++ci) {
          const float v = xp[ci * in.stride_lane];
          const float* wc = wp + ci * kGroup;
          for (int64_t co = 0; co < kBlock; ++co) acc[co] += v * wc[co];
        }
      }
    }
  }
}


enum class Activation { kNone, kGelu, kSilu };

float activate(Activation activation, float v) {
  switch (activation) {
    case Activation::kGelu:
      return gelu_exact(v);
    case Activation::kSilu:
      return v / (1.0f + std::exp(-v));
    case Activation::kNone:
      break;
  }
  return v;
}

// The shared body: `activation` after the clamp.
Error conv2d_blocked(Span<EValue*> args, Activation activation) {
  Arguments a;
  TE_RETURN_IF_ERROR(read_arguments(args, &a));
  const int64_t batch = a.out->size(0), cout_blocks = a.out->size(1);
  const int64_t out_h = a.out->size(2), out_w = a.out->size(3);
  const float* bias = a.bias == nullptr ? nullptr : a.bias->data_as<float>();
  const float* residual = a.residual == nullptr ? nullptr : a.residual->data_as<float>();
  float* yd = a.out->mutable_data_as<float>();
  const InputBlocks in = input_blocks(*a.x);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t cob = 0; cob < cout_blocks; ++cob) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          float acc[kBlock];
          sum_pixel(a, in, n, cob, oh, ow, acc);
          const int64_t at = (((n * cout_blocks + cob) * out_h + oh) * out_w + ow) * kBlock;
          for (int64_t i = 0; i < kBlock; ++i) {
            float v = acc[i];
            if (bias != nullptr) v += bias[(cob * kBlock + i) * a.bias->stride(0)];
            if (residual != nullptr) v += residual[at + i];
            v = min_propagate_nan(max_propagate_nan(v, a.lo), a.hi);
            yd[at + i] = activate(activation, v);
          }
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace

Error conv2d_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  return conv2d_blocked(args, Activation::kNone);
}

Error conv2d_blocked_gelu_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  return conv2d_blocked(args, Activation::kGelu);
}

Error conv2d_blocked_silu_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  return conv2d_blocked(args, Activation::kSilu);
}

}  // namespace native
}  // namespace torchedge
