#include "backends/xnnpack/layout_copy.h"

namespace torchedge {
namespace xnnpack {

namespace {

// Tiles small enough that a tile's source rows and destination rows both
// stay in L1 while it is transposed.
constexpr size_t kTile = 16;

// dst (cols x rows) = transpose of src (rows x cols), both row-major.
template <typename T>
void transpose(const T* src, T* dst, size_t rows, size_t cols) {
  if (rows == 1 || cols == 1) {  // a transpose of a vector is a copy
    for (size_t i = 0; i < rows * cols; ++i) dst[i] = src[i];
    return;
  }
  for (size_t r0 = 0; r0 < rows; r0 += kTile) {
    const size_t r1 = r0 + kTile < rows ? r0 + kTile : rows;
    for (size_t c0 = 0; c0 < cols; c0 += kTile) {
      const size_t c1 = c0 + kTile < cols ? c0 + kTile : cols;
      for (size_t c = c0; c < c1; ++c) {
        T* out = dst + c * rows;
        for (size_t r = r0; r < r1; ++r) out[r] = src[r * cols + c];
      }
    }
  }
}

}  // namespace

void nchw_to_nhwc(const float* src, float* dst, size_t n, size_t c, size_t hw) {
  for (size_t b = 0; b < n; ++b) transpose(src + b * c * hw, dst + b * c * hw, c, hw);
}

void nhwc_to_nchw(const float* src, float* dst, size_t n, size_t c, size_t hw) {
  for (size_t b = 0; b < n; ++b) transpose(src + b * c * hw, dst + b * c * hw, hw, c);
}

void nchw_to_nhwc(const int8_t* src, int8_t* dst, size_t n, size_t c, size_t hw) {
  for (size_t b = 0; b < n; ++b) transpose(src + b * c * hw, dst + b * c * hw, c, hw);
}

void nhwc_to_nchw(const int8_t* src, int8_t* dst, size_t n, size_t c, size_t hw) {
  for (size_t b = 0; b < n; ++b) transpose(src + b * c * hw, dst + b * c * hw, hw, c);
}

}  // namespace xnnpack
}  // namespace torchedge
