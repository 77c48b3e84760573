"""Fold the residual add and the GELU after a prepacked linear layer into it.

    y = torchedge::linear_prepacked(x, W, b, N)     [M, N]
    v = aten.view_copy(y, shape) ...                 (zero or more views)
    z = aten.add.Tensor(v, r) (or (r, v))            r of v's shape, float32

becomes z = torchedge::linear_prepacked_fused(x', W, b, N, r, False), x' the
input viewed to z's leading sizes (a transformer block's attention output
projection and fc2 adding the residual stream), and

    z = aten.gelu(v)                                 (approximate="none")

sets the fused op's `gelu` (fc1 + GELU; after the rule above, also
add + GELU). The optimized kernel applies both to each GEMM tile while it
is in registers (sgemm.h's epilogue) instead of two more passes over the
output: Whisper's encoder at 1500 tokens moves 3 x (2 x 1.5 MB + 2 x 6 MB)
less per run. The sum is ((x W^T + b) + r), the order addmm then add give;
float addition is commutative, so r + v is the same sum.

Each intermediate node must have only the next one as its user (a linear
output read elsewhere stays unfused) and the residual must have the add's
exact shape (no broadcasting). The fused call takes the place, name and
meta["val"] of the pattern's last node (the add or the GELU), as
activation_fusion.py's do, so output specs stay valid and the numeric
debugger compares it with that node's eager value; its input is the linear
layer's, viewed to the last node's leading sizes (the views' own size
arguments, symbolic ones included, with the last replaced by K), and the
linear layer and its views are dropped. The pass runs at to_pte time after
weight_prepacking.py, on the same copy (PteOptions.fuse_activations and
prepack_weights).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import linear_prepacked_op
from torchedge.passes.fake_tensors import refresh_fake_tensors

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
    fusable = (node.target == LINEAR_PREPACKED and len(node.args) == 4) or \
        (node.target == LINEAR_PREPACKED_FUSED and len(node.args) == 6 and node.args[5] is False)
    end = _val(chain_end)
    # The views must keep rows of N (the fused input is viewed to their leading sizes).
    if not fusable or end is None or end.dim() < 1 or end.shape[-1] != node.args[3]:
        return None
    return node, chain_end


def _fuse_into(last: torch.fx.Node, linear: torch.fx.Node, chain_end: torch.fx.Node,
               residual: Optional[torch.fx.Node], gelu: bool) -> None:
    """Turns `last` into the fused call of `linear` (read through views ending at
    `chain_end`) with `residual` and `gelu`; drops the linear layer and its views."""
    x, w, b, n = linear.args[:4]
    if linear.target == LINEAR_PREPACKED_FUSED and residual is None:
        residual = linear.args[4]
    if chain_end is not linear:
        k = _val(x).shape[-1]
        with last.graph.inserting_before(last):
            x = last.graph.call_function(aten.view_copy.default,
                                         (x, [*chain_end.args[1][:-1], k]))
    last.target = LINEAR_PREPACKED_FUSED
    last.args = (x, w, b, n, residual, gelu)
    last.kwargs = {}
    if "stack_trace" in linear.meta:  # the source line is the layer's
        last.meta["stack_trace"] = linear.meta["stack_trace"]
    node = chain_end
    while node is not linear:
        previous = node.args[0]
        last.graph.erase_node(node)
        node = previous
    last.graph.erase_node(linear)


def _fuse_add(node: torch.fx.Node) -> bool:
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
                or tuple(r.shape) != tuple(out.shape):
            continue
        _fuse_into(node, linear, chain_end, residual, gelu=False)
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
    _fuse_into(node, linear, chain_end, None, gelu=True)
    return True


def fuse_linear_epilogues(gm: torch.fx.GraphModule) -> int:
    """Rewrites every pattern of the module docstring in `gm`'s graph; returns
    how many adds and GELUs were folded into linear layers."""
    graph = gm.graph
    fused = 0
    for node in list(graph.nodes):
        if node.op == "call_function" and (_fuse_add(node) or _fuse_gelu(node)):
            fused += 1
    if fused:
        graph.lint()
        refresh_fake_tensors(gm)  # the new input views' meta["val"]
        gm.recompile()
    return fused
