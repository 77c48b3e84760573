// quantized_decomposed::choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max,
//     float eps, ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out)
//
// Per-tensor affine parameters from input's min and max, as eager's
// determine_qparams (per_tensor_affine) computes them:
//   min_neg = min(amin, 0), max_pos = max(amax, 0)          (input dtype)
//   scale   = max((max_pos - min_neg) / (quant_max - quant_min), float32(eps))
//   zp      = clamp(quant_min - int32(round(min_neg / scale)), quant_min, quant_max)
// Each step is rounded to the dtype eager computes it in (input dtype for
// the first two, float32 after the max with the float32 eps tensor, int32
// for the zero point). Outputs: scale_out float64 [1], zero_point_out int64
// [1]. input: float32/float16/bfloat16, non-empty (eager's aminmax fails on
// empty inputs); quant_min <= 0 <= quant_max, quant_min < quant_max.
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/per_tensor_qparams.h"
#include "kernels/quantized/support/qparams_outputs.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quantize_loops.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

template <typename T>
void choose_per_tensor(const T* data, size_t count, int64_t qmin, int64_t qmax, double eps,
                       double* scale_out, int64_t* zero_point_out) {
  float scale = 1.0f;
  int32_t zp = 0;
  quantized::choose_per_tensor_qparams(data, count, qmin, qmax, eps, &scale, &zp);
  *scale_out = static_cast<double>(scale);
  *zero_point_out = zp;
}

}  // namespace

Error choose_qparams_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "choose_qparams.Tensor_out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 1, "quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 2, "quant_max"));
  TE_ASSIGN_OR_RETURN(double eps, double_arg(args, 3, "eps"));
  TE_ASSIGN_OR_RETURN(ScalarType qtype, quantized::quant_dtype_arg(args, 4, "dtype", kOp));
  TE_ASSIGN_OR_RETURN(Tensor* scale_out, tensor_arg(args, 5, "scale_out"));
  TE_ASSIGN_OR_RETURN(Tensor* zero_point_out, tensor_arg(args, 6, "zero_point_out"));
  (void)qtype;  // validated; the parameters do not depend on it (as in eager)
  TE_RETURN_IF_ERROR(quantized::expect_quantizable_input(*in, kOp));
  TE_CHECK_OR_RETURN(qmin <= 0 && 0 <= qmax, Error::InvalidArgument,
                     "%s: User-specified quantization range must include 0 (got [%lld, %lld])",
                     kOp, static_cast<long long>(qmin), static_cast<long long>(qmax));
  TE_CHECK_OR_RETURN(qmin < qmax, Error::InvalidArgument,
                     "%s: qmin must be strictly less than qmax (got %lld, %lld)", kOp,
                     static_cast<long long>(qmin), static_cast<long long>(qmax));
  TE_CHECK_OR_RETURN(qmin >= INT32_MIN && qmax <= INT32_MAX, Error::InvalidArgument,
                     "%s: quant_min/quant_max must fit int32", kOp);
  TE_CHECK_OR_RETURN(in->numel() > 0, Error::InvalidArgument,
                     "%s: cannot compute aminmax over an empty input", kOp);
  TE_RETURN_IF_ERROR(quantized::check_qparams_outputs(*scale_out, *zero_point_out, kOp));
  const int64_t one[1] = {1};
  TE_RETURN_IF_ERROR(resize_to(*scale_out, {one, 1}));
  TE_RETURN_IF_ERROR(resize_to(*zero_point_out, {one, 1}));
  double scale = 1.0;
  int64_t zp = 0;
  switch (in->dtype()) {
    case ScalarType::Float:
      choose_per_tensor(in->data_as<float>(), in->numel(), qmin, qmax, eps, &scale, &zp);
      break;
    case ScalarType::Half:
      choose_per_tensor(in->data_as<Half>(), in->numel(), qmin, qmax, eps, &scale, &zp);
      break;
    default:
      choose_per_tensor(in->data_as<BFloat16>(), in->numel(), qmin, qmax, eps, &scale, &zp);
      break;
  }
  quantized::write_qparams(*scale_out, *zero_point_out, 0, scale, zp);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
