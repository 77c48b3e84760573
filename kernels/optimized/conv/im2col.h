// torchedge/kernels/optimized/conv/im2col.h
//
// The implicit-im2col B packers of conv2d_gemm (an SgemmProblem::pack_b,
// see gemm/sgemm.h PackBFunction): B[k][p] is the input value under tap
// k = (ci, kh, kw) for output pixel p = oh * OW + ow, zero in the padding;
// context is an Im2colSource. Nothing is allocated: each call packs the
// requested KC x NC panel straight from the input planes.
//
//   pack_im2col_scalar  any geometry and strip width (plain C++).
//   pack_im2col_avx2    AVX2 (conv/im2col_avx2.cpp), per nr-pixel strip:
//                       a strip whose pixels are all in bounds for every tap
//                       (most of a large plane) is a tight loop of one vector
//                       load per 8 pixels (stride 1) or two loads and a
//                       deinterleave (stride 2); other strips go 8 pixels at
//                       a time with per-tap validity masks worked out once
//                       per strip: those loads where a chunk is in bounds,
//                       masked loads per output-row segment for stride-1
//                       borders and row straddles, a masked gather for the
//                       rest. Hands shapes it does not take (nr not a
//                       multiple of 8 or over 64, kernels over 16 taps a
//                       side, planes of 2^30 floats or more) to
//                       pack_im2col_scalar. Call only when best_isa() >=
//                       kAvx2. ResNet-50's packing: 11 % of the model with
//                       the scalar packer, ~6 % with this one.
//   pack_conv1d_avx2    AVX2 (conv/im2col_1d_avx2.cpp), 1-d convolutions
//                       only (pack_conv1d_applies: a 1 x L plane, no
//                       vertical padding): row by row, each packed row k =
//                       (ci, tap) written across every strip of the panel
//                       from one in-order pass over its input row (stride
//                       1: loads, masked loads at the padding; stride 2:
//                       two loads and a deinterleave; others element by
//                       element); any kernel width. The same floats as the
//                       packers above. Call only when best_isa() >= kAvx2.
#pragma once

#include <cstdint>

#include "kernels/optimized/conv/conv2d.h"

namespace torchedge {
namespace optimized {

// One (image, group)'s input planes and the convolution geometry.
struct Im2colSource {
  const float* x;  // [Cin/g, H, W]
  const Conv2dShape* s;
};

namespace detail {
void pack_im2col_scalar(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc,
                        int nr, float* dst);
void pack_im2col_avx2(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,
                      float* dst);
static inline bool pack_conv1d_applies(const Conv2dShape& s) {
  return s.in_h == 1 && s.kernel_h == 1 && s.out_h == 1 && s.pad_h == 0;
}
void pack_conv1d_avx2(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,
                      float* dst);
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
