"""Scatters into views of a tensor, in core ops: diagonal_scatter (index_put
at the diagonal's coordinates) and as_strided_scatter (index_put at the
view's storage offsets in the flattened tensor, which is what the view
addresses when the tensor is contiguous, as eager's are)."""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _arange(n: int, device) -> torch.Tensor:
    return aten.arange.start_step(0, n, 1, dtype=torch.int64, device=device)


@decomposes(aten.diagonal_scatter.default)
def diagonal_scatter(x: torch.Tensor, src: torch.Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> torch.Tensor:
    """x with its diagonal (x.diagonal(offset, dim1, dim2), whose last dim
    runs along the diagonal) replaced by src."""
    rank = x.dim()
    d1, d2 = dim1 % rank, dim2 % rank
    order = [d1, d2] + [d for d in range(rank) if d not in (d1, d2)]
    inverse = [order.index(d) for d in range(rank)]
    moved = aten.permute.default(x, order)
    rows, cols = x.shape[d1], x.shape[d2]
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    steps = _arange(length, x.device)
    r = steps if offset >= 0 else aten.add.Scalar(steps, -offset)
    c = aten.add.Scalar(steps, offset) if offset >= 0 else steps
    values = aten.permute.default(src, [src.dim() - 1] + list(range(src.dim() - 1)))
    updated = aten.index_put.default(moved, [r, c], values)
    return aten.permute.default(updated, inverse)


@decomposes(aten.as_strided_scatter.default)
def as_strided_scatter(x: torch.Tensor, src: torch.Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: Optional[int] = None) -> torch.Tensor:
    """x (contiguous) with the elements of as_strided(size, stride,
    storage_offset) replaced by src, element by element."""
    positions = aten.full.default([1] * len(size), storage_offset or 0, dtype=torch.int64, device=x.device)
    for d, (n, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        along = aten.view.default(aten.mul.Scalar(_arange(n, x.device), step), shape)
        positions = aten.add.Tensor(positions, along)
    flat = aten.view.default(aten.clone.default(x, memory_format=torch.contiguous_format), [-1])
    positions = aten.view.default(aten.expand.default(positions, list(size)), [-1])
    updated = aten.index_put.default(flat, [positions], aten.reshape.default(src, [-1]))
    return aten.view.default(updated, list(x.shape))
