"""Fold unmasked attention (bmm, safe softmax, bmm) into torchedge::attention.

torch exports F.scaled_dot_product_attention without a mask as

    scores = aten.bmm(q3, k_t3)                 # [B*H, L, S]
    p      = torchedge.safe_softmax(view(scores), -1)   # (safe_softmax.py)
    out    = aten.bmm(view(expand(p)), v3)      # [B*H, L, E]

with reshapes (view_copy) and same-shape expands (expand_copy) between.
Each such `out` becomes torchedge::attention(q3, k_t3, v3)
(attention_op.py), whose runtime kernel never writes the scores
(kernels/optimized/vec/flash_attention.h: Whisper's 1500-token encoder
spent ~50 % of its time in bmm + softmax + bmm over 1500 x 1500 scores per
head). Matched only when every node of the chain has one user (attention
weights returned to the caller keep the unfused form), the reshapes keep
the scores' last dim, and q3, k_t3, v3 are float32 3-d tensors. Runs at
to_pte time after fuse_safe_softmax, with it (PteOptions.fuse_activations:
upstream's runtime lacks the kernel); the EdgeProgram stays core ATen.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import attention_op
from torchedge.passes.graph_modules import graph_modules
from torchedge.passes.safe_softmax import SAFE_SOFTMAX

aten = torch.ops.aten
ATTENTION = getattr(getattr(torch.ops, attention_op.NAMESPACE), attention_op.OP_NAME).default
_RESHAPES = (aten.view_copy.default, aten._unsafe_view.default, aten.view.default)
_EXPANDS = (aten.expand_copy.default, aten.expand.default)


def _val(node: Any) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _is_call(node: Any, targets: tuple) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target in targets


def _skip_reshapes(node: torch.fx.Node, chain: list[torch.fx.Node]) -> torch.fx.Node:
    """The first node above `node` that is not a single-user reshape or
    same-shape expand; the skipped nodes are appended to `chain`."""
    while _is_call(node, _RESHAPES + _EXPANDS) and len(node.users) == 1:
        source = node.args[0]
        if node.target in _EXPANDS:
            if _val(source) is None or _val(node) is None or _val(source).shape != _val(node).shape:
                break
        chain.append(node)
        node = source
    return node


def _float3d(node: Any) -> bool:
    val = _val(node)
    return val is not None and val.dim() == 3 and val.dtype == torch.float32


def _match(out: torch.fx.Node) -> Optional[tuple[tuple, list[torch.fx.Node]]]:
    """((q3, k_t3, v3), the chain's other nodes) when `out` ends the pattern."""
    if not _is_call(out, (aten.bmm.default,)) or len(out.args) != 2 or out.kwargs:
        return None
    probs, v3 = out.args
    chain: list[torch.fx.Node] = []
    softmax = _skip_reshapes(probs, chain)
    if not _is_call(softmax, (SAFE_SOFTMAX,)) or len(softmax.users) != 1:
        return None
    scores_view, dim = softmax.args
    shape = _val(softmax).shape if _val(softmax) is not None else None
    if shape is None or not isinstance(dim, int) or dim % len(shape) != len(shape) - 1:
        return None
    chain.append(softmax)
    scores = _skip_reshapes(scores_view, chain)
    if not _is_call(scores, (aten.bmm.default,)) or len(scores.users) != 1 or scores.kwargs:
        return None
    q3, k_t3 = scores.args
    scores_shape = _val(scores).shape if _val(scores) is not None else None
    if scores_shape is None or shape[-1] != scores_shape[-1] or _val(probs) is None \
            or _val(probs).shape != scores_shape:
        return None
    if not all(_float3d(t) for t in (q3, k_t3, v3, out)):
        return None
    chain.append(scores)
    return (q3, k_t3, v3), chain


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
        # The second bmm becomes the call (keeping its name and meta); the
        # chain above it, which only it read, goes (users first).
        node.target = ATTENTION
        node.args = found[0]
        node.kwargs = {}
        for dead in found[1]:
            graph.erase_node(dead)
    if apply and count:
        graph.lint()
        gm.recompile()
    return count


def count_attention(gm: torch.fx.GraphModule) -> int:
    """How many attention chains fuse_attention would rewrite."""
    return sum(_rewrite_in(module, apply=False) for module in graph_modules(gm))


def fuse_attention(gm: torch.fx.GraphModule) -> int:
    """Rewrites, in `gm` and its torch.cond branch graphs, each unmasked
    attention chain into one torchedge::attention call. Returns the number
    rewritten."""
    return sum(_rewrite_in(module, apply=True) for module in graph_modules(gm))
