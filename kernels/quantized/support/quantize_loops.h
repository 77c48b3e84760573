// torchedge/kernels/quantized/support/quantize_loops.h
//
// The dtype dispatch and inner loops shared by the quantize kernels: the
// input (float32, float16 or bfloat16, widened to float as eager does) is
// walked in runs that share one set of QuantizeParams.
//
// Contract: `in` and `out` are dense with the same dim order, so element i
// of one is element i of the other (expect_same_layout checks this).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

enum class RoundOrder { kRoundThenShift, kShiftThenRound };

/// Quantizes elements [begin, begin + count) of `in` into `out` (memory
/// order) with one set of parameters. In: float, Half or BFloat16;
/// Q: the quantized element type; C: the compute type (float or double).
template <typename In, typename Q, typename C, RoundOrder kOrder>
void quantize_run(const In* in, Q* out, size_t count, const QuantizeParams<C>& p) {
  for (size_t i = 0; i < count; ++i) {
    const C x = static_cast<C>(static_cast<float>(in[i]));
    out[i] = kOrder == RoundOrder::kRoundThenShift ? quantize_round_then_shift<Q>(x, p)
                                                   : quantize_shift_then_round<Q>(x, p);
  }
}

/// Parameters `index` of `scales`/`zero_points` in the compute type C (the
/// scales' dtype): inv = 1 / scale computed in C, as eager's `1.0 / scales`.
template <typename C>
QuantizeParams<C> params_at(const Tensor& scales, const Tensor& zero_points, size_t index,
                            int64_t quant_min, int64_t quant_max) {
  const C scale = static_cast<C>(read_double(scales, index));
  const C zp = is_integral(zero_points.dtype())
                   ? static_cast<C>(read_int(zero_points, index))
                   : static_cast<C>(read_double(zero_points, index));
  return {C(1) / scale, zp, static_cast<C>(quant_min), static_cast<C>(quant_max)};
}

/// Calls f(In{}, Q{}) for the input dtype (float32/float16/bfloat16) and the
/// quantized dtype (uint8/int8/uint16/int16/int32). Both must have been
/// validated (expect_quantizable_input, quant_dtype_arg); anything else is
/// reported as InvalidType.
template <typename F>
Error switch_quantize_types(ScalarType in, ScalarType q, const char* op, F&& f) {
  auto with_q = [&](auto in_tag) -> Error {
    switch (q) {
      case ScalarType::Byte: return f(in_tag, uint8_t{});
      case ScalarType::Char: return f(in_tag, int8_t{});
      case ScalarType::Short: return f(in_tag, int16_t{});
      case ScalarType::UInt16: return f(in_tag, uint16_t{});
      case ScalarType::Int: return f(in_tag, int32_t{});
      default: break;
    }
    record_error_message("%s: unsupported quantized dtype %s", op, to_string(q));
    return Error::InvalidType;
  };
  switch (in) {
    case ScalarType::Float: return with_q(float{});
    case ScalarType::Half: return with_q(Half{});
    case ScalarType::BFloat16: return with_q(BFloat16{});
    default: break;
  }
  record_error_message("%s: unsupported input dtype %s", op, to_string(in));
  return Error::InvalidType;
}

}  // namespace quantized
}  // namespace torchedge
