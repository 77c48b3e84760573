"""Counting values into bins and segments, in core ops: histc, histogram
(bin count form), segment_reduce and embedding_bag's forward.

Each compares every value with every bin / segment ([values, bins] masks):
exact and static-shaped, O(values x bins) work and memory where a kernel
would be O(values). Bin positions follow eager's CPU kernel:
(x - low) * bins / (high - low), truncated, the top edge in the last bin.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _arange(n: int, device, start: int = 0) -> torch.Tensor:
    return aten.arange.start_step(start, start + n, 1, dtype=torch.int64, device=device)


def _data_range(flat: torch.Tensor, low: float, high: float, widen: float) -> tuple:
    """(low, high) as 0-dim tensors: the given range, or the data's min and
    max when low == high, widened by `widen` each way when they coincide."""
    if low != high:
        return (aten.scalar_tensor.default(low, dtype=flat.dtype, device=flat.device),
                aten.scalar_tensor.default(high, dtype=flat.dtype, device=flat.device))
    lo, hi = aten.amin.default(flat, [0]), aten.amax.default(flat, [0])
    same = aten.eq.Tensor(lo, hi)
    return (aten.where.self(same, aten.sub.Scalar(lo, widen), lo),
            aten.where.self(same, aten.add.Scalar(hi, widen), hi))


def _bin_counts(flat: torch.Tensor, bins: int, lo: torch.Tensor, hi: torch.Tensor,
                weight: Optional[torch.Tensor]) -> torch.Tensor:
    position = aten.div.Tensor(aten.mul.Scalar(aten.sub.Tensor(flat, lo), bins), aten.sub.Tensor(hi, lo))
    index = aten.clamp.default(aten._to_copy.default(position, dtype=torch.int64), 0, bins - 1)
    inside = aten.logical_and.default(aten.ge.Tensor(flat, lo), aten.le.Tensor(flat, hi))
    hits = aten.logical_and.default(aten.eq.Tensor(aten.unsqueeze.default(index, 1),
                                                   aten.unsqueeze.default(_arange(bins, flat.device), 0)),
                                    aten.unsqueeze.default(inside, 1))
    amounts = aten._to_copy.default(hits, dtype=flat.dtype)
    if weight is not None:
        amounts = aten.mul.Tensor(amounts, aten.unsqueeze.default(aten.view.default(weight, [-1]), 1))
    return aten.sum.dim_IntList(amounts, [0], False)


@decomposes(aten.histc.default)
def histc(x: torch.Tensor, bins: int = 100, min: float = 0, max: float = 0) -> torch.Tensor:
    flat = aten.view.default(x, [-1])
    lo, hi = _data_range(flat, float(min), float(max), 1.0)
    return _bin_counts(flat, bins, lo, hi, None)


@decomposes(aten.histogram.bin_ct)
def histogram(x: torch.Tensor, bins: int = 100, *, range: Optional[Sequence[float]] = None,
              weight: Optional[torch.Tensor] = None, density: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    flat = aten.view.default(x, [-1])
    low, high = (float(range[0]), float(range[1])) if range is not None else (0.0, 0.0)
    lo, hi = _data_range(flat, low, high, 0.5)
    steps = aten.div.Scalar(aten._to_copy.default(_arange(bins + 1, x.device), dtype=x.dtype), bins)
    edges = aten.add.Tensor(lo, aten.mul.Tensor(steps, aten.sub.Tensor(hi, lo)))
    hist = _bin_counts(flat, bins, lo, hi, weight)
    if density:
        widths = aten.sub.Tensor(aten.slice.Tensor(edges, 0, 1, bins + 1), aten.slice.Tensor(edges, 0, 0, bins))
        hist = aten.div.Tensor(hist, aten.mul.Tensor(widths, aten.sum.default(hist)))
    return hist, edges


_SEGMENT_EMPTY = {"max": float("-inf"), "min": float("inf"), "sum": 0.0, "prod": 1.0, "mean": float("nan")}


@decomposes(aten.segment_reduce.default)
def segment_reduce(data: torch.Tensor, reduce: str, *, lengths: Optional[torch.Tensor] = None,
                   indices: Optional[torch.Tensor] = None, offsets: Optional[torch.Tensor] = None,
                   axis: int = 0, unsafe: bool = False, initial=None) -> torch.Tensor:
    """Reduces consecutive segments of data along `axis` (given by their
    lengths or offsets, 1-d); `initial` joins every segment (and fills
    empty ones), else an empty segment gets the reduction's identity (NaN
    for mean)."""
    if indices is not None or (lengths is not None and lengths.dim() != 1) or (
            offsets is not None and offsets.dim() != 1):
        raise NotImplementedError("segment_reduce with indices or batched lengths / offsets")
    axis = axis % data.dim()
    if offsets is None:
        ends = aten.cumsum.default(lengths, 0)
        starts = aten.sub.Tensor(ends, lengths)
    else:
        count = offsets.shape[0] - 1
        starts, ends = aten.slice.Tensor(offsets, 0, 0, count), aten.slice.Tensor(offsets, 0, 1, count + 1)
    n = data.shape[axis]
    j = aten.unsqueeze.default(_arange(n, data.device), 0)
    member = aten.logical_and.default(aten.ge.Tensor(j, aten.unsqueeze.default(starts, 1)),
                                      aten.lt.Tensor(j, aten.unsqueeze.default(ends, 1)))  # [S, n]
    moved = aten.unsqueeze.default(aten.movedim.int(data, axis, 0), 0)  # [1, n, ...]
    member = aten.view.default(member, list(member.shape) + [1] * (data.dim() - 1))
    identity = _SEGMENT_EMPTY["sum" if reduce == "mean" else reduce]
    values = aten.where.self(member, moved, aten.full_like.default(moved, identity))
    reducer = {"max": aten.amax.default, "min": aten.amin.default,
               "sum": lambda t, d: aten.sum.dim_IntList(t, d), "mean": lambda t, d: aten.sum.dim_IntList(t, d),
               "prod": lambda t, d: aten.prod.dim_int(t, d[0])}[reduce]
    result = reducer(values, [1])
    sizes = aten.sum.dim_IntList(member, [1], False, dtype=torch.int64)  # [S, 1...]
    if reduce == "mean":
        if initial is not None:
            result = aten.add.Scalar(result, initial)
            sizes = aten.add.Scalar(sizes, 1)
        result = aten.div.Tensor(result, aten._to_copy.default(sizes, dtype=data.dtype))
    elif initial is not None:
        start = aten.full_like.default(result, initial)
        combine = {"max": aten.maximum.default, "min": aten.minimum.default, "sum": aten.add.Tensor,
                   "prod": aten.mul.Tensor}[reduce]
        result = combine(result, start)
    return aten.movedim.int(result, 0, axis)


# torch 2.13 has no Meta (fake-tensor) kernel for histogram.bin_ct, so a
# program using it could not be exported with a dynamic dim.
_META_LIBRARY = torch.library.Library("aten", "IMPL")


def _histogram_meta(x: torch.Tensor, bins: int = 100, *, range=None, weight=None, density: bool = False):
    return x.new_empty([bins]), x.new_empty([bins + 1])


if not torch._C._dispatch_has_kernel_for_dispatch_key("aten::histogram.bin_ct", "Meta"):
    _META_LIBRARY.impl("histogram.bin_ct", _histogram_meta, "Meta")


@decomposes(aten._embedding_bag_forward_only.default)
def embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Optional[torch.Tensor] = None, include_last_offset: bool = False,
                  padding_idx: int = -1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """F.embedding_bag's forward: the rows `indices` picks from `weight`,
    summed (mode 0, times per_sample_weights), averaged (1) or maxed (2)
    over each bag of consecutive indices that `offsets` starts; empty bags
    give 0, indices equal to padding_idx (>= 0) are left out. Outputs 1-3
    are eager's bookkeeping for the backward pass (bag of each index, bag
    sizes, the max's source rows) in eager's shapes; F.embedding_bag returns
    output 0 only."""
    n = indices.shape[0]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    starts = aten.slice.Tensor(offsets, 0, 0, bags)
    if include_last_offset:
        ends = aten.slice.Tensor(offsets, 0, 1, bags + 1)
    else:
        ends = aten.cat.default([aten.slice.Tensor(offsets, 0, 1, bags),
                                 aten.full.default([1], n, dtype=offsets.dtype, device=offsets.device)])
    j = aten.unsqueeze.default(_arange(n, weight.device), 0)
    member = aten.logical_and.default(aten.ge.Tensor(j, aten.unsqueeze.default(starts, 1)),
                                      aten.lt.Tensor(j, aten.unsqueeze.default(ends, 1)))  # [bags, n]
    if padding_idx >= 0:
        member = aten.logical_and.default(member, aten.unsqueeze.default(aten.ne.Scalar(indices, padding_idx), 0))
    rows = aten.index_select.default(weight, 0, indices)  # [n, D]
    if per_sample_weights is not None:
        rows = aten.mul.Tensor(rows, aten.unsqueeze.default(per_sample_weights, 1))
    sizes = aten.sum.dim_IntList(member, [1], False, dtype=torch.int64)
    bag_of = aten.sum.dim_IntList(aten.mul.Tensor(aten._to_copy.default(member, dtype=torch.int64),
                                                  aten.unsqueeze.default(_arange(bags, weight.device), 1)),
                                  [0], False)
    if mode == 2:
        masked = aten.where.self(aten.unsqueeze.default(member, 2), aten.unsqueeze.default(rows, 0),
                                 aten.full_like.default(aten.unsqueeze.default(rows, 0), float("-inf")))
        empty = aten.unsqueeze.default(aten.eq.Scalar(sizes, 0), 1)
        out = aten.where.self(empty, aten.zeros_like.default(aten.select.int(masked, 1, 0)), aten.amax.default(masked, [1]))
        source = aten.index.Tensor(indices, [aten.argmax.default(masked, 1)])
        return out, bag_of, sizes, aten.where.self(empty, aten.zeros_like.default(source), source)
    out = aten.mm.default(aten._to_copy.default(member, dtype=weight.dtype), rows)
    if mode == 1:
        count = aten.clamp.default(aten._to_copy.default(sizes, dtype=weight.dtype), 1)
        return aten.div.Tensor(out, aten.unsqueeze.default(count, 1)), bag_of, sizes, sizes
    empty_bags = aten.zeros.default([0], dtype=torch.int64, device=weight.device)
    return out, empty_bags, sizes, aten.zeros_like.default(sizes)


@decomposes(aten.mode.default)
def mode(x: torch.Tensor, dim: int = -1, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """The most frequent value along `dim` (the smallest of equally frequent
    ones) and the index of one of its occurrences (eager leaves which one
    unspecified): every element's count from an [n, n] equality mask."""
    if x.dim() == 0:
        return aten.clone.default(x), aten.zeros_like.default(x, dtype=torch.int64)
    dim = dim % x.dim()
    lanes = aten.movedim.int(x, dim, -1)
    counts = aten.sum.dim_IntList(aten.eq.Tensor(aten.unsqueeze.default(lanes, -1), aten.unsqueeze.default(lanes, -2)),
                                  [-1], False, dtype=torch.int64)
    frequent = aten.eq.Tensor(counts, aten.amax.default(counts, [-1], True))
    if x.is_floating_point():
        largest: float | int | bool = float("inf")
    elif x.dtype == torch.bool:
        largest = True
    else:
        largest = torch.iinfo(x.dtype).max
    values = aten.amin.default(aten.where.self(frequent, lanes, aten.full_like.default(lanes, largest)), [-1], True)
    hit = aten.logical_and.default(frequent, aten.eq.Tensor(lanes, values))
    indices = aten.argmax.default(aten._to_copy.default(hit, dtype=torch.int64), -1, True)
    values, indices = aten.movedim.int(values, -1, dim), aten.movedim.int(indices, -1, dim)
    if not keepdim:
        values, indices = aten.squeeze.dim(values, dim), aten.squeeze.dim(indices, dim)
    return values, indices
