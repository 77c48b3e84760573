"""Multi-node patterns the Vulkan delegate runs as one shader.

"Safe softmax": torch.export decomposes scaled_dot_product_attention's
softmax into

    s = _softmax(x, d)
    masked = logical_not(any(logical_not(eq(x, -inf)), d, keepdim=True))
    y = where(masked, full_like(s, 0), s)

(rows that are entirely -inf give 0, not NaN). The softmax shader already
gives 0 for such rows, so `y` is `s`: the bool nodes are absorbed (no
tensors, no dispatches) and `where` becomes an alias of the softmax.
mark_patterns() records each node's role in node.meta["vulkan_pattern"].
"""

from __future__ import annotations

import math
from typing import Optional

import torch

aten = torch.ops.aten
ROLE_KEY = "vulkan_pattern"


def pattern_role(node: torch.fx.Node) -> Optional[str]:
    """"absorbed", "softmax_result" or None."""
    return node.meta.get(ROLE_KEY)


def _single_user(node: torch.fx.Node, target) -> bool:
    return (isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target is target
            and len(node.users) == 1)


def match_safe_softmax(where: torch.fx.Node) -> Optional[list[torch.fx.Node]]:
    """The absorbed nodes when `where` ends a safe softmax, else None."""
    if where.target is not aten.where.self or len(where.args) != 3:
        return None
    cond, full, soft = where.args
    if not (isinstance(soft, torch.fx.Node) and soft.target is aten._softmax.default):
        return None
    if not _single_user(full, aten.full_like.default) or full.args[0] is not soft or full.args[1] != 0:
        return None
    if not _single_user(cond, aten.logical_not.default):
        return None
    any_node = cond.args[0]
    if not _single_user(any_node, aten.any.dim):
        return None
    inner = any_node.args[0]
    if not _single_user(inner, aten.logical_not.default):
        return None
    eq = inner.args[0]
    if not _single_user(eq, aten.eq.Scalar) or eq.args[0] is not soft.args[0]:
        return None
    if not (isinstance(eq.args[1], float) and math.isinf(eq.args[1]) and eq.args[1] < 0):
        return None
    rank = soft.meta["val"].dim()
    if rank == 0 or any_node.args[1] % rank != soft.args[1] % rank:
        return None
    return [eq, inner, any_node, cond, full]


def mark_patterns(graph: torch.fx.Graph) -> None:
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        absorbed = match_safe_softmax(node)
        if absorbed is not None:
            for n in absorbed:
                n.meta[ROLE_KEY] = "absorbed"
            node.meta[ROLE_KEY] = "softmax_result"
