// torchedge::group_norm_blocked.out(Tensor input, Tensor? weight, Tensor? bias, int group,
//     float eps, bool gelu, *, Tensor(a!) out) -> Tensor(a!)
//
// to_blocked(act(group_norm(input))) in one pass (python/torchedge/passes/
// group_norm_blocked_op.py): input float32 [N, C, L] or [N, C, H, W],
// contiguous, C a multiple of 16 and of `group`; out [N, C / 16, 1, L, 16]
// or [N, C / 16, H, W, 16], element (n, c, s) at [n, c / 16, s, c % 16]; act
// the exact GELU when `gelu` is set. Statistics as aten::native_group_norm's
// portable kernel (two passes in double, biased variance), the affine step
// folded the same way (scale = rstd * weight[c], shift = bias[c] - mean *
// scale, in double, applied in float), so each value is that kernel's
// followed by the portable GELU. Errors: wrong dtypes or ranks, C not a
// multiple of 16 or of group, weight / bias not [C], a strided input, out
// overlapping the input.
#include <cmath>

#include "kernels/portable/support/gelu.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/normalization.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "group_norm_blocked.out";
constexpr int64_t kBlock = 16;

}  // namespace

Error group_norm_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Tensor* w, optional_tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* b, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(int64_t groups, int_arg(args, 3, "group"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 4, "eps"));
  TE_ASSIGN_OR_RETURN(bool gelu, bool_arg(args, 5, "gelu"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*x, ScalarType::Float, "group_norm_blocked.out: input"));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "group_norm_blocked.out: out"));
  TE_CHECK_OR_RETURN((x->dim() == 3 || x->dim() == 4) && x->size(1) % kBlock == 0,
                     Error::InvalidArgument,
                     "%s: input must be [N, C, L] or [N, C, H, W] with C a multiple of 16, got "
                     "%d dims (C %lld)",
                     kOp, x->dim(), static_cast<long long>(x->dim() > 1 ? x->size(1) : 0));
  const int64_t n = x->size(0), c = x->size(1);
  TE_CHECK_OR_RETURN(groups > 0 && c % groups == 0, Error::InvalidArgument,
                     "%s: expected the number of channels (%lld) to be divisible by the number "
                     "of groups (%lld)",
                     kOp, static_cast<long long>(c), static_cast<long long>(groups));
  TE_CHECK_OR_RETURN(x->is_contiguous(), Error::InvalidArgument,
                     "%s: input must be contiguous", kOp);
  TE_RETURN_IF_ERROR(check_norm_param(w, x->dtype(), c, kOp, "weight"));
  TE_RETURN_IF_ERROR(check_norm_param(b, x->dtype(), c, kOp, "bias"));
  const int64_t h = x->dim() == 3 ? 1 : x->size(2), width = x->size(x->dim() - 1);
  const int64_t sizes[5] = {n, c / kBlock, h, width, kBlock};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 5}));
  TE_CHECK_OR_RETURN(!bytes_overlap(*x, *out), Error::InvalidArgument,
                     "%s: input must not overlap out", kOp);

  const int64_t positions = h * width, per_group = c / groups;
  const double count = static_cast<double>(per_group * positions);
  const float* in = x->data_as<float>();
  float* y = out->mutable_data_as<float>();
  for (int64_t img = 0; img < n; ++img) {
    for (int64_t g = 0; g < groups; ++g) {
      const float* run = in + (img * c + g * per_group) * positions;
      const int64_t length = per_group * positions;
      double mu = 0, inv = 0;
      two_pass_moments(
          [&](auto&& f) {
            for (int64_t k = 0; k < length; ++k) f(static_cast<double>(run[k]));
          },
          count, eps, &mu, &inv);
      for (int64_t ch = g * per_group; ch < (g + 1) * per_group; ++ch) {
        const double gamma = w == nullptr ? 1.0 : load_as_double(*w, ch * w->stride(0));
        const double beta = b == nullptr ? 0.0 : load_as_double(*b, ch * b->stride(0));
        const float scale = static_cast<float>(inv * gamma);
        const float shift = static_cast<float>(beta - mu * inv * gamma);
        const float* row = in + (img * c + ch) * positions;
        float* dst = y + ((img * (c / kBlock) + ch / kBlock) * positions) * kBlock + ch % kBlock;
        for (int64_t s = 0; s < positions; ++s) {
          const float v = row[s] * scale + shift;
          dst[s * kBlock] = gelu ? gelu_exact(v) : v;
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
