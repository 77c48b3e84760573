// torchedge::mean_hw_int8.out(Tensor input, float input_scale, int input_zero_point,
//     bool keepdim, float output_scale, int output_zero_point, int output_min,
//     int output_max, *, Tensor(a!) out)
//
// The int8 average of each [H, W] plane of an int8 NCHW input (row-major):
// PT2E's quantize(adaptive_avg_pool2d / mean over H, W (dequantize(x))),
// fused by python/torchedge/quantization/static_int8_fusion.py so that no
// float32 copy of the activation is written. out int8 [N, C, 1, 1] (keepdim)
// or [N, C]. Per plane (python/torchedge/quantization/int8_pool_ops.py):
//   acc   = sum(input) - H*W * input_zero_point                 (exact int32)
//   ratio = float(input_scale / output_scale)                   (double, once)
//   v     = float(acc) * ratio / float(H*W) + output_zero_point (float32)
//   out   = clamp(nearbyint(v), output_min, output_max)
// rounding half to even after the zero point is added: with the input's
// quantization on the output (ratio 1) this is round_half_even(sum(input) /
// (H*W)), PyTorch's quantized average pooling, bit for bit. The
// eager reference computes the same float32 operations, so every host and
// the Cortex-M firmware give the same bytes. No scratch.
#include <cmath>

#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

constexpr const char* kOp = "mean_hw_int8.out";
constexpr int64_t kMaxPlane = int64_t{1} << 16;  // float(acc) exact: 255 * 2^16 < 2^24

Error check_input(const Tensor& in) {
  TE_RETURN_IF_ERROR(expect_dtype(in, ScalarType::Char, "input"));
  TE_CHECK_OR_RETURN(in.dim() == 4, Error::InvalidArgument,
                     "%s: input must be 4-d [N, C, H, W], got %d-d", kOp, in.dim());
  TE_RETURN_IF_ERROR(quantized::expect_row_major(in, "input", kOp));
  const int64_t plane = in.size(2) * in.size(3);
  TE_CHECK_OR_RETURN(plane >= 1 && plane <= kMaxPlane, Error::InvalidArgument,
                     "%s: H*W must be in [1, %lld], got %lld x %lld", kOp,
                     static_cast<long long>(kMaxPlane), static_cast<long long>(in.size(2)),
                     static_cast<long long>(in.size(3)));
  return Error::Ok;
}

}  // namespace

Error mean_hw_int8_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 9));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(double in_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(int64_t in_zp, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 3, "keepdim"));
  TE_ASSIGN_OR_RETURN(double out_scale, double_arg(args, 4, "output_scale"));
  TE_ASSIGN_OR_RETURN(int64_t out_zp, int_arg(args, 5, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(int64_t out_min, int_arg(args, 6, "output_min"));
  TE_ASSIGN_OR_RETURN(int64_t out_max, int_arg(args, 7, "output_max"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 8, "out"));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(in_scale, "input_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_positive_scale(out_scale, "output_scale", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(in_zp, "input_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_int8_value(out_zp, "output_zero_point", kOp));
  TE_RETURN_IF_ERROR(quantized::check_quant_range(out_min, out_max, ScalarType::Char, kOp));
  TE_RETURN_IF_ERROR(check_input(*in));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Char, "out"));
  const int64_t planes = in->size(0) * in->size(1);
  const int64_t kept[4] = {in->size(0), in->size(1), 1, 1};
  TE_RETURN_IF_ERROR(resize_to(*out, Span<const int64_t>(kept, keepdim ? 4 : 2)));

  const int32_t plane = static_cast<int32_t>(in->size(2) * in->size(3));
  const int32_t bias = -plane * static_cast<int32_t>(in_zp);
  const float ratio = static_cast<float>(in_scale / out_scale);
  const float divisor = static_cast<float>(plane);
  const float lo = static_cast<float>(out_min), hi = static_cast<float>(out_max);
  const float zp = static_cast<float>(out_zp);
  const int8_t* x = in->data_as<int8_t>();
  int8_t* y = out->mutable_data_as<int8_t>();
  for (int64_t p = 0; p < planes; ++p) {
    const int8_t* src = x + p * plane;
    int32_t acc = bias;
    for (int32_t i = 0; i < plane; ++i) acc += src[i];
    // The float32 steps of the eager reference, in its order.
    const float v = static_cast<float>(acc) * ratio / divisor + zp;
    float q = std::nearbyint(v);
    q = q < lo ? lo : (q > hi ? hi : q);
    y[p] = static_cast<int8_t>(q);
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
