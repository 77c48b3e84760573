"""Op table, strided-window group (kernels/portable/strided_kernels.inc):
as_strided_copy and unfold_copy. Out-of-bounds windows and bad steps are
checked by the C++ tests (kernels/portable/test/strided_test.cpp): the
harness only compares what eager accepts.
"""

from __future__ import annotations

import torch

from harness import OpSpec, Sample
from samples import make


def _as_strided(dtype: torch.dtype) -> list[Sample]:
    def s(size, stride, offset=0):
        return lambda x: torch.as_strided(x, size, stride, offset)
    return [
        Sample("regular", (make((4, 5), dtype),), s((2, 3), (5, 1))),
        Sample("overlapping", (make((10,), dtype),), s((4, 3), (2, 1), 1)),  # sliding windows
        Sample("transposed", (make((3, 4), dtype),), s((4, 3), (1, 4))),
        Sample("broadcast_stride0", (make((6,), dtype),), s((3, 2), (0, 1), 2)),
        Sample("rank0", (make((5,), dtype),), s((), (), 4)),
        Sample("empty", (make((5,), dtype),), s((0, 3), (1, 1))),
    ]


def _unfold(dtype: torch.dtype) -> list[Sample]:
    def u(dim, size, step):
        return lambda x: x.unfold(dim, size, step)
    return [
        Sample("regular", (make((3, 10), dtype),), u(1, 4, 2)),
        Sample("step_past_size", (make((2, 9, 3), dtype),), u(1, 2, 3)),
        Sample("negative_dim", (make((2, 3, 7), dtype),), u(-1, 7, 1)),
        Sample("rank0", (make((), dtype),), u(0, 1, 1)),
        Sample("empty_window", (make((4,), dtype),), u(0, 0, 1)),
        Sample("channels_last", (make((2, 3, 4, 5), dtype),), u(1, 2, 1), (0,)),
    ]


SPECS = [
    OpSpec("aten::as_strided_copy.out", torch.as_strided, _as_strided),
    OpSpec("aten::unfold_copy.out", torch.Tensor.unfold, _unfold),
]
