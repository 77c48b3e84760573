"""Index-driven ops in core ops: index_reduce (scatter_reduce along the
indexed dimension), put (index_put on the flattened tensor), bucketize and
searchsorted (counting the boundaries below each value: O(values x
boundaries) comparisons where a binary search would be O(log) each)."""

from __future__ import annotations

from typing import Optional

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


@decomposes(aten.index_reduce.default)
def index_reduce(x: torch.Tensor, dim: int, index: torch.Tensor, source: torch.Tensor, reduce: str,
                 *, include_self: bool = True) -> torch.Tensor:
    """x with source's slices reduced ('prod', 'mean', 'amax', 'amin') into
    the slices `index` names along `dim`."""
    if x.dim() == 0:  # a scalar is one slice of length 1
        one = index_reduce(aten.unsqueeze.default(x, 0), 0, index, aten.view.default(source, [-1]),
                           reduce, include_self=include_self)
        return aten.squeeze.dim(one, 0)
    dim = dim % x.dim()
    shape = [1] * source.dim()
    shape[dim] = -1
    expanded = aten.expand.default(aten.view.default(index, shape), list(source.shape))
    return aten.scatter_reduce.two(x, dim, expanded, source, reduce, include_self=include_self)


@decomposes(aten.put.default)
def put(x: torch.Tensor, index: torch.Tensor, source: torch.Tensor, accumulate: bool = False) -> torch.Tensor:
    """x.flatten()[index] = source (or += with accumulate), in x's shape."""
    flat = aten.view.default(x, [-1])
    positions = aten.view.default(index, [-1])
    count = flat.shape[0]
    positions = aten.where.self(aten.lt.Scalar(positions, 0), aten.add.Scalar(positions, count), positions)
    updated = aten.index_put.default(flat, [positions], aten.view.default(source, [-1]), accumulate)
    return aten.view.default(updated, list(x.shape))


def _count_below(boundaries: torch.Tensor, values: torch.Tensor, right: bool,
                 out_int32: bool) -> torch.Tensor:
    """How many of boundaries[..., :] (last dim) are < each value (<= with
    right); NaN values count every boundary (they sort last)."""
    compare = aten.le.Tensor if right else aten.lt.Tensor
    below = compare(aten.unsqueeze.default(boundaries, -2), aten.unsqueeze.default(values, -1))
    if values.is_floating_point():
        below = aten.logical_or.default(below, aten.unsqueeze.default(aten.isnan.default(values), -1))
    dtype = torch.int32 if out_int32 else torch.int64
    return aten.sum.dim_IntList(below, [-1], False, dtype=dtype)


@decomposes(aten.bucketize.Tensor)
def bucketize(x: torch.Tensor, boundaries: torch.Tensor, *, out_int32: bool = False,
              right: bool = False) -> torch.Tensor:
    dtype = torch.promote_types(x.dtype, boundaries.dtype)
    x32 = x if x.dtype == dtype else aten._to_copy.default(x, dtype=dtype)
    b = boundaries if boundaries.dtype == dtype else aten._to_copy.default(boundaries, dtype=dtype)
    flat = aten.view.default(x32, [-1])
    counts = _count_below(b, flat, right, out_int32)
    return aten.view.default(counts, list(x.shape))


@decomposes(aten.searchsorted.Tensor)
def searchsorted(sorted_sequence: torch.Tensor, x: torch.Tensor, *, out_int32: bool = False,
                 right: bool = False, side: Optional[str] = None,
                 sorter: Optional[torch.Tensor] = None) -> torch.Tensor:
    right = right or side == "right"
    if sorter is not None:
        sorted_sequence = aten.gather.default(sorted_sequence, -1, sorter)
    if sorted_sequence.dim() == 1:
        return bucketize(x, sorted_sequence, out_int32=out_int32, right=right)
    dtype = torch.promote_types(x.dtype, sorted_sequence.dtype)
    values = x if x.dtype == dtype else aten._to_copy.default(x, dtype=dtype)
    seq = sorted_sequence if sorted_sequence.dtype == dtype else aten._to_copy.default(sorted_sequence, dtype=dtype)
    # seq [..., M], values [..., K]: compare as [..., K, M].
    below = (aten.le.Tensor if right else aten.lt.Tensor)(
        aten.unsqueeze.default(seq, -2), aten.unsqueeze.default(values, -1))
    if values.is_floating_point():
        below = aten.logical_or.default(below, aten.unsqueeze.default(aten.isnan.default(values), -1))
    return aten.sum.dim_IntList(below, [-1], False, dtype=torch.int32 if out_int32 else torch.int64)
