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

(w a stored float32 [Cout, Cin, KH, KW] constant, Cout a multiple of 16, Cin
too or below 16, a static float32 input, a stride of 1 or 2 along the
width) into torchedge::conv2d_blocked reading a new lifted constant
`<weight>_blocked` (conv2d_blocked_op.pack_weight), and the
torchedge::max_pool2d calls between them into torchedge::max_pool2d_blocked,
only for connected groups of such convolutions and pools (one's output is
another's input or residual) that hold at least MIN_CONVOLUTIONS
convolutions and need at most one layout change per
MIN_CONVOLUTIONS_PER_CHANGE of them. A convolution with fewer than 16
input channels (an RGB stem) reads its plain NCHW input as it is and
writes blocked: ResNets become one group whose only layout change is a
from_blocked before the mean; MobileNetV2, whose 1x1 convolutions sit
between depthwise ones, keeps its NCHW kernels. Values entering a group go through one
torchedge::to_blocked each (shared by all their blocked readers), values
leaving it through one torchedge::from_blocked. It runs at to_pte time on a
copy of each method (PteOptions.blocked_convolutions), after the activation
fusion and before the Winograd filter transform (which then sees only the
convolutions left in NCHW).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx
from torch.export import ExportedProgram

from torchedge.passes import conv2d_blocked_op, conv_nodes, max_pool2d_op
from torchedge.passes.constant_folding import add_lifted_constant, drop_unused_constants
from torchedge.passes.fake_tensors import graph_fake_mode, refresh_fake_tensors
from torchedge.passes.weight_prepacking import stored_constants

_namespace = getattr(torch.ops, conv2d_blocked_op.NAMESPACE)
CONV2D_BLOCKED = getattr(_namespace, conv2d_blocked_op.CONV_OP_NAME).default
TO_BLOCKED = getattr(_namespace, conv2d_blocked_op.TO_OP_NAME).default
FROM_BLOCKED = getattr(_namespace, conv2d_blocked_op.FROM_OP_NAME).default
MAX_POOL2D_BLOCKED = getattr(_namespace, conv2d_blocked_op.POOL_OP_NAME).default
_MAX_POOL2D = getattr(getattr(torch.ops, max_pool2d_op.NAMESPACE), max_pool2d_op.OP_NAME).default

MIN_CONVOLUTIONS = 4
MIN_CONVOLUTIONS_PER_CHANGE = 4
BLOCK = conv2d_blocked_op.BLOCK


def _match(node: torch.fx.Node, constants: dict) -> Optional[tuple]:
    """(x, weight placeholder, bias, residual, stride, padding, lo, hi) of a
    convolution conv2d_blocked can compute, else None."""
    conv = conv_nodes.convolution(node)
    if conv is None:
        return None
    x, w, bias, residual = conv.x, conv.weight, conv.bias, conv.residual
    if w not in constants or conv.groups != 1 or not conv_nodes.ones(conv.dilation):
        return None
    if conv.stride[-1] not in (1, 2):
        return None  # the kernel's tiles take pixel strides 1 and 2
    weight = constants[w]
    if weight.shape[0] % BLOCK or (weight.shape[1] % BLOCK and weight.shape[1] > BLOCK):
        return None
    if not conv_nodes.static_float32(x, 4) or conv_nodes.value(x).shape[1] != weight.shape[1]:
        return None
    # A bias that is not a stored placeholder (computed in the graph) could
    # be another blocked convolution's output: not worth the special case.
    if bias is not None and (not conv_nodes.static_float32(bias, 1) or bias.op != "placeholder"):
        return None
    if residual is not None and not conv_nodes.static_float32(residual, 4):
        return None
    return x, w, bias, residual, conv.stride, conv.padding, conv.lo, conv.hi


def _plain(match: tuple) -> bool:
    """Whether a matched convolution reads a plain NCHW input (Cin < 16)."""
    return match is not None and len(match) == 8 and conv_nodes.value(match[0]).shape[1] % BLOCK != 0


def _match_pool(node: torch.fx.Node) -> Optional[tuple]:
    """(x,) of a torchedge::max_pool2d on a float32 [N, C, H, W], C a
    multiple of 16, else None."""
    if node.op != "call_function" or node.target != _MAX_POOL2D or node.kwargs \
            or not conv_nodes.static_float32(node.args[0], 4) \
            or conv_nodes.value(node.args[0]).shape[1] % BLOCK:
        return None
    return (node.args[0],)


def _groups(matches: dict) -> list[list[torch.fx.Node]]:
    """Connected groups of matched convolutions and pools (edges: one's
    output is another's input or residual), in graph order."""
    parent = {node: node for node in matches}

    def root(n):
        while parent[n] is not n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for node, match in matches.items():
        sources = (match[0],) if len(match) == 1 else (match[0], match[3])
        for source in sources:
            if source in matches:
                parent[root(source)] = root(node)
    groups: dict[torch.fx.Node, list] = {}
    for node in matches:
        groups.setdefault(root(node), []).append(node)
    return list(groups.values())


def _layout_changes(group: list, matches: dict) -> int:
    """to_blocked + from_blocked calls a group would need."""
    members = set(group)
    entering = set()
    for node in group:
        match = matches[node]
        reads = match if len(match) == 1 else \
            ((() if _plain(match) else (match[0],)) + (match[3],))
        entering |= {source for source in reads if source is not None and source not in members}
    leaving = {node for node in group if any(user not in members for user in node.users)}
    return len(entering) + len(leaving)


def _selected(matches: dict) -> list[list[torch.fx.Node]]:
    selected = []
    for group in _groups(matches):
        convolutions = sum(len(matches[node]) != 1 for node in group)
        if convolutions >= MIN_CONVOLUTIONS and \
                _layout_changes(group, matches) * MIN_CONVOLUTIONS_PER_CHANGE <= convolutions:
            selected.append(group)
    return selected


def _matches(ep: ExportedProgram, keep: frozenset[str]) -> tuple[dict, dict]:
    """(node -> match, stored 4-d constants): a convolution's match is
    _match's 8-tuple, a max pool's _match_pool's 1-tuple (len() tells them
    apart below)."""
    constants = stored_constants(ep, keep, dims=4)
    matches = {node: m for node in ep.graph.nodes
               if (m := _match(node, constants) or _match_pool(node)) is not None}
    return matches, constants


def count_blocked_candidates(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many convolutions could be blocked, chained or not (before the
    activation fusion joins the chains)."""
    return sum(len(m) != 1 for m in _matches(ep, keep)[0].values())


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

    rewritten = 0
    for node in (n for n in list(graph.nodes) if n in blocked):
        nchw_users = [u for u in node.users if u not in blocked]
        if len(matches[node]) == 1:  # a max pool
            node.target = MAX_POOL2D_BLOCKED
            node.args = (blocked_value(node.args[0]),) + tuple(node.args[1:])
        else:
            _rewrite_convolution(ep, node, matches[node], constants, packed, blocked_value,
                                 fake_mode)
            rewritten += 1
        if nchw_users:
            with graph.inserting_after(node):
                back = graph.call_function(FROM_BLOCKED, (node,))
            for user in nchw_users:
                user.replace_input_with(node, back)
    graph.lint()
    drop_unused_constants(ep)  # also recompiles
    refresh_fake_tensors(ep.graph_module)
    return rewritten


def _rewrite_convolution(ep: ExportedProgram, node: torch.fx.Node, match: tuple, constants: dict,
                         packed: dict, blocked_value: Any, fake_mode: Any) -> None:
    """`node` -> torchedge::conv2d_blocked on its packed filters (shared by
    convolutions with one weight), reading blocked values (a plain input as
    it is)."""
    x, weight_node, bias, residual, stride, padding, lo, hi = match
    if weight_node not in packed:
        value = conv2d_blocked_op.pack_weight(constants[weight_node])
        packed[weight_node] = add_lifted_constant(ep, f"{weight_node.name}_blocked", value,
                                                  fake_mode)
    out_channels = int(constants[weight_node].shape[0])
    node.target = CONV2D_BLOCKED
    node.args = (x if _plain(match) else blocked_value(x), packed[weight_node], bias,
                 None if residual is None else blocked_value(residual), out_channels, stride,
                 padding, lo, hi)
