// torchedge::conv2d_winograd_blocked.out(Tensor input, Tensor filter_u_packed,
//     Tensor? bias, Tensor? residual, int out_channels, int[] padding,
//     float output_min, float output_max, *, Tensor(a!) out) -> Tensor(a!)
//
// torchedge::conv2d_winograd.out on channel-blocked activations (NCHW16c,
// python/torchedge/passes/conv2d_winograd_blocked_op.py, the op's
// definition): out = clamp(conv2d(input, g, bias, stride 1, padding)
// (+ residual), output_min, output_max), a float32 3x3 convolution, one
// group, no dilation. input is float32 [N, Cin / 16, H, W, 16] (any dim
// order); residual and out [N, out_channels / 16, OH, OW, 16], OH = H +
// 2 pad_h - 2, OW likewise. filter_u_packed holds U = G g G^T of every
// filter (conv2d_winograd_op.py's transform_filters, [16, Cout, Cin]) as
// [16, ceil(out_channels / 64), Cin / 16, 1024]: point xi of filter (co,
// ci) at [xi, co / 64, ci / 16, (ci % 16) * 64 + co % 64], for each point
// the packing of conv2d_blocked's 1x1 filters. This reference recovers each
// filter as g = H U H^T (support/winograd_filter.h) and sums the direct
// convolution in float32 in conv2d_blocked's order (input block, tap row,
// tap column, input lane), then rounds as it does: ((sum + bias) +
// residual), then the clamp (NaN stays NaN). So an infinity or NaN in the
// input reaches the outputs that eager's reference reaches. The optimized
// kernel computes the Winograd form and comes here for what it declines
// (non-finite inputs, no scratch memory, CPUs without AVX2); it needs no
// scratch memory itself.
// Errors: non-float32 or wrongly shaped tensors (named), out_channels not
// a positive multiple of 16, padding not 1 or 2 values >= 0, a padded
// input smaller than 3x3, a NaN bound or output_min > output_max, input,
// filter_u_packed, bias or residual overlapping out.
#include "kernels/portable/support/blocked_conv_checks.h"
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/winograd_filter.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kBlock = kChannelBlock;
constexpr int64_t kGroup = 64;   // output channels per packed group
constexpr int64_t kPoints = 16;  // the 4x4 transform
constexpr const char* kOp = "conv2d_winograd_blocked.out";

struct Arguments {
  const Tensor* x = nullptr;
  const Tensor* u = nullptr;
  const Tensor* bias = nullptr;
  const Tensor* residual = nullptr;
  int64_t cout = 0;
  int64_t pad_h = 0, pad_w = 0;
  float lo = 0.0f, hi = 0.0f;
  Tensor* out = nullptr;
};

Error check_filters(const Arguments& a) {
  const Tensor& u = *a.u;
  const int64_t groups = (a.cout + kGroup - 1) / kGroup, cin_blocks = a.x->size(1);
  TE_RETURN_IF_ERROR(
      expect_dtype(u, ScalarType::Float, "conv2d_winograd_blocked.out: filter_u_packed"));
  TE_CHECK_OR_RETURN(u.dim() == 4 && u.size(0) == kPoints && u.size(1) == groups &&
                         u.size(2) == cin_blocks && u.size(3) == kBlock * kGroup &&
                         u.is_contiguous(),
                     Error::InvalidArgument,
                     "%s: filter_u_packed must be a contiguous [16, %lld, %lld, 1024] "
                     "(ceil(out_channels / 64), the input's channel blocks)",
                     kOp, static_cast<long long>(groups), static_cast<long long>(cin_blocks));
  return Error::Ok;
}

Error read_arguments(Span<EValue*> args, Arguments* a) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 9));
  TE_ASSIGN_OR_RETURN(a->x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a->u, tensor_arg(args, 1, "filter_u_packed"));
  TE_ASSIGN_OR_RETURN(a->bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(a->residual, optional_tensor_arg(args, 3, "residual"));
  TE_ASSIGN_OR_RETURN(a->cout, int_arg(args, 4, "out_channels"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 5, "padding"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, 6, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, 7, "output_max"));
  TE_ASSIGN_OR_RETURN(a->out, tensor_arg(args, 8, "out"));
  const Tensor& x = *a->x;
  TE_RETURN_IF_ERROR(check_blocked_input(x, kOp));
  TE_RETURN_IF_ERROR(check_blocked_out_channels(a->cout, kOp));
  TE_RETURN_IF_ERROR(check_filters(*a));
  TE_RETURN_IF_ERROR(read_int_pair(padding, kOp, "padding", 0, &a->pad_h, &a->pad_w));
  TE_RETURN_IF_ERROR(check_padded_input(x, a->pad_h, a->pad_w, 3, 3, kOp));
  TE_RETURN_IF_ERROR(check_blocked_bias(a->bias, a->cout, kOp));
  TE_RETURN_IF_ERROR(read_clamp_bounds(lo, hi, kOp, &a->lo, &a->hi));
  const int64_t sizes[5] = {x.size(0), a->cout / kBlock, x.size(2) + 2 * a->pad_h - 2,
                            x.size(3) + 2 * a->pad_w - 2, kBlock};
  TE_RETURN_IF_ERROR(prepare_blocked_output(x, a->residual, *a->out, sizes, kOp));
  // out accumulates the sums while the filters and bias are still read.
  TE_CHECK_OR_RETURN(!bytes_overlap(*a->u, *a->out), Error::InvalidArgument,
                     "%s: filter_u_packed must not overlap out", kOp);
  TE_CHECK_OR_RETURN(a->bias == nullptr || !bytes_overlap(*a->bias, *a->out),
                     Error::InvalidArgument, "%s: bias must not overlap out", kOp);
  return Error::Ok;
}

// The 3x3 filters from the 16 lanes of input block `cib` to the 16 of
// output block `cob`: g[tap][ci][co], tap = 3 kh + kw.
void block_filters(const Tensor& u, int64_t cob, int64_t cib, float g[9][kBlock][kBlock]) {
  // Output block cob's 16 filters start at lane (cob % 4) * 16 of its group's 64.
  const float* base = u.data_as<float>() + (cob * kBlock / kGroup) * u.stride(1) +
                      cib * u.stride(2) + (cob * kBlock) % kGroup;
  for (int64_t ci = 0; ci < kBlock; ++ci) {
    for (int64_t co = 0; co < kBlock; ++co) {
      float taps[9];
      filter_from_u(base + ci * kGroup + co, u.stride(0), taps);
      for (int tap = 0; tap < 9; ++tap) g[tap][ci][co] = taps[tap];
    }
  }
}

// Adds input block cib of image n, convolved with g, into the sums `y` of
// one output block ([OH, OW, 16], contiguous).
void add_block(const Arguments& a, int64_t n, int64_t cib, const float g[9][kBlock][kBlock],
               float* y) {
  const Tensor& x = *a.x;
  const int64_t in_h = x.size(2), in_w = x.size(3);
  const int64_t out_h = a.out->size(2), out_w = a.out->size(3);
  const float* xb = x.data_as<float>() + n * x.stride(0) + cib * x.stride(1);
  for (int64_t oh = 0; oh < out_h; ++oh) {
    for (int64_t ow = 0; ow < out_w; ++ow) {
      float* acc = y + (oh * out_w + ow) * kBlock;
      for (int64_t kh = 0; kh < 3; ++kh) {
        const int64_t ih = oh + kh - a.pad_h;
        if (ih < 0 || ih >= in_h) continue;
        for (int64_t kw = 0; kw < 3; ++kw) {
          const int64_t iw = ow + kw - a.pad_w;
          if (iw < 0 || iw >= in_w) continue;
          const float* xp = xb + ih * x.stride(2) + iw * x.stride(3);
          for (int64_t ci = 0; ci < kBlock; ++ci) {
            const float v = xp[ci * x.stride(4)];
            const float* w = g[kh * 3 + kw][ci];
            for (int64_t co = 0; co < kBlock; ++co) acc[co] += v * w[co];
          }
        }
      }
    }
  }
}

}  // namespace

Error conv2d_winograd_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  Arguments a;
  TE_RETURN_IF_ERROR(read_arguments(args, &a));
  const int64_t batch = a.out->size(0), cout_blocks = a.out->size(1);
  const int64_t plane = a.out->size(2) * a.out->size(3) * kBlock;  // one output block
  const float* bias = a.bias == nullptr ? nullptr : a.bias->data_as<float>();
  float* yd = a.out->mutable_data_as<float>();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t cob = 0; cob < cout_blocks; ++cob) {
      float* y = yd + (n * cout_blocks + cob) * plane;
      for (int64_t i = 0; i < plane; ++i) y[i] = 0.0f;
      for (int64_t cib = 0; cib < a.x->size(1); ++cib) {
        float g[9][kBlock][kBlock];
        block_filters(*a.u, cob, cib, g);
        add_block(a, n, cib, g, y);
      }
      const float* r =
          a.residual == nullptr ? nullptr : a.residual->data_as<float>() + (y - yd);
      for (int64_t i = 0; i < plane; ++i) {
        float v = y[i];
        if (bias != nullptr) v += bias[(cob * kBlock + i % kBlock) * a.bias->stride(0)];
        if (r != nullptr) v += r[i];
        y[i] = min_propagate_nan(max_propagate_nan(v, a.lo), a.hi);
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
