"""Tensor values (sizes, dim order, dtype, dynamism) from torch tensors."""

from __future__ import annotations

from typing import Union

import sympy
import torch
from torch.utils._sympy.numbers import int_oo

from torchedge.aten.dtypes import scalar_type
from torchedge.serialize import schema as s

SizeLike = Union[int, torch.SymInt]


def upper_bound(size: SizeLike) -> int:
    """An int size, or the upper bound of a symbolic one."""
    if isinstance(size, int):
        return size
    static = size.node.maybe_as_int()
    if static is not None:
        return int(static)
    upper = size.node.shape_env.bound_sympy(size.node.expr).upper
    if upper in (int_oo, -int_oo, sympy.oo, -sympy.oo) or not upper.is_integer:
        raise ValueError(f"symbolic size {size} has no finite upper bound")
    return int(upper)


def is_dynamic(tensor: torch.Tensor) -> bool:
    return any(
        isinstance(d, torch.SymInt) and d.node.maybe_as_int() is None for d in tensor.shape
    )


def dim_order(tensor: torch.Tensor) -> list[int]:
    """Dimensions from outermost to innermost in memory.

    (0, 1, ..., n-1) for contiguous tensors, (0, 2, 3, 1) for channels-last.
    Dimensions with equal strides (size-1 dims) keep their logical order.
    Non-dense layouts (no such order exists) read as contiguous; tensors
    are copied contiguously in that case.
    """
    sizes = [upper_bound(d) for d in tensor.shape]
    strides = [upper_bound(st) for st in tensor.stride()]
    order = sorted(range(tensor.dim()), key=lambda d: (-strides[d], d))
    expected = 1
    for d in reversed(order):
        if sizes[d] != 1 and strides[d] != expected:
            return list(range(tensor.dim()))
        expected *= sizes[d]
    return order


def tensor_value(tensor: torch.Tensor, data_buffer_idx: int = 0) -> s.Tensor:
    """The Tensor value describing `tensor` (fake or real), sizes at upper bound."""
    code = scalar_type(tensor.dtype)
    if code is None:
        raise ValueError(f"dtype {tensor.dtype} has no torchedge scalar type")
    return s.Tensor(
        scalar_type=code,
        sizes=[upper_bound(d) for d in tensor.shape],
        dim_order=dim_order(tensor),
        data_buffer_idx=data_buffer_idx,
        shape_dynamism=(
            s.TensorShapeDynamism.DYNAMIC_BOUND if is_dynamic(tensor) else s.TensorShapeDynamism.STATIC
        ),
    )


def tensor_bytes(tensor: torch.Tensor, order: list[int]) -> bytes:
    """The bytes of a real tensor laid out densely in `order`."""
    dense = tensor.detach().cpu().permute(order).contiguous()
    return dense.reshape(-1).view(torch.uint8).numpy().tobytes()
