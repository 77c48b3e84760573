// torchedge/kernels/optimized/conv/conv2d.h
//
// Float32 2-D convolution (NCHW, contiguous, not transposed) for the
// optimized convolution kernel:
//
//   conv2d_gemm       any kernel size, stride, padding, dilation and groups:
//                     per (image, group) one SGEMM  out[Cout/g, OH*OW] =
//                     weight[Cout/g, Cin/g*KH*KW] x columns, where a 1x1,
//                     stride-1, unpadded convolution reads its input as the
//                     column matrix directly and every other one packs im2col
//                     columns straight from the input (implicit GEMM: no
//                     column matrix is built; conv/im2col.h, AVX2 packer when
//                     best_isa() allows). The bias, the residual add
//                     (torchedge::conv2d_add_clamp: out = clamp(conv + bias
//                     + residual)) and the output clamp (torchedge::
//                     conv2d_clamp's fused activation) are the GEMM's
//                     epilogue, applied as the tiles are stored. 3x3
//                     stride-1 convolutions go through Winograd's F(2x2,
//                     3x3) instead where conv/winograd.h says it applies
//                     (conv2d_im2col: never).
//   conv2d_depthwise  groups == Cin == Cout (any kernel size; 3x3 and 5x5 are
//                     the zoo's): direct loops over a zero-padded copy of each
//                     channel plane (AVX2 and scalar builds; the AVX2 build
//                     runs 3x3 stride 1 / 2 planes 8 outputs per vector with
//                     the weights in registers and the bias and clamp
//                     fused; the generic loop clamps each finished row).
//                     Other kernels with channels a multiple of 16 and no
//                     dilation go through the blocked depthwise kernel
//                     (depthwise_blocked.h conv2d_depthwise_through_blocked:
//                     MobileNetV3-small 7.3 -> 4.2 ms, EfficientNet-B0 31.5
//                     -> 21.3 ms at 1 thread, their 5x5 layers).
//
// The clamp is min(max, max(min, v)) with NaN propagating, as
// aten::hardtanh.out computes it; the default (-inf, +inf) applies none, so
// an unclamped convolution is bit-identical to one without the parameter.
//
// Both take scratch from ctx's temp allocator and return
// MemoryAllocationFailed when it is short (the output is then untouched, so
// the caller can fall back to the portable kernel); conv2d_depthwise returns
// NotSupported for shapes it does not handle.
#pragma once

#include <cstdint>
#include <limits>

#include "runtime/core/error.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {

struct Conv2dShape {
  int64_t batch, in_channels, in_h, in_w;
  int64_t out_channels, out_h, out_w;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t groups;
};

// The output range of a fused activation (relu: [0, +inf), relu6: [0, 6]).
struct Conv2dClamp {
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();

  bool active() const {
    return min != -std::numeric_limits<float>::infinity() ||
           max != std::numeric_limits<float>::infinity();
  }
  // NaN stays NaN: v < min and v > max are both false for it.
  float apply(float v) const { return v < min ? min : (v > max ? max : v); }
};

// `residual` (or null): a dense [N, Cout, OH, OW] tensor added to the
// convolution before the clamp, ((acc + bias) + residual), rounded as
// eager's conv then add; it must not overlap y (y holds partial sums before
// the last K block).
Error conv2d_gemm(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                  const float* bias, float* y, const Conv2dClamp& clamp = {},
                  const float* residual = nullptr);

// conv2d_gemm without the Winograd path (conv/winograd.h): always the
// implicit-im2col SGEMM (benchmarks and tests compare the two).
Error conv2d_im2col(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                    const float* bias, float* y, const Conv2dClamp& clamp = {},
                    const float* residual = nullptr);

Error conv2d_depthwise(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                       const float* bias, float* y, const Conv2dClamp& clamp = {});

namespace detail {
// plane + off for an offset that may point before the plane (a padded
// row's first columns): only masked loads whose lanes at such addresses are
// off go through it (they touch no memory there), and the address is formed
// as an integer so no out-of-range pointer arithmetic happens in C++ terms.
// Used by the SIMD im2col packer and Winograd transforms.
static inline const float* masked_base(const float* plane, int64_t off) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(plane) +
                                        static_cast<uintptr_t>(off * 4));
}

// The per-ISA builds of conv2d_depthwise (conv/depthwise_<isa>.cpp).
Error conv2d_depthwise_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                            const float* w, const float* bias, float* y,
                            const Conv2dClamp& clamp);
Error conv2d_depthwise_scalar(KernelContext& ctx, const Conv2dShape& s, const float* x,
                              const float* w, const float* bias, float* y,
                              const Conv2dClamp& clamp);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
