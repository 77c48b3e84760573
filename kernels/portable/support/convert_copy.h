// torchedge/kernels/portable/support/convert_copy.h
//
// Copy between strided views that converts the element type, as ATen's
// copy_ does on CPU: used where an op writes its input into an out tensor
// of another dtype (cat/stack promotion, _to_dim_order_copy).
//
// Per element: to bool is `value != 0` (NaN is true); 16-bit floats go
// through float; floating to an integer truncates toward zero, and to a
// 1- or 2-byte integer goes through int32 first (so 300.7 -> uint8 is 44,
// -1.5 -> uint8 is 255, as eager PyTorch gives on x86). Values outside the
// target range are not checked, as in ATen.
#pragma once

#include "kernels/portable/support/strided_view.h"
#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"

namespace torchedge {

/// Whether ATen lets a value of `from` be written into a `to` tensor by a
/// promoting op such as cat (torch.can_cast): not complex into real, not
/// floating into integral or bool, not integral into bool.
bool can_cast(ScalarType from, ScalarType to);

/// Copies `src` (elements of `src_dtype`) into `dst` (elements of
/// `dst_dtype`) by logical index, converting each element. The views must
/// have the same sizes and not overlap. Same dtypes make a plain copy.
/// Complex dtypes convert as ATen does (real -> (value, 0); complex -> real
/// keeps the real part). Fails with InvalidType, naming `op_name`, for a
/// dtype outside float32, float64, float16, bfloat16, uint8, int8, int16,
/// int32, int64, bool, complex32, complex64 and complex128.
Error convert_view(const StridedView& src, ScalarType src_dtype, const StridedView& dst,
                   ScalarType dst_dtype, const char* op_name);

}  // namespace torchedge
