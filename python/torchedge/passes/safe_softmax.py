"""Fold scaled_dot_product_attention's "safe softmax" back into one op.

torch exports F.scaled_dot_product_attention's softmax as

    s  = aten._softmax(x, dim, False)
    m  = aten.logical_not(aten.any.dim(aten.logical_not(aten.eq.Scalar(x, -inf)), dim, True))
    y  = aten.where.self(m, aten.full_like(s, 0), s)

(rows of x that are all -inf give 0, not NaN). Each y becomes
torchedge::safe_softmax(x, dim) (safe_softmax_op.py): one pass over the
scores instead of six, and no boolean or zero-filled temporaries (ViT-Tiny:
seven ops per layer, ~5 % of its time at 1 thread). Floating x of the
softmax kernels' dtypes only; the pattern's nodes nothing else reads are
dropped. Runs at to_pte time on a copy of each method with the activation
fusion (PteOptions.fuse_activations: upstream's runtime lacks the kernel);
the EdgeProgram stays core ATen.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import safe_softmax_op
from torchedge.passes.graph_modules import graph_modules

aten = torch.ops.aten
SAFE_SOFTMAX = getattr(getattr(torch.ops, safe_softmax_op.NAMESPACE),
                       safe_softmax_op.OP_NAME).default
_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def _call(node: Any, target: Any, nargs: int) -> bool:
    return (isinstance(node, torch.fx.Node) and node.op == "call_function"
            and node.target == target and len(node.args) == nargs)


def _dim(value: Any, rank: int) -> Optional[int]:
    if not isinstance(value, int) or not -rank <= value < max(rank, 1):
        return None
    return value % rank if rank else 0


def _match(where: torch.fx.Node) -> Optional[tuple[torch.fx.Node, int]]:
    """(x, dim) when `where` ends the pattern in the module docstring."""
    if not _call(where, aten.where.self, 3) or where.kwargs:
        return None
    cond, zeros, s = where.args
    if not _call(s, aten._softmax.default, 3) or s.args[2] is not False:
        return None
    x, dim = s.args[0], s.args[1]
    val = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
    if not isinstance(val, torch.Tensor) or val.dtype not in _DTYPES:
        return None
    rank = val.dim()
    d = _dim(dim, rank)
    if d is None:
        return None
    if not _call(zeros, aten.full_like.default, 2) or zeros.args[0] is not s \
            or zeros.args[1] != 0 or zeros.kwargs.get("dtype") not in (None, val.dtype):
        return None
    if not _call(cond, aten.logical_not.default, 1):
        return None
    any_ = cond.args[0]
    if not _call(any_, aten.any.dim, 3) or any_.args[2] is not True \
            or _dim(any_.args[1], rank) != d:
        return None
    not_eq = any_.args[0]
    if not _call(not_eq, aten.logical_not.default, 1):
        return None
    eq = not_eq.args[0]
    if not _call(eq, aten.eq.Scalar, 2) or eq.args[0] is not x:
        return None
    if not (isinstance(eq.args[1], float) and eq.args[1] == -math.inf):
        return None
    return x, d


def _rewrite_in(gm: torch.fx.GraphModule, apply: bool) -> int:
    count = 0
    graph = gm.graph
    for node in list(graph.nodes):
        found = _match(node)
        if found is None:
            continue
        count += 1
        if not apply:
            continue
        # The where node becomes the call (keeping its name, which the
        # signature may reference, and its meta); the pattern's other nodes
        # go when nothing else reads them (the softmax may have other users).
        cond, zeros, softmax = node.args
        any_ = cond.args[0]
        not_eq = any_.args[0]
        node.target = SAFE_SOFTMAX
        node.args = found
        node.kwargs = {}
        for dead in (zeros, cond, any_, not_eq, not_eq.args[0], softmax):
            if not dead.users:
                graph.erase_node(dead)
    if apply and count:
        graph.lint()
        gm.recompile()
    return count


def count_safe_softmax(gm: torch.fx.GraphModule) -> int:
    """How many safe-softmax patterns fuse_safe_softmax would rewrite."""
    return sum(_rewrite_in(module, apply=False) for module in graph_modules(gm))


def fuse_safe_softmax(gm: torch.fx.GraphModule) -> int:
    """Rewrites, in `gm` and its torch.cond branch graphs, each safe-softmax
    pattern into one torchedge::safe_softmax call. Returns the number
    rewritten."""
    return sum(_rewrite_in(module, apply=True) for module in graph_modules(gm))
