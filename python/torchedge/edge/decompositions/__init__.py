"""The decomposition table of `to_edge`, in one place.

torch's Core ATen table, plus this package's rules for non-core operators
that torch leaves alone but that have a core form (`rules.RULES`, filled by
the modules below, each rule tested against eager in
tests/opinfo/test_edge_decompositions.py and by the OpInfo sweep), plus
the attention decomposition with eager's layout, minus the decompositions
of operators the portable library runs as one kernel: Core ATen ones
(PRESERVED_CORE_OPS) and non-core ones (rules.KEPT_WHOLE, which the
verifier accepts).
"""

from __future__ import annotations

import torch
from torch.export.decomp_utils import CustomDecompTable

from torchedge.edge.attention_decomposition import ATTENTION_DECOMPOSITIONS
from torchedge.edge.decompositions import elementwise, indexing, linear_algebra, reductions  # noqa: F401 (register rules)
from torchedge.edge.decompositions import binning, contractions, matrix_factorizations, scatters  # noqa: F401 (register rules)
from torchedge.edge.decompositions.rules import KEPT_WHOLE, RULES

aten = torch.ops.aten

# torch's own decompositions (torch._decomp) that reach core operators and
# that its Core ATen table leaves out.
TORCH_RULES = (
    aten.ldexp.Tensor,
)

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

__all__ = ["KEPT_WHOLE", "PRESERVED_CORE_OPS", "RULES", "TORCH_RULES", "edge_decompositions"]


def edge_decompositions() -> CustomDecompTable:
    """Core ATen decompositions + RULES + TORCH_RULES + ATTENTION_DECOMPOSITIONS
    (attention_decomposition.py) - PRESERVED_CORE_OPS - KEPT_WHOLE."""
    from torch._decomp import decomposition_table

    table = torch.export.default_decompositions()
    for op in TORCH_RULES:
        table[op] = decomposition_table[op]
    for op, rule in RULES.items():
        table[op] = rule
    for op, rule in ATTENTION_DECOMPOSITIONS.items():  # eager's output layout
        table[op] = rule
    for op in PRESERVED_CORE_OPS + tuple(KEPT_WHOLE):
        table.pop(op, None)
    return table
