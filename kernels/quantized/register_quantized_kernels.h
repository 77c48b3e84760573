// torchedge/kernels/quantized/register_quantized_kernels.h
//
// The quantized kernel library: eager's quantized_decomposed
// quantize/dequantize/choose_qparams operators (bit-exact with
// torch/ao/quantization/fx/_decomposed.py) and torchedge's own int8 and
// 4-bit group-wise linear kernels (torchedge::quantized_linear,
// linear_int4_weight_only, linear_8da4w) with AVX2 / AVX-512 VNNI paths
// chosen at run time and a portable fallback. docs/quantization-kernels.md
// states every kernel's numerics.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers every kernel in kernels/quantized/quantized_kernels.inc with
/// the kernel registry. Idempotent; call before loading programs.
Error register_quantized_kernels();

}  // namespace torchedge
