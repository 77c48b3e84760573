// torchedge/kernels/portable/support/strided_copy.h
//
// Data movement without dtypes: copies between strided views by element
// width (1, 2, 4 or 8 bytes), so one instantiation serves every dtype of
// that width. Shape kernels build a StridedView of their input
// (strided_view.h) and finish with copy_view_to(view, out).
//
// Source and destination memory must not overlap (out variants never alias
// their inputs).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/support/strided_view.h"
#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"

namespace torchedge {

/// A 16-byte element (complex128) moved as one value.
struct Element16 {
  uint64_t lo, hi;
};

/// Calls f(W{}) with W the unsigned integer type of `width` bytes (Element16
/// for 16). A width other than 1, 2, 4, 8 or 16 records "<op>: unsupported
/// element size" and returns Error::InvalidType.
template <typename F>
Error switch_element_width(size_t width, const char* op_name, F&& f) {
  switch (width) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: return f(Element16{});
    default: break;
  }
  record_error_message("%s: unsupported element size %zu", op_name, width);
  return Error::InvalidType;
}

/// Copies `src` into `dst` element by logical index. Both must have the
/// same rank, sizes and element size, which the caller checked; fails only
/// for an element size other than 1, 2, 4 or 8.
Error copy_view(const StridedView& src, const StridedView& dst);

/// Copies `count` elements in logical row-major order: the elements of
/// `src` from linear index `src_start` on go to the elements of `dst` from
/// linear index `dst_start` on. The shapes may differ (a reshape); both
/// ranges must lie inside their views and the element sizes must match.
Error copy_linear(const StridedView& src, int64_t src_start, const StridedView& dst,
                 int64_t dst_start, int64_t count);

/// Resizes `out` to `src`'s sizes (rank must equal out.dim()) and copies
/// `src` into it. Fails, writing nothing, when the resize fails or when
/// out's element size differs from src's; the caller checks dtypes.
Error copy_view_to(const StridedView& src, Tensor& out);

}  // namespace torchedge
