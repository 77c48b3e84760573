// The argument handling of torchedge::quantized_linear.out
// (support/quantized_linear_args.h).
#include "kernels/quantized/support/quantized_linear_args.h"

#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "quantized_linear.out";

Error check_weights(const Tensor& in, const Tensor& w, const Tensor& scales, const Tensor* bias) {
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Char && in.dim() >= 1, Error::InvalidArgument,
                     "%s: input_q must be int8 of rank >= 1, got %s %d-d", kOp,
                     to_string(in.dtype()), in.dim());
  TE_CHECK_OR_RETURN(w.dtype() == ScalarType::Char && w.dim() == 2 && w.size(1) == in.size(-1),
                     Error::InvalidArgument,
                     "%s: weight_q must be int8 [N, %d] (K of input_q), got %s %d-d", kOp,
                     in.size(-1), to_string(w.dtype()), w.dim());
  TE_CHECK_OR_RETURN(scales.dtype() == ScalarType::Float && scales.numel() == static_cast<size_t>(w.size(0)),
                     Error::InvalidArgument, "%s: weight_scales must be float32 [%d]", kOp,
                     w.size(0));
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dtype() == ScalarType::Float &&
                           bias->numel() == static_cast<size_t>(w.size(0)),
                       Error::InvalidArgument, "%s: bias must be float32 [%d]", kOp, w.size(0));
  }
  TE_RETURN_IF_ERROR(quantized::expect_row_major(in, "input_q", kOp));
  return quantized::expect_row_major(w, "weight_q", kOp);
}

}  // namespace

Error prepare_quantized_linear(KernelContext& ctx, Span<EValue*> args,
                               quantized::Int8GemmProblem* problem, QuantizedLinearInput* raw) {
  problem->m = problem->n = 0;
  // weight_sums (index 10, before out) is optional: 11 arguments without it.
  const bool has_sums = args.size() == 12;
  if (!has_sums) TE_RETURN_IF_ERROR(expect_arg_count(args, 11));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input_q"));
  TE_ASSIGN_OR_RETURN(double in_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(int64_t in_zp, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(args, 3, "weight_q"));
  TE_ASSIGN_OR_RETURN(const Tensor* w_scales, tensor_arg(args, 4, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(double out_scale, double_arg(args, 6, "out_scale"));
  TE_ASSIGN_OR_RETURN(int64_t out_zp, int_arg(args, 7, "out_zero_point"));
  TE_ASSIGN_OR_RETURN(int64_t qmin, int_arg(args, 8, "out_quant_min"));
  TE_ASSIGN_OR_RETURN(int64_t qmax, int_arg(args, 9, "out_quant_max"));
  const Tensor* sums = nullptr;
  if (has_sums) {
    TE_ASSIGN_OR_RETURN(sums, optional_tensor_arg(args, 10, "weight_sums"));
  }
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, has_sums ? 11 : 10, "out"));
  TE_RETURN_IF_ERROR(check_weights(*in, *w, *w_scales, bias));
  if (sums != nullptr) {
    TE_CHECK_OR_RETURN(sums->dtype() == ScalarType::Int && sums->dim() == 1 &&
                           sums->size(0) == w->size(0),
                       Error::InvalidArgument, "%s: weight_sums must be int32 [%d], got %s %d-d",
                       kOp, w->size(0), to_string(sums->dtype()), sums->dim());
  }
  TE_CHECK_OR_RETURN(in_zp >= -128 && in_zp <= 127, Error::InvalidArgument,
                     "%s: input_zero_point must be in [-128, 127], got %lld", kOp,
                     static_cast<long long>(in_zp));
  TE_CHECK_OR_RETURN(out_scale != 0.0, Error::InvalidArgument, "%s: out_scale must not be 0", kOp);
  TE_RETURN_IF_ERROR(quantized::check_quant_range(qmin, qmax, ScalarType::Char, kOp));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Char, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  const int64_t k = in->size(-1), n = w->size(0);
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < in->dim(); ++d) {
    sizes[d] = in->size(d);
    m *= in->size(d);
  }
  sizes[in->dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(in->dim())}));
  if (m == 0 || n == 0) return Error::Ok;
  const int8_t* xq = in->data_as<int8_t>();
  quantized::Int8GemmProblem& p = *problem;
  p.x = nullptr;
  if (raw != nullptr) {
    raw->x = xq;
    raw->zero_point = static_cast<int32_t>(in_zp);
    raw->weight_sums = sums != nullptr ? sums->data_as<int32_t>() : nullptr;
  } else {
    const size_t count = static_cast<size_t>(m * k);
    int16_t* shifted = static_cast<int16_t*>(ctx.allocate_temp(count * sizeof(int16_t) + 2, 64));
    TE_CHECK_OR_RETURN(shifted != nullptr, Error::MemoryAllocationFailed,
                       "%s: needs %zu bytes of kernel scratch (temp allocator)", kOp,
                       count * sizeof(int16_t));
    for (size_t i = 0; i < count; ++i) shifted[i] = static_cast<int16_t>(xq[i] - in_zp);
    p.x = shifted;
  }
  p.w = w->data_as<int8_t>();
  p.w_scales = w_scales->data_as<float>();
  p.bias = bias != nullptr ? bias->data_as<float>() : nullptr;
  p.m = m;
  p.n = n;
  p.k = k;
  p.in_scale = static_cast<float>(in_scale);
  p.inv_out_scale = static_cast<float>(1.0 / out_scale);
  p.out_zero_point = static_cast<float>(out_zp);
  p.quant_min = static_cast<float>(qmin);
  p.quant_max = static_cast<float>(qmax);
  p.out = out->mutable_data_as<int8_t>();
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
