"""Putting a captured runtime tensor next to its eager counterpart.

to_pte may run a value in another layout than its FX node has: blocked
convolutions keep activations as NCHW16c ([N, ceil(C/16), H, W, 16], zero
lanes past C; passes/conv2d_blocked_op.py). `align` undoes only the
transforms it knows and says why when it cannot, so every compared pair
is the same elements in the same order:

- same shape: as they are;
- a 5-d [N, CB, H, W, 16] runtime tensor against a 4-d [N, C, H, W] value
  with C <= 16 * CB: from_blocked, then the first C channels;
- same number of elements, other shape (a view the runtime did not apply
  as the graph wrote it): flattened, in row-major order;
- anything else: not compared, with the reason.

Integer values with known quantization parameters are compared
dequantized, (q - zero_point) * scale, so errors are in the model's units.
"""

from __future__ import annotations

from typing import Optional

import torch

BLOCK = 16


def from_blocked(value: torch.Tensor, channels: int) -> torch.Tensor:
    """[N, CB, H, W, 16] -> [N, channels, H, W] (channels <= 16 * CB)."""
    n, cb, h, w, block = value.shape
    plain = value.permute(0, 1, 4, 2, 3).reshape(n, cb * block, h, w)
    return plain[:, :channels]


def align(runtime: torch.Tensor, eager: torch.Tensor) -> tuple[Optional[torch.Tensor], str]:
    """(`runtime` laid out as `eager`, "" or the layout it came in), or
    (None, why not comparable)."""
    if tuple(runtime.shape) == tuple(eager.shape):
        return runtime, ""
    if runtime.dim() == 5 and eager.dim() == 4 and runtime.shape[-1] == BLOCK:
        n, cb, h, w, _ = runtime.shape
        if (n, h, w) == (eager.shape[0], eager.shape[2], eager.shape[3]) \
                and eager.shape[1] <= cb * BLOCK:
            return from_blocked(runtime, eager.shape[1]), "NCHW16c"
    if runtime.numel() == eager.numel():
        return runtime.reshape(eager.shape), f"reshaped from {list(runtime.shape)}"
    return None, (f"runtime shape {list(runtime.shape)} vs eager {list(eager.shape)}: "
                  "no known layout transform between them")


def as_real(value: torch.Tensor, qparams: Optional[tuple[float, int]]) -> torch.Tensor:
    """`value` in float64, dequantized when it is an integer tensor with `qparams`."""
    if qparams is not None and not value.is_floating_point() and value.dtype != torch.bool:
        scale, zero_point = qparams
        return (value.to(torch.float64) - zero_point) * scale
    return value.to(torch.float64)
