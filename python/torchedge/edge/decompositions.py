"""The decomposition table of `to_edge`: torch's Core ATen table plus a few
rules for non-core operators that torch leaves alone but that have an
obvious core form, minus the decompositions of a few Core ATen operators
that the portable library runs as one kernel (PRESERVED_CORE_OPS)."""

from __future__ import annotations

import torch
from torch.export.decomp_utils import CustomDecompTable

from torchedge.edge.attention_decomposition import ATTENTION_DECOMPOSITIONS

aten = torch.ops.aten


def _max_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amax.default(x, list(range(x.dim())))


def _min_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amin.default(x, list(range(x.dim())))


def _linalg_vector_norm(x: torch.Tensor, ord: float = 2, dim=None, keepdim: bool = False, *,
                        dtype=None) -> torch.Tensor:
    """torch.linalg.vector_norm (F.normalize, torch.norm) in core ops: inf and
    -inf are amax / amin of |x|, 0 counts non-zeros, 1 sums |x|, 2 is
    sqrt(sum(x * x)), any other p is sum(|x| ** p) ** (1 / p). Reduces over
    `dim` (all dimensions when None or empty, as eager does)."""
    if dtype is not None:
        x = aten._to_copy.default(x, dtype=dtype)
    if x.is_complex():
        raise NotImplementedError("linalg_vector_norm of a complex tensor")
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


EXTRA_DECOMPOSITIONS = {
    aten.max.default: _max_all,
    aten.min.default: _min_all,
    aten.linalg_vector_norm.default: _linalg_vector_norm,
}


# Core ATen operators (torch.Tag.core) that torch's table still rewrites
# into index arithmetic (arange, abs, clamp, index, index_put, where); the portable
# library has one kernel for each (kernels/portable/nn3_kernels.inc), which
# needs no index tensors in the arena.
PRESERVED_CORE_OPS = (
    aten.reflection_pad1d.default,
    aten.reflection_pad2d.default,
    aten.reflection_pad3d.default,
    aten.replication_pad2d.default,
    aten.replication_pad3d.default,
    aten.select_scatter.default,
    aten.col2im.default,
)


def edge_decompositions() -> CustomDecompTable:
    """Core ATen decompositions + EXTRA_DECOMPOSITIONS + ATTENTION_DECOMPOSITIONS
    (attention_decomposition.py) - PRESERVED_CORE_OPS."""
    table = torch.export.default_decompositions()
    for op, rule in EXTRA_DECOMPOSITIONS.items():
        table[op] = rule
    for op, rule in ATTENTION_DECOMPOSITIONS.items():  # eager's output layout
        table[op] = rule
    for op in PRESERVED_CORE_OPS:
        table.pop(op, None)
    return table
