"""Op table, data-dependent group (kernels/portable/data_dependent_kernels.inc):
nonzero, nonzero_static, masked_select, unique and unique_consecutive. The
output sizes of all but nonzero_static depend on the values: the program
plans them at the export's upper bound and the kernel writes the true size.
Samples include all-zero / all-true inputs (the bound's two ends), NaNs and
repeated values.
"""

from __future__ import annotations

import torch

from harness import OpSpec, Sample
from samples import make


def _sparse(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """About half zeros, the rest of `make`'s values."""
    x = make(shape, dtype)
    keep = torch.rand(shape) < 0.5
    return torch.where(keep, x, torch.zeros((), dtype=dtype)).contiguous()


def _nonzero(dtype: torch.dtype) -> list[Sample]:
    return [
        Sample("regular", (_sparse((4, 5), dtype),), torch.nonzero),
        Sample("all_zero", (torch.zeros((3, 2), dtype=dtype),), torch.nonzero),
        Sample("all_nonzero", (torch.ones((2, 3), dtype=dtype),), torch.nonzero),
        Sample("rank0", (torch.ones((), dtype=dtype),), torch.nonzero),
        Sample("three_dims", (_sparse((2, 3, 4), dtype),), torch.argwhere),
    ]


def _nonzero_static(dtype: torch.dtype) -> list[Sample]:
    return [
        Sample("regular", (_sparse((4, 5), dtype),), lambda x: torch.nonzero_static(x, size=6)),
        Sample("padded", (_sparse((3,), dtype),),
               lambda x: torch.nonzero_static(x, size=5, fill_value=-7)),
        Sample("zero_rows", (_sparse((2, 2), dtype),), lambda x: torch.nonzero_static(x, size=0)),
    ]


def _masked_select(dtype: torch.dtype) -> list[Sample]:
    return [
        Sample("regular", (make((4, 5), dtype), torch.rand(4, 5) < 0.5), torch.masked_select),
        Sample("broadcast_mask", (make((2, 3, 4), dtype), torch.rand(3, 1) < 0.5), torch.masked_select),
        Sample("none_selected", (make((3,), dtype), torch.zeros(3, dtype=torch.bool)),
               torch.masked_select),
    ]


def _repeats(dtype: torch.dtype) -> torch.Tensor:
    """Values with repeats (and, for floats, NaNs)."""
    x = make((12,), dtype, low=0, high=4)
    if dtype.is_floating_point:
        x = x.round()
        x[3] = x[7] = float("nan")
    return x


def _unique(dtype: torch.dtype) -> list[Sample]:
    u = torch.unique
    return [
        Sample("regular", (_repeats(dtype),), lambda x: u(x)),
        Sample("inverse_counts", (_repeats(dtype).reshape(3, 4),),
               lambda x: u(x, return_inverse=True, return_counts=True)),
        Sample("empty", (make((0,), dtype),), lambda x: u(x, return_counts=True)),
    ]


def _unique_consecutive(dtype: torch.dtype) -> list[Sample]:
    u = torch.unique_consecutive
    return [
        Sample("regular", (_repeats(dtype).sort().values,), lambda x: u(x)),
        Sample("inverse_counts", (_repeats(dtype).reshape(2, 6),),
               lambda x: u(x, return_inverse=True, return_counts=True)),
    ]


SPECS = [
    OpSpec("aten::nonzero.out", torch.nonzero, _nonzero),
    OpSpec("aten::nonzero_static.out", torch.nonzero_static, _nonzero_static),
    OpSpec("aten::masked_select.out", torch.masked_select, _masked_select),
    OpSpec("aten::_unique2.out", torch.unique, _unique),
    OpSpec("aten::unique_consecutive.out", torch.unique_consecutive, _unique_consecutive),
]
