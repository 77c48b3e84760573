// torchedge::conv2d_winograd.out(Tensor input, Tensor filter_u, Tensor? bias,
//     Tensor? residual, int[] padding, float output_min, float output_max, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// out = clamp(conv2d(input, g, bias, stride 1, padding) (+ residual),
// output_min, output_max): a float32 3x3 convolution, one group, no
// dilation, whose filters were stored Winograd-transformed ahead of time
// (python/torchedge/passes/winograd_filters.py): filter_u [16, Cout, Cin]
// holds U = G g G^T per filter, point xi = 4 i + j at filter_u[xi][co][ci].
// This reference recovers each filter as g = H U H^T, H = [1 0 0 0; 0 1 -1 0;
// 0 0 0 1] (rows first, then columns, in float32: the op's definition, as
// python/torchedge/passes/conv2d_winograd_op.py's eager reference) and sums
// the direct convolution, then adds the residual and clamps as
// conv2d_add_clamp does (NaN stays NaN). The optimized kernel computes the
// Winograd form itself and comes here for what it declines. Errors:
// non-float32 or wrongly shaped tensors (named), padding not 1 or 2 values
// >= 0, a padded input smaller than 3x3, a NaN bound or output_min >
// output_max, a residual overlapping out.
#include <cmath>

#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/winograd_filter.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kPoints = 16;
constexpr const char* kOp = "conv2d_winograd.out";

struct Arguments {
  const Tensor* x = nullptr;
  const Tensor* u = nullptr;
  const Tensor* bias = nullptr;
  const Tensor* residual = nullptr;
  int64_t pad_h = 0, pad_w = 0;
  float lo = 0.0f, hi = 0.0f;
  Tensor* out = nullptr;
};

Error read_arguments(Span<EValue*> args, Arguments* a) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(a->x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a->u, tensor_arg(args, 1, "filter_u"));
  TE_ASSIGN_OR_RETURN(a->bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(a->residual, optional_tensor_arg(args, 3, "residual"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 4, "padding"));
  TE_ASSIGN_OR_RETURN(double lo, double_arg(args, 5, "output_min"));
  TE_ASSIGN_OR_RETURN(double hi, double_arg(args, 6, "output_max"));
  TE_ASSIGN_OR_RETURN(a->out, tensor_arg(args, 7, "out"));
  const Tensor& x = *a->x;
  TE_CHECK_OR_RETURN(x.dim() == 4, Error::InvalidArgument,
                     "%s: input must be 4-d [N, C, H, W], got %d dims", kOp, x.dim());
  TE_RETURN_IF_ERROR(expect_dtype(x, ScalarType::Float, "conv2d_winograd.out: input"));
  TE_RETURN_IF_ERROR(expect_dtype(*a->u, ScalarType::Float, "conv2d_winograd.out: filter_u"));
  TE_CHECK_OR_RETURN(a->u->dim() == 3 && a->u->size(0) == kPoints && a->u->size(2) == x.size(1) &&
                         a->u->is_contiguous(),
                     Error::InvalidArgument,
                     "%s: filter_u must be a contiguous [16, Cout, %lld] (the input's channels)",
                     kOp, static_cast<long long>(x.size(1)));
  const int64_t cout = a->u->size(1);
  if (a->bias != nullptr) {
    TE_RETURN_IF_ERROR(expect_dtype(*a->bias, ScalarType::Float, "conv2d_winograd.out: bias"));
    TE_CHECK_OR_RETURN(a->bias->dim() == 1 && a->bias->size(0) == cout, Error::InvalidArgument,
                       "%s: bias must be [%lld]", kOp, static_cast<long long>(cout));
  }
  TE_CHECK_OR_RETURN(padding.size() == 1 || padding.size() == 2, Error::InvalidArgument,
                     "%s: padding must have 1 or 2 values, got %zu", kOp, padding.size());
  a->pad_h = padding[0];
  a->pad_w = padding[padding.size() - 1];
  TE_CHECK_OR_RETURN(a->pad_h >= 0 && a->pad_w >= 0, Error::InvalidArgument,
                     "%s: padding must be >= 0", kOp);
  TE_CHECK_OR_RETURN(x.size(2) + 2 * a->pad_h >= 3 && x.size(3) + 2 * a->pad_w >= 3,
                     Error::InvalidArgument, "%s: the padded input is smaller than the 3x3 filter",
                     kOp);
  TE_CHECK_OR_RETURN(!std::isnan(lo) && !std::isnan(hi) && lo <= hi, Error::InvalidArgument,
                     "%s: need output_min <= output_max, got %g and %g", kOp, lo, hi);
  a->lo = static_cast<float>(lo);
  a->hi = static_cast<float>(hi);
  TE_RETURN_IF_ERROR(expect_dtype(*a->out, ScalarType::Float, "conv2d_winograd.out: out"));
  const int64_t sizes[4] = {x.size(0), cout, x.size(2) + 2 * a->pad_h - 2,
                            x.size(3) + 2 * a->pad_w - 2};
  TE_RETURN_IF_ERROR(resize_to(*a->out, {sizes, 4}));
  TE_CHECK_OR_RETURN(a->out->is_contiguous(), Error::InvalidArgument,
                     "%s: out must be contiguous", kOp);
  if (a->residual != nullptr) {
    const Tensor& r = *a->residual;
    TE_RETURN_IF_ERROR(expect_dtype(r, ScalarType::Float, "conv2d_winograd.out: residual"));
    bool same = r.dim() == 4 && r.is_contiguous();
    for (int d = 0; same && d < 4; ++d) same = r.size(d) == sizes[d];
    TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                       "%s: residual must be a contiguous [%lld, %lld, %lld, %lld] (the output)",
                       kOp, static_cast<long long>(sizes[0]), static_cast<long long>(sizes[1]),
                       static_cast<long long>(sizes[2]), static_cast<long long>(sizes[3]));
    TE_CHECK_OR_RETURN(!bytes_overlap(r, *a->out), Error::InvalidArgument,
                       "%s: residual must not overlap out", kOp);
  }
  return Error::Ok;
}

}  // namespace

Error conv2d_winograd_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  Arguments a;
  TE_RETURN_IF_ERROR(read_arguments(args, &a));
  const Tensor& x = *a.x;
  const int64_t batch = x.size(0), cin = x.size(1), in_h = x.size(2), in_w = x.size(3);
  const int64_t cout = a.u->size(1), out_h = a.out->size(2), out_w = a.out->size(3);
  const int64_t plane = cout * cin;  // between two points of one filter in filter_u
  const float* xd = x.data_as<float>();
  const float* ud = a.u->data_as<float>();
  float* yd = a.out->mutable_data_as<float>();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t co = 0; co < cout; ++co) {
      float* y = yd + (n * cout + co) * out_h * out_w;
      const float b = a.bias == nullptr ? 0.0f : a.bias->data_as<float>()[co * a.bias->stride(0)];
      for (int64_t i = 0; i < out_h * out_w; ++i) y[i] = b;
      for (int64_t ci = 0; ci < cin; ++ci) {
        float g[9];
        filter_from_u(ud + co * cin + ci, plane, g);
        const float* xc = xd + n * x.stride(0) + ci * x.stride(1);
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const float w = g[kh * 3 + kw];
            for (int64_t oh = 0; oh < out_h; ++oh) {
              const int64_t ih = oh + kh - a.pad_h;
              if (ih < 0 || ih >= in_h) continue;
              for (int64_t ow = 0; ow < out_w; ++ow) {
                const int64_t iw = ow + kw - a.pad_w;
                if (iw < 0 || iw >= in_w) continue;
                y[oh * out_w + ow] += w * xc[ih * x.stride(2) + iw * x.stride(3)];
              }
            }
          }
        }
      }
    }
  }
  const size_t count = static_cast<size_t>(a.out->numel());
  if (a.residual != nullptr) {
    const float* r = a.residual->data_as<float>();
    for (size_t i = 0; i < count; ++i) yd[i] += r[i];
  }
  for (size_t i = 0; i < count; ++i) {
    yd[i] = min_propagate_nan(max_propagate_nan(yd[i], a.lo), a.hi);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
