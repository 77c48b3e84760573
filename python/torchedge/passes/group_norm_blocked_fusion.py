"""Fold a group norm (and the GELU after it) into the to_blocked it feeds.

After blocked_layout.py, a feature extractor's first layers read

    y  = aten.native_group_norm(x, w, b, N, C, HxW, group, eps)[0]
    u  = aten.unsqueeze_copy(y, 2)          (1-d: [N, C, L] -> [N, C, 1, L])
    t  = torchedge.to_blocked(u)
    z  = aten.gelu(t)                       (approximate="none", optional)

(wav2vec2: the stem's GroupNorm(512, 512), then GELU, then six blocked
convolutions). This pass makes it one torchedge::group_norm_blocked(x, w, b,
group, eps, gelu) call (group_norm_blocked_op.py), which normalizes each
16-channel block while it is in cache and writes it blocked, GELU applied:
one pass over the tensor instead of three (wav2vec2 at 1 s of audio: 6.5 MB
each way). Values as the unfused optimized kernels compute them (the same
vector scale-shift and GELU). Conditions: float32, C a multiple of 16, the
mean and rstd outputs unused, each intermediate value read only by the next
node. The fused call takes the place, name and meta["val"] of the pattern's
last node (the GELU, else the to_blocked), so output specs stay valid and
the numeric debugger compares it with that node's eager value; the source
line is the group norm's. Runs at to_pte time after blocked_layout.py, on
the same copy (PteOptions.blocked_convolutions and fuse_activations).
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import group_norm_blocked_op
from torchedge.passes.conv2d_blocked_op import BLOCK

aten = torch.ops.aten
_namespace = getattr(torch.ops, group_norm_blocked_op.NAMESPACE)
GROUP_NORM_BLOCKED = getattr(_namespace, group_norm_blocked_op.OP_NAME).default
TO_BLOCKED = torch.ops.torchedge.to_blocked.default


def _val(node: Any) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _is_call(node: Any, target: Any) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target == target


def _group_norm_feeding(to_blocked: torch.fx.Node) -> Optional[list[torch.fx.Node]]:
    """[group norm, its getitem(0), the unsqueeze or None] read by `to_blocked`,
    when the rules of the module docstring allow folding them."""
    source = to_blocked.args[0]
    unsqueeze = None
    if _is_call(source, aten.unsqueeze_copy.default):
        unsqueeze = source
        if len(unsqueeze.users) != 1 or unsqueeze.args[1] != 2:
            return None
        source = unsqueeze.args[0]
    if not _is_call(source, operator.getitem) or source.args[1] != 0 or len(source.users) != 1:
        return None
    norm = source.args[0]
    if not _is_call(norm, aten.native_group_norm.default) or len(norm.args) != 8 or norm.kwargs:
        return None
    # Only getitem(0) is read: the statistics are unused.
    if any(not _is_call(u, operator.getitem) or (u.args[1] != 0 and u.users) for u in norm.users):
        return None
    x = _val(norm.args[0])
    if x is None or x.dtype != torch.float32 or x.dim() != (3 if unsqueeze is not None else 4) \
            or not isinstance(x.shape[1], int) or x.shape[1] % BLOCK:
        return None
    group, eps = norm.args[6], norm.args[7]
    if not isinstance(group, int) or not isinstance(eps, float):
        return None
    return [norm, source, unsqueeze]


def _fuse(to_blocked: torch.fx.Node) -> bool:
    found = _group_norm_feeding(to_blocked)
    if found is None:
        return False
    norm, item, unsqueeze = found
    last, gelu = to_blocked, False
    users = list(to_blocked.users)
    if len(users) == 1 and _is_call(users[0], aten.gelu.default) and len(users[0].args) == 1 \
            and users[0].kwargs.get("approximate", "none") == "none" \
            and not set(users[0].kwargs) - {"approximate"}:
        last, gelu = users[0], True
    x, w, b = norm.args[:3]
    last.target = GROUP_NORM_BLOCKED
    last.args = (x, w, b, norm.args[6], norm.args[7], gelu)
    last.kwargs = {}
    if "stack_trace" in norm.meta:  # the source line is the group norm's
        last.meta["stack_trace"] = norm.meta["stack_trace"]
    graph = last.graph
    if last is not to_blocked:
        graph.erase_node(to_blocked)
    for node in (unsqueeze, item):
        if node is not None:
            graph.erase_node(node)
    for user in list(norm.users):  # the unused statistics' getitems
        graph.erase_node(user)
    graph.erase_node(norm)
    return True


def fuse_group_norm_blocked(gm: torch.fx.GraphModule) -> int:
    """Rewrites every pattern of the module docstring in `gm`'s graph; returns
    how many group norms were folded."""
    fused = sum(_fuse(node) for node in list(gm.graph.nodes) if _is_call(node, TO_BLOCKED))
    if fused:
        gm.graph.lint()
        gm.recompile()
    return fused
