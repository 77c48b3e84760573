"""Reductions and scans: max / min of everything, vector norms, var_mean,
median / nanmedian / kthvalue (through sort), and cummax / cummin /
logcumsumexp.

The scans compare every position with every earlier one along the scanned
dimension (an [L, L] triangle): exact and shape-polymorphic, but O(L^2)
time and memory for a length-L scan; a dedicated kernel would be linear.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


@decomposes(aten.max.default)
def max_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amax.default(x, list(range(x.dim())))


@decomposes(aten.min.default)
def min_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amin.default(x, list(range(x.dim())))


@decomposes(aten.linalg_vector_norm.default)
def linalg_vector_norm(x: torch.Tensor, ord: float = 2, dim=None, keepdim: bool = False, *,
                       dtype=None) -> torch.Tensor:
    """torch.linalg.vector_norm (F.normalize, torch.norm): inf and -inf are
    amax / amin of |x|, 0 counts non-zeros, 1 sums |x|, 2 is
    sqrt(sum(x * x)), any other p is sum(|x| ** p) ** (1 / p); a complex x
    is the norm of abs(x) (real, as eager's result). Reduces over
    `dim` (all dimensions when None or empty, as eager does). float16 and
    bfloat16 are computed in float32 and rounded once, as eager accumulates
    (their squares overflow or lose digits on their own)."""
    if dtype is not None:
        x = aten._to_copy.default(x, dtype=dtype)
    if x.is_complex():  # the norm of the magnitudes (|x| == 0 exactly where x == 0)
        return linalg_vector_norm(aten.abs.default(x), ord, dim, keepdim)
    if x.dtype in (torch.float16, torch.bfloat16):
        wide = linalg_vector_norm(aten._to_copy.default(x, dtype=torch.float32), ord, dim, keepdim)
        return aten._to_copy.default(wide, dtype=x.dtype)
    dims = list(range(x.dim())) if dim is None or len(dim) == 0 else list(dim)
    ord = float(ord)
    if ord == 2.0:
        return aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), dims, keepdim))
    magnitude = aten.abs.default(x)
    if ord == float("inf"):
        return aten.amax.default(magnitude, dims, keepdim)
    if ord == float("-inf"):
        return aten.amin.default(magnitude, dims, keepdim)
    if ord == 0.0:
        nonzero = aten._to_copy.default(aten.ne.Scalar(x, 0), dtype=x.dtype)
        return aten.sum.dim_IntList(nonzero, dims, keepdim)
    if ord == 1.0:
        return aten.sum.dim_IntList(magnitude, dims, keepdim)
    powered = aten.sum.dim_IntList(aten.pow.Tensor_Scalar(magnitude, ord), dims, keepdim)
    return aten.pow.Tensor_Scalar(powered, 1.0 / ord)


@decomposes(aten.var_mean.correction)
def var_mean(x: torch.Tensor, dim: Optional[Sequence[int]] = None, *, correction=None,
             keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(var, mean) as two reductions (var's kernel makes its own pass for
    the mean; one fused pass would need a kernel)."""
    var = aten.var.correction(x, dim, correction=correction, keepdim=keepdim)
    return var, aten.mean.dim(x, dim, keepdim)


def _nan_if_any_nan(picked: torch.Tensor, x: torch.Tensor, dim: Optional[int],
                    keepdim: bool) -> torch.Tensor:
    dims = list(range(x.dim())) if dim is None else [dim]
    has_nan = aten.any.dims(aten.isnan.default(x), dims, keepdim)
    return aten.where.self(has_nan, aten.full_like.default(picked, float("nan")), picked)


@decomposes(aten.median.default)
def median(x: torch.Tensor) -> torch.Tensor:
    """The lower median of all elements: element (n - 1) // 2 of the sorted
    values; NaN when any element is NaN (as eager)."""
    flat = aten.view.default(x, [-1])
    values, _ = aten.sort.default(flat, 0)
    picked = aten.select.int(values, 0, (flat.shape[0] - 1) // 2)
    return _nan_if_any_nan(picked, x, None, False) if x.is_floating_point() else picked


def _pick_sorted(x: torch.Tensor, dim: int, keepdim: bool,
                 position: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """values and indices at `position` (keepdim-shaped int64) of x sorted along dim."""
    values, indices = aten.sort.stable(x, stable=True, dim=dim)
    picked = aten.gather.default(values, dim, position)
    index = aten.gather.default(indices, dim, position)
    if not keepdim:
        picked, index = aten.squeeze.dim(picked, dim), aten.squeeze.dim(index, dim)
    return picked, index


def _lane_position(x: torch.Tensor, dim: int, value: int) -> torch.Tensor:
    shape = list(x.shape)
    shape[dim] = 1
    return aten.full.default(shape, value, dtype=torch.int64, device=x.device)


@decomposes(aten.median.dim)
def median_dim(x: torch.Tensor, dim: int, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Lower median along `dim` with its index (a stable sort: ties give the
    first index in sorted order); a lane with a NaN gives NaN."""
    if x.dim() == 0:
        return x.clone(), aten.zeros_like.default(x, dtype=torch.int64)
    position = _lane_position(x, dim, (x.shape[dim] - 1) // 2)
    picked, index = _pick_sorted(x, dim, keepdim, position)
    return (_nan_if_any_nan(picked, x, dim, keepdim) if x.is_floating_point() else picked), index


@decomposes(aten.nanmedian.default)
def nanmedian(x: torch.Tensor) -> torch.Tensor:
    """The lower median of the non-NaN elements (NaN if all are NaN)."""
    flat = aten.view.default(x, [-1])
    return aten.squeeze.dim(_nanmedian_lane(flat, 0, True)[0], 0)


@decomposes(aten.nanmedian.dim)
def nanmedian_dim(x: torch.Tensor, dim: int, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    if x.dim() == 0:
        return x.clone(), aten.zeros_like.default(x, dtype=torch.int64)
    return _nanmedian_lane(x, dim, keepdim)


def _nanmedian_lane(x: torch.Tensor, dim: int, keepdim: bool) -> tuple[torch.Tensor, torch.Tensor]:
    # NaNs sort last; the median of the k non-NaN values is at (k - 1) // 2.
    if not x.is_floating_point():
        return _pick_sorted(x, dim, keepdim, _lane_position(x, dim, (x.shape[dim] - 1) // 2))
    count = aten.sum.dim_IntList(aten.logical_not.default(aten.isnan.default(x)), [dim], True)
    position = aten.div.Scalar_mode(aten.sub.Scalar(count, 1), 2, rounding_mode="floor")
    position = aten.clamp.default(position, 0)
    return _pick_sorted(x, dim, keepdim, aten._to_copy.default(position, dtype=torch.int64))


@decomposes(aten.kthvalue.default)
def kthvalue(x: torch.Tensor, k: int, dim: int = -1, keepdim: bool = False
             ) -> tuple[torch.Tensor, torch.Tensor]:
    """The k-th smallest along `dim` and its index (NaN sorts last, as eager)."""
    if x.dim() == 0:
        return x.clone(), aten.zeros_like.default(x, dtype=torch.int64)
    return _pick_sorted(x, dim, keepdim, _lane_position(x, dim, k - 1))


def _triangle(x: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(x laid out as [..., i, j, ...] with x[..., j, ...] at every i,
    the mask j <= i broadcastable to it, j as int64 broadcastable to it)."""
    length = x.shape[dim]
    j = aten.arange.start_step(0, length, 1, dtype=torch.int64, device=x.device)
    mask = aten.le.Tensor(aten.unsqueeze.default(j, 0), aten.unsqueeze.default(j, 1))
    j = aten.unsqueeze.default(j, 0)
    for _ in range(x.dim() - dim - 1):
        mask, j = aten.unsqueeze.default(mask, -1), aten.unsqueeze.default(j, -1)
    return aten.unsqueeze.default(x, dim), mask, j


def _lowest(dtype: torch.dtype, highest: bool) -> float | int | bool:
    if dtype.is_floating_point:
        return float("inf") if highest else float("-inf")
    if dtype == torch.bool:
        return highest
    info = torch.iinfo(dtype)
    return info.max if highest else info.min


def _cumulative_extreme(x: torch.Tensor, dim: int, is_max: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """cummax / cummin: NaN propagates; the index is the last position that
    holds the running extreme (eager's choice on ties and NaN)."""
    if x.dim() == 0:
        return x.clone(), aten.zeros_like.default(x, dtype=torch.int64)
    dim = dim % x.dim()
    rows, mask, j = _triangle(x, dim)
    fill = aten.full_like.default(rows, _lowest(x.dtype, highest=not is_max))
    masked = aten.where.self(mask, rows, fill)
    reduce = aten.amax.default if is_max else aten.amin.default
    values = reduce(masked, [dim + 1], False)
    extreme = aten.unsqueeze.default(values, dim + 1)
    hit = aten.eq.Tensor(masked, extreme)
    if x.is_floating_point():
        both_nan = aten.logical_and.default(aten.isnan.default(masked), aten.isnan.default(extreme))
        hit = aten.logical_or.default(hit, both_nan)
    hit = aten.logical_and.default(hit, mask)
    candidates = aten.where.self(hit, j, aten.full_like.default(j, -1))
    return values, aten.amax.default(candidates, [dim + 1], False)


@decomposes(aten.cummax.default)
def cummax(x: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    return _cumulative_extreme(x, dim, is_max=True)


@decomposes(aten.cummin.default)
def cummin(x: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    return _cumulative_extreme(x, dim, is_max=False)


@decomposes(aten.logcumsumexp.default)
def logcumsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    """log(sum(exp(x[..j..]) for j <= i)), each prefix shifted by its own max."""
    if x.dim() == 0:
        return x.clone()
    dim = dim % x.dim()
    rows, mask, _ = _triangle(x, dim)
    masked = aten.where.self(mask, rows, aten.full_like.default(rows, float("-inf")))
    peak = aten.amax.default(masked, [dim + 1], True)
    shift = aten.where.self(aten.isinf.default(peak), aten.zeros_like.default(peak), peak)
    total = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(masked, shift)), [dim + 1], False)
    return aten.add.Tensor(aten.log.default(total), aten.squeeze.dim(shift, dim + 1))
