"""Run chains of float32 convolutions on channel-blocked activations (NCHW16c).

The optimized NCHW convolutions are GEMMs whose vectors run along pixels:
they pack their input on every call, waste lanes on 7x7 and 14x14 maps and
write through many row streams. torchedge::conv2d_blocked
(conv2d_blocked_op.py, kernels/optimized/conv/conv2d_blocked.h) runs along
16 output channels instead, reading inputs where they lie; ResNet-50's layers
ran 1.1-1.9x faster that way (1 thread, Ice Lake class Xeon). The layout
only pays when activations stay blocked from one convolution to the next:
changing it costs a pass over the tensor. So this pass rewrites

    aten.convolution(x, w, bias, stride, padding, [1, 1], False, _, 1)
    torchedge.conv2d_clamp(x, w, bias, stride, padding, [1, 1], 1, lo, hi)
    torchedge.conv2d_add_clamp(x, w, bias, residual, stride, padding, [1, 1], 1, lo, hi)

(w a stored float32 [Cout, Cin, KH, KW] constant, Cin and Cout multiples of
16, a static float32 input) into torchedge::conv2d_blocked reading a new
lifted constant `<weight>_blocked` (conv2d_blocked_op.pack_weight) only for
connected groups of such convolutions (one's output is another's input or
residual) that hold at least MIN_CONVOLUTIONS and need at most one layout
change per MIN_CONVOLUTIONS_PER_CHANGE of their convolutions: ResNets
become one group with a to_blocked after the max pool and a from_blocked
before the mean; MobileNetV2, whose 1x1 convolutions sit between depthwise
ones, keeps its NCHW kernels. Values entering a group go through one
torchedge::to_blocked each (shared by all their blocked readers), values
leaving it through one torchedge::from_blocked. It runs at to_pte time on a
copy of each method (PteOptions.blocked_convolutions), after the activation
fusion and before the Winograd filter transform (which then sees only the
convolutions left in NCHW).
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx
from torch.export import ExportedProgram

from torchedge.passes import conv2d_blocked_op, conv2d_clamp_op
from torchedge.passes.constant_folding import add_lifted_constant, drop_unused_constants
from torchedge.passes.fake_tensors import graph_fake_mode, refresh_fake_tensors
from torchedge.passes.weight_prepacking import stored_constants

aten = torch.ops.aten
_namespace = getattr(torch.ops, conv2d_blocked_op.NAMESPACE)
CONV2D_BLOCKED = getattr(_namespace, conv2d_blocked_op.CONV_OP_NAME).default
TO_BLOCKED = getattr(_namespace, conv2d_blocked_op.TO_OP_NAME).default
FROM_BLOCKED = getattr(_namespace, conv2d_blocked_op.FROM_OP_NAME).default
_CONV2D_CLAMP = getattr(_namespace, conv2d_clamp_op.OP_NAME).default
_CONV2D_ADD_CLAMP = getattr(_namespace, conv2d_clamp_op.ADD_OP_NAME).default

MIN_CONVOLUTIONS = 4
MIN_CONVOLUTIONS_PER_CHANGE = 4
BLOCK = conv2d_blocked_op.BLOCK


def _val(node: Any) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _static_float32(node: Any, dims: int) -> bool:
    val = _val(node)
    return val is not None and val.dtype == torch.float32 and val.dim() == dims \
        and all(isinstance(d, int) for d in val.shape)


def _ones(values: Any) -> bool:
    return isinstance(values, (list, tuple)) and len(values) in (1, 2) \
        and all(v == 1 for v in values)


def _match(node: torch.fx.Node, constants: dict) -> Optional[tuple]:
    """(x, weight placeholder, bias, residual, stride, padding, lo, hi) of a
    convolution conv2d_blocked can compute, else None."""
    if node.op != "call_function" or node.kwargs or not _static_float32(node, 4):
        return None
    args = node.args
    if node.target == aten.convolution.default and len(args) == 9:
        x, w, bias, stride, padding, dilation, transposed, _, groups = args
        residual, lo, hi = None, -math.inf, math.inf
        if transposed:
            return None
    elif node.target == _CONV2D_CLAMP and len(args) == 9:
        x, w, bias, stride, padding, dilation, groups, lo, hi = args
        residual = None
    elif node.target == _CONV2D_ADD_CLAMP and len(args) == 10:
        x, w, bias, residual, stride, padding, dilation, groups, lo, hi = args
    else:
        return None
    if w not in constants or groups != 1 or not _ones(dilation):
        return None
    weight = constants[w]
    if weight.shape[0] % BLOCK or weight.shape[1] % BLOCK:
        return None
    if not _static_float32(x, 4) or _val(x).shape[1] != weight.shape[1]:
        return None
    # A bias that is not a stored placeholder (computed in the graph) could
    # be another blocked convolution's output: not worth the special case.
    if bias is not None and (not _static_float32(bias, 1) or bias.op != "placeholder"):
        return None
    if residual is not None and not _static_float32(residual, 4):
        return None
    return x, w, bias, residual, list(stride), list(padding), float(lo), float(hi)


def _groups(matches: dict) -> list[list[torch.fx.Node]]:
    """Connected groups of matched convolutions (edges: one's output is
    another's input or residual), in graph order."""
    parent = {node: node for node in matches}

    def root(n):
        while parent[n] is not n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for node, (x, _, _, residual, *_rest) in matches.items():
        for source in (x, residual):
            if source in matches:
                parent[root(source)] = root(node)
    groups: dict[torch.fx.Node, list] = {}
    for node in matches:
        groups.setdefault(root(node), []).append(node)
    return list(groups.values())


def _layout_changes(group: list, matches: dict) -> int:
    """to_blocked + from_blocked calls a group would need."""
    members = set(group)
    entering = {source for node in group for source in (matches[node][0], matches[node][3])
                if source is not None and source not in members}
    leaving = {node for node in group if any(user not in members for user in node.users)}
    return len(entering) + len(leaving)


def _selected(matches: dict) -> list[list[torch.fx.Node]]:
    return [group for group in _groups(matches)
            if len(group) >= MIN_CONVOLUTIONS
            and _layout_changes(group, matches) * MIN_CONVOLUTIONS_PER_CHANGE <= len(group)]


def _matches(ep: ExportedProgram, keep: frozenset[str]) -> tuple[dict, dict]:
    constants = stored_constants(ep, keep, dims=4)
    matches = {node: m for node in ep.graph.nodes
               if (m := _match(node, constants)) is not None}
    return matches, constants


def count_blocked_candidates(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many convolutions could be blocked, chained or not (before the
    activation fusion joins the chains)."""
    return len(_matches(ep, keep)[0])


def count_blocked_convolutions(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many convolutions use_blocked_layout would rewrite."""
    matches, _ = _matches(ep, keep)
    return sum(len(group) for group in _selected(matches))


def use_blocked_layout(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """Rewrites the selected groups of convolutions (module docstring) of
    `ep`'s graph to torchedge::conv2d_blocked with layout changes at the
    groups' edges. Each rewritten convolution keeps its node name; filters
    nothing else reads any more are dropped; every node's meta["val"] is
    re-propagated. The stored constants named in `keep` (read by another
    method too) are left alone, as in weight_prepacking.py. Modifies `ep` in
    place; returns the number of convolutions rewritten."""
    matches, constants = _matches(ep, keep)
    groups = _selected(matches)
    if not groups:
        return 0
    graph = ep.graph
    fake_mode = graph_fake_mode(graph)
    blocked = {node for group in groups for node in group}
    packed: dict[torch.fx.Node, torch.fx.Node] = {}
    to_blocked: dict[torch.fx.Node, torch.fx.Node] = {}

    def blocked_value(source: torch.fx.Node) -> torch.fx.Node:
        if source in blocked:
            return source
        if source not in to_blocked:
            # After the value (or after all placeholders, for an input).
            anchor = source if source.op != "placeholder" else \
                [n for n in graph.nodes if n.op == "placeholder"][-1]
            with graph.inserting_after(anchor):
                to_blocked[source] = graph.call_function(TO_BLOCKED, (source,))
        return to_blocked[source]

    for node in (n for n in list(graph.nodes) if n in blocked):
        x, weight_node, bias, residual, stride, padding, lo, hi = matches[node]
        if weight_node not in packed:
            value = conv2d_blocked_op.pack_weight(constants[weight_node])
            packed[weight_node] = add_lifted_constant(ep, f"{weight_node.name}_blocked", value,
                                                      fake_mode)
        out_channels = int(constants[weight_node].shape[0])
        nchw_users = [u for u in node.users if u not in blocked]
        node.target = CONV2D_BLOCKED
        node.args = (blocked_value(x), packed[weight_node], bias,
                     None if residual is None else blocked_value(residual), out_channels, stride,
                     padding, lo, hi)
        if nchw_users:
            with graph.inserting_after(node):
                back = graph.call_function(FROM_BLOCKED, (node,))
            for user in nchw_users:
                user.replace_input_with(node, back)
    graph.lint()
    drop_unused_constants(ep)  # also recompiles
    refresh_fake_tensors(ep.graph_module)
    return len(blocked)
