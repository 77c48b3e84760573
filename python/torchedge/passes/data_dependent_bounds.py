"""Upper bounds for data-dependent output sizes.

torch.export gives the size of a nonzero / masked_select / unique output an
unbacked symbol whose range is [0, numel of the input] when the input's
shape is known where the op is traced, but a mask or input computed inside
the program can leave it unbounded ([0, 2^63 - 2]). The memory planner
places such outputs at their bound, so this pass tightens each symbol to
the element count the op can produce (its input's numel at the inputs'
upper-bound sizes; the broadcast numel of self and mask for masked_select).

Afterwards: every output size of a DATA_DEPENDENT_SIZED node whose inputs
have bounded shapes has a finite upper bound no larger than that count.
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree

aten = torch.ops.aten

# Operators whose kernel writes the true output size into an output planned
# at the bound (kernels/portable/data_dependent_kernels.inc).
DATA_DEPENDENT_SIZED = frozenset({
    aten.nonzero.default,
    aten.masked_select.default,
    aten._unique2.default,
    aten.unique_consecutive.default,
})


def _upper(size: object) -> Optional[int]:
    """An int size, or the finite upper bound of a symbolic one, or None."""
    if isinstance(size, int):
        return size
    if isinstance(size, torch.SymInt):
        upper = size.node.shape_env.bound_sympy(size.node.expr).upper
        if upper.is_finite and upper < 2**62:
            return int(upper)
    return None


def _element_bound(node: torch.fx.Node) -> Optional[int]:
    """The most elements `node`'s data-dependent dim can count: its input's
    numel (masked_select: the broadcast of self and mask) at the inputs'
    upper-bound sizes; None when some size is unbounded."""
    shapes = []
    inputs = node.args[:2] if node.target is aten.masked_select.default else node.args[:1]
    for arg in inputs:
        value = arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor):
            return None
        shape = [_upper(d) for d in value.shape]
        if any(d is None for d in shape):
            return None
        shapes.append(shape)
    rank = max(len(s) for s in shapes)
    padded = [[1] * (rank - len(s)) + s for s in shapes]
    return math.prod(max(dims) for dims in zip(*padded))


def bound_data_dependent_sizes(gm: torch.fx.GraphModule) -> None:
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target not in DATA_DEPENDENT_SIZED:
            continue
        limit = _element_bound(node)
        if limit is None:
            continue
        for leaf in pytree.tree_leaves(node.meta.get("val")):
            if not isinstance(leaf, torch.Tensor):
                continue
            for size in leaf.shape:
                if not isinstance(size, torch.SymInt):
                    continue
                env = size.node.shape_env
                for symbol in free_unbacked_symbols(size):
                    if env.bound_sympy(symbol).upper > limit:
                        env.constrain_symbol_range(symbol, compiler_min=0, compiler_max=limit)
