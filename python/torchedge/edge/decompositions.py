"""The decomposition table of `to_edge`: torch's Core ATen table plus a few
rules for non-core operators that torch leaves alone but that have an
obvious core form."""

from __future__ import annotations

import torch
from torch.export.decomp_utils import CustomDecompTable

aten = torch.ops.aten


def _max_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amax.default(x, list(range(x.dim())))


def _min_all(x: torch.Tensor) -> torch.Tensor:
    return aten.amin.default(x, list(range(x.dim())))


EXTRA_DECOMPOSITIONS = {
    aten.max.default: _max_all,
    aten.min.default: _min_all,
}


def edge_decompositions() -> CustomDecompTable:
    """Core ATen decompositions + EXTRA_DECOMPOSITIONS."""
    table = torch.export.default_decompositions()
    for op, rule in EXTRA_DECOMPOSITIONS.items():
        table[op] = rule
    return table
