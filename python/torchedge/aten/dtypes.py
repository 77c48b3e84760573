"""torch dtypes, layouts and memory formats as ET12 wire values."""

from __future__ import annotations

from typing import Optional

import torch

from torchedge.serialize.schema import ScalarType

# Element types the runtime supports, with their c10::ScalarType numbers.
SCALAR_TYPES: dict[torch.dtype, ScalarType] = {
    torch.uint8: ScalarType.BYTE,
    torch.int8: ScalarType.CHAR,
    torch.int16: ScalarType.SHORT,
    torch.int32: ScalarType.INT,
    torch.int64: ScalarType.LONG,
    torch.float16: ScalarType.HALF,
    torch.float32: ScalarType.FLOAT,
    torch.float64: ScalarType.DOUBLE,
    torch.complex32: ScalarType.COMPLEXHALF,
    torch.complex64: ScalarType.COMPLEXFLOAT,
    torch.complex128: ScalarType.COMPLEXDOUBLE,
    torch.bool: ScalarType.BOOL,
    torch.bfloat16: ScalarType.BFLOAT16,
    torch.uint16: ScalarType.UINT16,
    torch.uint32: ScalarType.UINT32,
    torch.uint64: ScalarType.UINT64,
}

MEMORY_FORMATS: dict[torch.memory_format, int] = {
    torch.contiguous_format: 0,
    torch.preserve_format: 1,
    torch.channels_last: 2,
    torch.channels_last_3d: 3,
}

LAYOUTS: dict[torch.layout, int] = {torch.strided: 0}


def scalar_type(dtype: torch.dtype) -> Optional[ScalarType]:
    """The wire code of `dtype`, or None when the runtime does not support it."""
    return SCALAR_TYPES.get(dtype)


def unsupported_dtype_reason(dtype: torch.dtype) -> Optional[str]:
    """Why `dtype` cannot be lowered, or None if it can."""
    if dtype in SCALAR_TYPES:
        return None
    if dtype.is_complex:
        return f"complex dtype {dtype} is not supported by the torchedge runtime"
    if dtype in (torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4):
        return (
            f"quantized tensor dtype {dtype} is not supported; quantize with PT2E "
            "(quantize/dequantize ops on plain integer tensors) instead"
        )
    return f"dtype {dtype} is not supported by the torchedge runtime"


_ELEMENT_SIZES: dict[ScalarType, int] = {code: dtype.itemsize for dtype, code in SCALAR_TYPES.items()}


def element_size(code: ScalarType) -> int:
    """Bytes per element of a wire scalar type the runtime supports."""
    return _ELEMENT_SIZES[ScalarType(code)]
