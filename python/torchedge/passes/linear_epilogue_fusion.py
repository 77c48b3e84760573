"""Fold the residual add and the GELU after a prepacked linear layer into it.

    y = torchedge::linear_prepacked(x, W, b, N)     [M, N]
    v = aten.view_copy(y, shape) ...                 (zero or more views)
    z = aten.add.Tensor(v, r) (or (r, v))            r of v's shape, float32

becomes y = torchedge::linear_prepacked_fused(x, W, b, N, r, False) with the
views after it (a transformer block's attention output projection and fc2
adding the residual stream), and

    z = aten.gelu(v)                                 (approximate="none")

sets the fused op's `gelu` (fc1 + GELU; after the rule above, also
add + GELU). The optimized kernel applies both to each GEMM tile while it
is in registers (sgemm.h's epilogue) instead of two more passes over the
output: Whisper's encoder at 1500 tokens moves 3 x (2 x 1.5 MB + 2 x 6 MB)
less per run. The sum is ((x W^T + b) + r), the order addmm then add give;
float addition is commutative, so r + v is the same sum.

Each intermediate node must have only the next one as its user (a linear
output read elsewhere stays unfused), the residual must be computed before
the linear layer (so the rewritten node can read it where it stands) and
have the add's exact shape (no broadcasting). Shapes are not changed, so
symbolic (dynamic) sizes stay as they are. The pass runs at to_pte time
after weight_prepacking.py, on the same copy (PteOptions.fuse_activations
and prepack_weights).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import linear_prepacked_op

aten = torch.ops.aten
_namespace = getattr(torch.ops, linear_prepacked_op.NAMESPACE)
LINEAR_PREPACKED = getattr(_namespace, linear_prepacked_op.OP_NAME).default
LINEAR_PREPACKED_FUSED = getattr(_namespace, linear_prepacked_op.FUSED_OP_NAME).default
_VIEWS = (aten.view_copy.default,)


def _val(node: Any) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _linear_through_views(node: Any) -> Optional[tuple[torch.fx.Node, torch.fx.Node]]:
    """(linear node, the node `node` reads it through) when `node` is a prepacked
    linear layer (fused one: without GELU yet) seen through single-user views."""
    chain_end = node
    while isinstance(node, torch.fx.Node) and node.op == "call_function" \
            and node.target in _VIEWS and len(node.users) == 1:
        node = node.args[0]
    if not isinstance(node, torch.fx.Node) or node.op != "call_function" or len(node.users) != 1:
        return None
    if node.target == LINEAR_PREPACKED and len(node.args) == 4:
        return node, chain_end
    if node.target == LINEAR_PREPACKED_FUSED and len(node.args) == 6 and node.args[5] is False:
        return node, chain_end
    return None


def _as_fused(linear: torch.fx.Node, residual: Optional[torch.fx.Node], gelu: bool) -> None:
    x, w, b, n = linear.args[:4]
    if residual is None and linear.target == LINEAR_PREPACKED_FUSED:
        residual = linear.args[4]
    linear.target = LINEAR_PREPACKED_FUSED
    linear.args = (x, w, b, n, residual, gelu)


def _fuse_add(node: torch.fx.Node, order: dict) -> bool:
    if node.target != aten.add.Tensor or len(node.args) != 2 or node.kwargs.get("alpha", 1) != 1 \
            or set(node.kwargs) - {"alpha"}:
        return False
    out = _val(node)
    if out is None or out.dtype != torch.float32:
        return False
    for side in (0, 1):
        found = _linear_through_views(node.args[side])
        residual = node.args[1 - side]
        if found is None or not isinstance(residual, torch.fx.Node):
            continue
        linear, chain_end = found
        r = _val(residual)
        if linear.target != LINEAR_PREPACKED or r is None or r.dtype != torch.float32 \
                or tuple(r.shape) != tuple(out.shape) or order[residual] > order[linear]:
            continue
        _as_fused(linear, residual, gelu=False)
        node.replace_all_uses_with(chain_end)
        return True
    return False


def _fuse_gelu(node: torch.fx.Node) -> bool:
    if node.target != aten.gelu.default or len(node.args) != 1 \
            or node.kwargs.get("approximate", "none") != "none" or set(node.kwargs) - {"approximate"}:
        return False
    val = _val(node)
    found = _linear_through_views(node.args[0])
    if found is None or val is None or val.dtype != torch.float32:
        return False
    linear, chain_end = found
    _as_fused(linear, None, gelu=True)
    node.replace_all_uses_with(chain_end)
    return True


def fuse_linear_epilogues(gm: torch.fx.GraphModule) -> int:
    """Rewrites every pattern of the module docstring in `gm`'s graph; returns
    how many adds and GELUs were folded into linear layers."""
    graph = gm.graph
    order = {node: i for i, node in enumerate(graph.nodes)}
    fused = 0
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if _fuse_add(node, order) or _fuse_gelu(node):
            graph.erase_node(node)
            fused += 1
    if fused:
        graph.lint()
        gm.recompile()
    return fused
