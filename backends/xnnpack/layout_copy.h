// torchedge/backends/xnnpack/layout_copy.h
//
// NCHW <-> NHWC conversion of float32 and int8 tensors at a delegate's boundary
// (XNNPACK's spatial operators are NHWC; the graph's tensors are NCHW).
// Both are a batch of 2-D transposes, done in cache-sized tiles.
// `src` and `dst` must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace xnnpack {

/// dst[n][hw][c] = src[n][c][hw]
void nchw_to_nhwc(const float* src, float* dst, size_t n, size_t c, size_t hw);

/// dst[n][c][hw] = src[n][hw][c]
void nhwc_to_nchw(const float* src, float* dst, size_t n, size_t c, size_t hw);

/// The same for int8 (quantized) tensors.
void nchw_to_nhwc(const int8_t* src, int8_t* dst, size_t n, size_t c, size_t hw);
void nhwc_to_nchw(const int8_t* src, int8_t* dst, size_t n, size_t c, size_t hw);

}  // namespace xnnpack
}  // namespace torchedge
