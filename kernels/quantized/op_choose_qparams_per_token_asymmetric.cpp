// quantized_decomposed::choose_qparams_per_token_asymmetric.out(Tensor input,
//     ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
//
// For each row of input [..., K] (K >= 1), eager's
// _choose_qparams_per_token_asymmetric_impl with qmin = -128, qmax = 127:
//   min_neg = min(amin, 0), max_pos = max(amax, 0)
//   scale   = clamp((max_pos - min_neg) / 255, min=float32 eps)
//   dmin = min_neg / scale, dmax = max_pos / scale
//   zp = round(clamp((qmin + dmin) + (qmax + dmax) > 0 ? qmin - dmin : qmax - dmax,
//                    qmin, qmax))
// every step rounded to the input dtype (float32, float16 or bfloat16), as
// eager computes it. Outputs [..., 1]: scale_out float64, zero_point_out
// int64. `dtype` is validated (eager ignores it: the range is always int8).
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/minmax.h"
#include "kernels/quantized/support/qparams_outputs.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/token_rows.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// One tensor op of eager on dtype T: computed in float, rounded to T.
template <typename T>
inline float in_dtype(float v) {
  return static_cast<float>(static_cast<T>(v));
}

template <typename T>
void choose_row(const T* row, size_t k, double* scale_out, int64_t* zero_point_out) {
  constexpr float kQmin = -128.0f, kQmax = 127.0f;
  constexpr float kEps = 1.1920928955078125e-07f;  // torch.finfo(torch.float32).eps
  float lo = 0.0f, hi = 0.0f;
  quantized::row_min_max(row, k, &lo, &hi);
  const float min_neg = quantized::min_nan(lo, 0.0f);
  const float max_pos = quantized::max_nan(hi, 0.0f);
  float scale = in_dtype<T>(in_dtype<T>(max_pos - min_neg) / 255.0f);
  scale = quantized::max_nan(scale, in_dtype<T>(kEps));
  const float dmin = in_dtype<T>(min_neg / scale);
  const float dmax = in_dtype<T>(max_pos / scale);
  const float from_min = in_dtype<T>(kQmin + dmin);
  const float from_max = in_dtype<T>(kQmax + dmax);
  float zp = in_dtype<T>(from_min + from_max) > 0.0f ? in_dtype<T>(kQmin - dmin)
                                                     : in_dtype<T>(kQmax - dmax);
  zp = quantized::round_half_even(quantized::clamp_nan(zp, kQmin, kQmax));
  *scale_out = static_cast<double>(scale);
  *zero_point_out = quantized::to_int64(zp);
}

}  // namespace

Error choose_qparams_per_token_asymmetric_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "choose_qparams_per_token_asymmetric.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 1, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(Tensor* scale_out, tensor_arg(args, 2, "scale_out"));
  TE_ASSIGN_OR_RETURN(Tensor* zero_point_out, tensor_arg(args, 3, "zero_point_out"));
  (void)qtype;
  TE_RETURN_IF_ERROR(quantized::expect_quantizable_input(*in, kOp));
  TE_CHECK_OR_RETURN(in->dim() >= 1 && in->size(-1) > 0, Error::InvalidArgument,
                     "%s: input must have rank >= 1 and a non-empty last dimension", kOp);
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*in, "input", kOp));
  TE_RETURN_IF_ERROR(quantized::check_qparams_outputs(*scale_out, *zero_point_out, kOp));
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < in->dim(); ++d) sizes[d] = in->size(d);
  sizes[in->dim() - 1] = 1;
  const Span<const int64_t> out_sizes{sizes, static_cast<size_t>(in->dim())};
  TE_RETURN_IF_ERROR(resize_to(*scale_out, out_sizes));
  TE_RETURN_IF_ERROR(resize_to(*zero_point_out, out_sizes));
  const quantized::TokenRows rows = quantized::token_rows(*in);
  for (size_t r = 0; r < rows.rows; ++r) {
    double scale = 1.0;
    int64_t zp = 0;
    const size_t offset = r * rows.length;
    switch (in->dtype()) {
      case ScalarType::Float:
        choose_row(in->data_as<float>() + offset, rows.length, &scale, &zp);
        break;
      case ScalarType::Half:
        choose_row(in->data_as<Half>() + offset, rows.length, &scale, &zp);
        break;
      default:
        choose_row(in->data_as<BFloat16>() + offset, rows.length, &scale, &zp);
        break;
    }
    quantized::write_qparams(*scale_out, *zero_point_out, r, scale, zp);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
