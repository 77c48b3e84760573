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


EXTRA_DECOMPOSITIONS = {
    aten.max.default: _max_all,
    aten.min.default: _min_all,
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
