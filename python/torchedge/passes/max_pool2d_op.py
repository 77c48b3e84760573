"""torchedge::max_pool2d: 2-D max pooling without the indices output.

    torchedge::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride,
        int[2] padding, int[2] dilation, bool ceil_mode) -> Tensor

is aten.max_pool2d_with_indices(...)[0]: the same values (NaN wins, windows
clipped to the input), no int64 positions. Core ATen has only the indexed
form, so every exported max pool computes and stores its indices, which
inference rarely reads (ResNet's stem pool: 1.6 MB of int64 per image, and
the position bookkeeping doubled the kernel's time). pool_indices.py makes
these calls at to_pte time where the indices are unused; the `.out`
overload (same arguments, then `*, Tensor(a!) out`) is the runtime kernel
"torchedge::max_pool2d.out" (float32 and int8, the dtypes that pass
rewrites).
"""

from __future__ import annotations

from typing import Sequence

import torch

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "max_pool2d"
_ARGUMENTS = ("Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
              "int[2] dilation, bool ceil_mode")

def max_pool2d_reference(self: torch.Tensor, kernel_size: Sequence[int], stride: Sequence[int],
                         padding: Sequence[int], dilation: Sequence[int],
                         ceil_mode: bool) -> torch.Tensor:
    return torch.ops.aten.max_pool2d_with_indices.default(
        self, list(kernel_size), list(stride), list(padding), list(dilation), ceil_mode)[0]


def _fake(self, kernel_size, stride, padding, dilation, ceil_mode):
    return torch.ops.aten.max_pool2d_with_indices.default(
        self, list(kernel_size), list(stride), list(padding), list(dilation), ceil_mode)[0]


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, max_pool2d_reference, _fake)
