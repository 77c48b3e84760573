"""Run chains of float32 convolutions on channel-blocked activations (NCHW16c).

The optimized NCHW convolutions are GEMMs whose vectors run along pixels:
they pack their input on every call, waste lanes on 7x7 and 14x14 maps and
write through many row streams. torchedge::conv2d_blocked
(conv2d_blocked_op.py, kernels/optimized/conv/conv2d_blocked.h) runs along
16 output channels instead, reading inputs where they lie; ResNet-50's layers
ran 1.1-1.9x faster that way (1 thread, Ice Lake class Xeon). The layout
only pays when activations stay blocked from one convolution to the next:
changing it costs a pass over the tensor. So this pass rewrites

    aten.convolution(x, w, bias, stride, padding, [1, 1], False, _, groups)
    torchedge.conv2d_clamp(x, w, bias, stride, padding, [1, 1], groups, lo, hi)
    torchedge.conv2d_add_clamp(x, w, bias, residual, stride, padding, [1, 1], groups, lo, hi)

(w a stored float32 constant, a static float32 input) with one group and a
stride of 1 or 2 along the width into torchedge::conv2d_blocked reading a
new lifted constant `<weight>_blocked` (conv2d_blocked_op.pack_weight),
depthwise ones (groups = channels, no residual) into
torchedge::conv2d_depthwise_blocked, and the torchedge::max_pool2d calls
between them into torchedge::max_pool2d_blocked, only for connected groups
of such convolutions and pools (one's output is another's input or
residual) that hold at least MIN_CONVOLUTIONS convolutions and need at most
one layout change per MIN_CONVOLUTIONS_PER_CHANGE of them. Channel counts
that are not multiples of 16 (MobileNetV2's 24) get zero padding lanes: the
filters and biases are stored zero-padded (`<bias>_blocked`), values
entering are zero-padded (aten.constant_pad_nd) before their to_blocked and
values leaving are cut back (aten.slice_copy) after their from_blocked. A
convolution with fewer than 16 input channels that reads a value from
outside the group (an RGB stem) reads its plain NCHW input as it is and
writes blocked. So ResNets and MobileNetV2 each become one group whose only
layout change is a from_blocked before the global mean. Values entering a
group go through one torchedge::to_blocked each (shared by all their
blocked readers), values leaving it through one torchedge::from_blocked.

With `winograd` (PteOptions.winograd_filters), a blocked convolution with
finite 3x3 filters, stride 1 and a blocked input whose output is at least
WINOGRAD_MIN_OUTPUT in both dims becomes torchedge::conv2d_winograd_blocked
(conv2d_winograd_blocked_op.py) instead, reading a new lifted constant
`<weight>_winograd_blocked` (the filters Winograd-transformed and packed:
16/9 of their bytes), with the same bias, residual, padding and clamp.

1-d convolutions (aten.convolution on [N, C, L], the feature extractors of
wav2vec2 and Whisper) run as the 2-d ones with H = 1: a value entering a
group is unsqueezed to [N, C, 1, L] before its to_blocked, one leaving is
squeezed back after its from_blocked, filters [Cout, Cin, K] are packed as
[Cout, Cin, 1, K], strides and paddings become [1, s] and [0, p]. Their
chains are joined by GELU / SiLU (transformers' conv stacks put one after
every convolution): an elementwise activation between members runs on the
blocked tensor as it is (its padding lanes hold f(0), which the next
convolution's zero filters ignore and a from_blocked's slice cuts), and an
exact GELU or a SiLU that is a blocked convolution's only reader goes into
its epilogue (torchedge::conv2d_blocked_gelu / conv2d_blocked_silu: one
write of the output instead of a second pass over it). A
group of 1-d convolutions needs MIN_CONVOLUTIONS_1D of them and at most one
layout change per convolution: a feature extractor's layers are 5-50x a
ResNet layer's work per element moved by a layout change.

The pass runs at to_pte time on a copy of each method
(PteOptions.blocked_convolutions), after the activation fusion and before
the NCHW Winograd filter transform (winograd_filters.py, which then sees
only the convolutions left in NCHW: it matches 4-d aten / torchedge NCHW
convolutions, none of the blocked ops).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional

import torch
import torch.fx
from torch.export import ExportedProgram

from torchedge.passes import (
    conv2d_blocked_op,
    conv2d_winograd_blocked_op,
    conv_nodes,
    max_pool2d_op,
)
from torchedge.passes.constant_folding import add_lifted_constant, drop_unused_constants
from torchedge.passes.fake_tensors import graph_fake_mode, refresh_fake_tensors
from torchedge.passes.weight_prepacking import stored_constants

_namespace = getattr(torch.ops, conv2d_blocked_op.NAMESPACE)
CONV2D_BLOCKED = getattr(_namespace, conv2d_blocked_op.CONV_OP_NAME).default
CONV2D_BLOCKED_GELU = getattr(_namespace, conv2d_blocked_op.CONV_GELU_OP_NAME).default
CONV2D_BLOCKED_SILU = getattr(_namespace, conv2d_blocked_op.CONV_SILU_OP_NAME).default
DEPTHWISE_BLOCKED = getattr(_namespace, conv2d_blocked_op.DEPTHWISE_OP_NAME).default
TO_BLOCKED = getattr(_namespace, conv2d_blocked_op.TO_OP_NAME).default
FROM_BLOCKED = getattr(_namespace, conv2d_blocked_op.FROM_OP_NAME).default
MAX_POOL2D_BLOCKED = getattr(_namespace, conv2d_blocked_op.POOL_OP_NAME).default
WINOGRAD_BLOCKED = getattr(_namespace, conv2d_winograd_blocked_op.OP_NAME).default
_MAX_POOL2D = getattr(getattr(torch.ops, max_pool2d_op.NAMESPACE), max_pool2d_op.OP_NAME).default
aten = torch.ops.aten

MIN_CONVOLUTIONS = 4
MIN_CONVOLUTIONS_PER_CHANGE = 4
MIN_CONVOLUTIONS_1D = 2
BLOCK = conv2d_blocked_op.BLOCK
# The smallest output map (min(OH, OW)) on which a blocked 3x3 stride-1
# convolution runs as conv2d_winograd_blocked. 14 takes ResNet's 56, 28 and
# 14 maps, where the kernel ran 1.84-1.89x the direct blocked one (conv_bench
# 'wb', 1 thread). On 7x7 maps its 16 tiles cover 64 outputs for 49 and a
# 512-channel layer streams 16.8 MB of U against 9.4 MB of filters: 1.05-1.22x
# hot in conv_bench, nothing in the model (ResNet-18, 1 thread, two rounds:
# 32.0 / 32.3 ms median with 14, 32.5 / 32.9 with 7, for a 76 instead of a
# 54 MB file; 42 ms without the Winograd layers).
WINOGRAD_MIN_OUTPUT = 14

CONV, DEPTHWISE, POOL, ELEMENTWISE = "conv", "depthwise", "pool", "elementwise"
# Elementwise activations that run on a blocked tensor as they are (no
# other argument than the tensor; keyword arguments such as GELU's
# `approximate` are kept).
_ELEMENTWISE = {aten.gelu.default, aten.silu.default}


class Member(NamedTuple):
    """A node the pass can run blocked: what it is and what it reads."""
    kind: str                  # CONV, DEPTHWISE, POOL or ELEMENTWISE
    x: torch.fx.Node           # the input
    channels: int              # output channels (before padding to whole blocks)
    weight: Any = None         # CONV / DEPTHWISE: the filters' placeholder
    bias: Any = None
    residual: Any = None       # CONV only
    stride: Any = None
    padding: Any = None
    lo: float = -math.inf
    hi: float = math.inf
    one_d: bool = False        # a [N, C, L] value (run as [N, C, 1, L])

    def reads(self) -> tuple:
        return (self.x,) if self.residual is None else (self.x, self.residual)


def _padded(channels: int) -> int:
    return conv2d_blocked_op.blocks(channels) * BLOCK


def _match_convolution(node: torch.fx.Node, constants: dict, biases: dict) -> Optional[Member]:
    one_d = conv_nodes.static_float32(node, 3)
    conv = conv_nodes.convolution(node, dims=3 if one_d else 4)
    if conv is None or conv.weight not in constants or not conv_nodes.ones(conv.dilation):
        return None
    x, bias, residual = conv.x, conv.bias, conv.residual
    dims = 3 if one_d else 4
    if not conv_nodes.static_float32(x, dims):
        return None
    weight = constants[conv.weight]
    cout, cin = weight.shape[0], conv_nodes.value(x).shape[1]
    if conv.groups == 1 and weight.shape[1] == cin:
        if conv.stride[-1] not in (1, 2):
            return None  # the kernel's tiles take pixel strides 1 and 2
        kind = CONV
    elif conv.groups == cin == cout and weight.shape[1] == 1 and residual is None:
        kind = DEPTHWISE
    else:
        return None
    # A bias that is not a stored placeholder (computed in the graph) could
    # be another blocked convolution's output: not worth the special case.
    # One to pad must be stored to be padded here.
    if bias is not None and (not conv_nodes.static_float32(bias, 1) or bias.op != "placeholder"
                             or (cout % BLOCK and bias not in biases)):
        return None
    if residual is not None and not conv_nodes.static_float32(residual, dims):
        return None
    stride, padding = conv.stride, conv.padding
    if one_d:
        stride, padding = [1, stride[0]], [0, padding[0]]
    return Member(kind, x, cout, conv.weight, bias, residual, stride, padding, conv.lo,
                  conv.hi, one_d)


def _match_elementwise(node: torch.fx.Node) -> Optional[Member]:
    """A GELU / SiLU on a static float32 [N, C, H, W] or [N, C, L]."""
    if node.op != "call_function" or node.target not in _ELEMENTWISE or len(node.args) != 1:
        return None
    x = node.args[0]
    one_d = conv_nodes.static_float32(x, 3)
    if not one_d and not conv_nodes.static_float32(x, 4):
        return None
    return Member(ELEMENTWISE, x, conv_nodes.value(x).shape[1], one_d=one_d)


def _match_pool(node: torch.fx.Node) -> Optional[Member]:
    """A torchedge::max_pool2d on a static float32 [N, C, H, W]."""
    if node.op != "call_function" or node.target != _MAX_POOL2D or node.kwargs \
            or not conv_nodes.static_float32(node.args[0], 4):
        return None
    return Member(POOL, node.args[0], conv_nodes.value(node.args[0]).shape[1])


def _plain(member: Member, matches: dict) -> bool:
    """Whether a convolution reads its plain NCHW input as it is: fewer than
    16 input channels (an RGB image) from outside the group."""
    return member.kind == CONV and member.x not in matches \
        and conv_nodes.value(member.x).shape[1] < BLOCK


def _winograd(node: torch.fx.Node, member: Member, matches: dict, constants: dict) -> bool:
    """Whether a blocked convolution runs as conv2d_winograd_blocked: 3x3
    filters, all finite, stride 1 (dilation 1 and one group hold for every
    CONV member), a blocked input, an output of at least
    WINOGRAD_MIN_OUTPUT in both dims."""
    if member.kind != CONV or _plain(member, matches) or not conv_nodes.ones(member.stride):
        return False
    weight = constants[member.weight]
    return tuple(weight.shape[2:]) == (3, 3) \
        and min(conv_nodes.value(node).shape[2:]) >= WINOGRAD_MIN_OUTPUT \
        and bool(torch.isfinite(weight).all())


def _groups(matches: dict) -> list[list[torch.fx.Node]]:
    """Connected groups of matched convolutions and pools (edges: one's
    output is another's input or residual), in graph order."""
    parent = {node: node for node in matches}

    def root(n):
        while parent[n] is not n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for node, member in matches.items():
        for source in member.reads():
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
        member = matches[node]
        reads = member.reads()[1:] if _plain(member, matches) else member.reads()
        entering |= {source for source in reads if source not in members}
    leaving = {node for node in group if any(user not in members for user in node.users)}
    return len(entering) + len(leaving)


def _selected(matches: dict) -> list[list[torch.fx.Node]]:
    selected = []
    for group in _groups(matches):
        convolutions = sum(matches[node].kind in (CONV, DEPTHWISE) for node in group)
        changes = _layout_changes(group, matches)
        if all(matches[node].one_d for node in group):
            chosen = convolutions >= MIN_CONVOLUTIONS_1D and changes <= convolutions
        else:
            chosen = convolutions >= MIN_CONVOLUTIONS and \
                changes * MIN_CONVOLUTIONS_PER_CHANGE <= convolutions
        if chosen:
            selected.append(group)
    return selected


def _matches(ep: ExportedProgram, keep: frozenset[str]) -> tuple[dict, dict, dict]:
    """(node -> Member, stored 4-d and 3-d constants, stored 1-d constants)."""
    constants = {**stored_constants(ep, keep, dims=4), **stored_constants(ep, keep, dims=3)}
    biases = stored_constants(ep, keep, dims=1)
    matches = {node: m for node in ep.graph.nodes
               if (m := _match_convolution(node, constants, biases) or _match_pool(node)
                   or _match_elementwise(node)) is not None}
    # A 1-d and a 2-d value never meet in one group (an op between them
    # changes the rank: it is not a member), so the rank is per group.
    return matches, constants, biases


def count_blocked_candidates(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many convolutions could be blocked, chained or not (before the
    activation fusion joins the chains)."""
    return sum(m.kind in (CONV, DEPTHWISE) for m in _matches(ep, keep)[0].values())


def use_blocked_layout(ep: ExportedProgram, keep: frozenset[str] = frozenset(),
                       winograd: bool = False) -> int:
    """Rewrites the selected groups of convolutions (module docstring) of
    `ep`'s graph to torchedge::conv2d_blocked / conv2d_depthwise_blocked (and,
    with `winograd`, conv2d_winograd_blocked) with layout changes at the
    groups' edges. Each rewritten convolution keeps its node name; filters
    nothing else reads any more are dropped; every node's meta["val"] is
    re-propagated. The stored constants named in `keep` (read
    by another method too) are left alone, as in weight_prepacking.py.
    Modifies `ep` in place; returns the number of convolutions rewritten."""
    matches, constants, biases = _matches(ep, keep)
    groups = _selected(matches)
    if not groups:
        return 0
    graph = ep.graph
    fake_mode = graph_fake_mode(graph)
    blocked = {node: matches[node] for group in groups for node in group}
    to_blocked: dict[torch.fx.Node, torch.fx.Node] = {}

    def as_4d(source: torch.fx.Node, anchor: torch.fx.Node) -> torch.fx.Node:
        """`source` itself, or a [N, C, L] one unsqueezed to [N, C, 1, L]."""
        if conv_nodes.value(source).dim() == 4:
            return source
        with graph.inserting_after(anchor):
            return graph.call_function(aten.unsqueeze_copy.default, (source, 2))

    plain_inputs: dict[torch.fx.Node, torch.fx.Node] = {}

    def plain_value(source: torch.fx.Node) -> torch.fx.Node:
        """A plain NCHW input read as it is (a stem's): 4-d."""
        if source not in plain_inputs:
            plain_inputs[source] = as_4d(source, _anchor(graph, source))
        return plain_inputs[source]

    def blocked_value(source: torch.fx.Node) -> torch.fx.Node:
        if source in blocked:
            return source
        if source not in to_blocked:
            channels = conv_nodes.value(source).shape[1]
            padded = as_4d(source, _anchor(graph, source))
            if channels % BLOCK:
                with graph.inserting_after(padded):
                    padded = graph.call_function(
                        aten.constant_pad_nd.default,
                        (padded, [0, 0, 0, 0, 0, _padded(channels) - channels], 0.0))
            with graph.inserting_after(padded):
                to_blocked[source] = graph.call_function(TO_BLOCKED, (padded,))
        return to_blocked[source]

    stored = _StoredOperands(ep, constants, biases, fake_mode)
    rewritten = 0
    for node in (n for n in list(graph.nodes) if n in blocked):
        member = blocked[node]
        nchw_users = [u for u in node.users if u not in blocked]
        if member.kind == POOL:
            node.target = MAX_POOL2D_BLOCKED
            node.args = (blocked_value(node.args[0]),) + tuple(node.args[1:])
        elif member.kind == ELEMENTWISE:
            node.args = (blocked_value(member.x),)
        elif member.kind == DEPTHWISE:
            node.target = DEPTHWISE_BLOCKED
            node.args = (blocked_value(member.x), stored.depthwise_weight(member.weight),
                         stored.bias(member.bias, member.channels), member.stride,
                         member.padding, member.lo, member.hi)
            rewritten += 1
        else:
            x = plain_value(member.x) if _plain(member, matches) else blocked_value(member.x)
            residual = None if member.residual is None else blocked_value(member.residual)
            bias = stored.bias(member.bias, member.channels)
            if winograd and _winograd(node, member, matches, constants):
                node.target = WINOGRAD_BLOCKED
                node.args = (x, stored.winograd_weight(member.weight), bias, residual,
                             _padded(member.channels), member.padding, member.lo, member.hi)
            else:
                node.target = CONV2D_BLOCKED
                node.args = (x, stored.weight(member.weight), bias, residual,
                             _padded(member.channels), member.stride, member.padding, member.lo,
                             member.hi)
            rewritten += 1
        if nchw_users:
            with graph.inserting_after(node):
                back = graph.call_function(FROM_BLOCKED, (node,))
            if member.channels % BLOCK:
                with graph.inserting_after(back):
                    back = graph.call_function(aten.slice_copy.Tensor,
                                               (back, 1, 0, member.channels))
            if member.one_d:
                with graph.inserting_after(back):
                    back = graph.call_function(aten.squeeze_copy.dims, (back, [2]))
            for user in nchw_users:
                user.replace_input_with(node, back)
    _fuse_activations(graph)
    graph.lint()
    drop_unused_constants(ep)  # also recompiles
    refresh_fake_tensors(ep.graph_module)
    return rewritten


def _fused_target(activation: torch.fx.Node) -> Optional[object]:
    """conv2d_blocked_gelu / _silu for an exact GELU / a SiLU, else None."""
    if activation.target == aten.gelu.default \
            and activation.kwargs.get("approximate", "none") == "none":
        return CONV2D_BLOCKED_GELU
    if activation.target == aten.silu.default and not activation.kwargs:
        return CONV2D_BLOCKED_SILU
    return None


def _fuse_activations(graph: torch.fx.Graph) -> int:
    """conv2d_blocked whose only reader is an exact GELU or a SiLU on it ->
    one conv2d_blocked_gelu / conv2d_blocked_silu (the activation in the
    convolution's epilogue, no pass over its output); returns how many."""
    fused = 0
    for node in list(graph.nodes):
        if node.target != CONV2D_BLOCKED or len(node.users) != 1:
            continue
        (user,) = node.users
        target = _fused_target(user) if user.args == (node,) else None
        if target is None:
            continue
        node.target = target
        user.replace_all_uses_with(node)
        graph.erase_node(user)
        fused += 1
    return fused


def _filters_2d(weight: torch.Tensor) -> torch.Tensor:
    """[Cout, Cin, KH, KW] filters as they are, 1-d [Cout, Cin, K] ones as
    [Cout, Cin, 1, K]."""
    return weight if weight.dim() == 4 else weight.unsqueeze(2)


def _anchor(graph: torch.fx.Graph, source: torch.fx.Node) -> torch.fx.Node:
    """Where a value's layout change goes: after the value, or after all
    placeholders for an input."""
    return source if source.op != "placeholder" else \
        [n for n in graph.nodes if n.op == "placeholder"][-1]


class _StoredOperands:
    """The new lifted constants of the rewritten convolutions: packed filters
    (direct or Winograd-transformed) and zero-padded biases, one of each form
    per original placeholder (convolutions sharing a weight share its packed
    form)."""

    def __init__(self, ep: ExportedProgram, constants: dict, biases: dict, fake_mode: Any):
        self._ep, self._constants, self._biases, self._fake_mode = ep, constants, biases, fake_mode
        self._made: dict[tuple, torch.fx.Node] = {}

    def _lift(self, key: tuple, name: str, make: Any) -> torch.fx.Node:
        if key not in self._made:
            self._made[key] = add_lifted_constant(self._ep, name, make(), self._fake_mode)
        return self._made[key]

    def weight(self, node: torch.fx.Node) -> torch.fx.Node:
        return self._lift((CONV, node), f"{node.name}_blocked",
                          lambda: conv2d_blocked_op.pack_weight(_filters_2d(self._constants[node])))

    def winograd_weight(self, node: torch.fx.Node) -> torch.fx.Node:
        return self._lift(("winograd", node), f"{node.name}_winograd_blocked",
                          lambda: conv2d_winograd_blocked_op.pack_winograd_weight(
                              self._constants[node]))

    def depthwise_weight(self, node: torch.fx.Node) -> torch.fx.Node:
        return self._lift((DEPTHWISE, node), f"{node.name}_blocked",
                          lambda: conv2d_blocked_op.pack_depthwise_weight(
                              _filters_2d(self._constants[node])))

    def bias(self, node: Optional[torch.fx.Node], channels: int) -> Optional[torch.fx.Node]:
        if node is None or channels % BLOCK == 0:
            return node
        return self._lift(("bias", node), f"{node.name}_blocked",
                          lambda: conv2d_blocked_op.pad_channels(self._biases[node],
                                                                 _padded(channels)))
