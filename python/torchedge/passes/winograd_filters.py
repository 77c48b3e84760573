"""Transform the constant filters of float32 3x3 stride-1 convolutions for
Winograd F(2x2, 3x3) ahead of time.

The optimized kernels compute such convolutions as 16 GEMMs on transformed
filters U = G g G^T (kernels/optimized/conv/winograd.h). Transforming on
every call costs a pass that writes 16/9 of the weights; for 512-channel
layers (9.4 MB of filters, 16.8 MB of U) that pass ate the gain, so those
layers and 7x7 maps stayed on im2col. Here each

    aten.convolution(x, w, bias, [1, 1], padding, [1, 1], False, _, 1)
    torchedge.conv2d_clamp(x, w, bias, [1, 1], padding, [1, 1], 1, lo, hi)
    torchedge.conv2d_add_clamp(x, w, bias, residual, [1, 1], padding, [1, 1], 1, lo, hi)

with w a stored, finite float32 [Cout, Cin, 3, 3] constant, Cin and Cout >= 8,
an output of at least 7x7, and Cin * Cout > 65536 or an output below 28x28
(the layers where the kernel's per-call transform costs too much against
the GEMMs it feeds, which shrink with the map: ResNet's 14x14 and 7x7
layers) becomes torchedge::conv2d_winograd(x, U, bias,
residual, padding, lo, hi) (conv2d_winograd_op.py) reading a new lifted
constant `<weight>_winograd` [16, Cout, Cin]. Those filters take 16/9 of
their bytes in the file (ResNet-18: 46.8 -> 74.3 MB) for 2850 instead of
3280 us per 512 @ 7x7 layer and 5.7-6.4 instead of 8.7-9.1 ms for the three
256 @ 14x14 layers (1 thread, in the model). It runs at to_pte time
on a copy of each method (PteOptions.winograd_filters), after the activation
fusion.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.fx
from torch.export import ExportedProgram

from torchedge.passes import conv2d_winograd_op, conv_nodes
from torchedge.passes.constant_folding import add_lifted_constant, drop_unused_constants
from torchedge.passes.fake_tensors import graph_fake_mode
from torchedge.passes.weight_prepacking import stored_constants

_namespace = getattr(torch.ops, conv2d_winograd_op.NAMESPACE)
CONV2D_WINOGRAD = getattr(_namespace, conv2d_winograd_op.OP_NAME).default

MIN_CHANNELS = 8
MIN_OUTPUT = 7  # ResNet's 7x7 maps: 16 tiles of 2x2 for 49 outputs
# The optimized kernel transforms the filters of smaller layers on every call
# (kernels/optimized/conv/winograd.cpp, winograd_applies: Cin * Cout <= 65536
# and an output of at least 8x8). That pass costs the same for any map size
# while the GEMMs shrink with the map: on 14x14 maps it is 8.7 % of
# ResNet-18 (perf, Ice Lake class Xeon, AVX-512 GEMMs), on 56x56
# and 28x28 maps little. So maps below 28x28 are transformed here too.
RUNTIME_MAX_FILTER_PAIRS = 65536
RUNTIME_MIN_OUTPUT = 28


def _match(node: torch.fx.Node, constants: dict) -> Optional[tuple]:
    """(x, weight placeholder, bias, residual, padding, lo, hi) of a convolution
    conv2d_winograd can compute, else None."""
    conv = conv_nodes.convolution(node)
    if conv is None:
        return None
    x, w, bias, residual = conv.x, conv.weight, conv.bias, conv.residual
    if w not in constants or conv.groups != 1 or not conv_nodes.ones(conv.stride) \
            or not conv_nodes.ones(conv.dilation):
        return None
    weight = constants[w]
    if tuple(weight.shape[2:]) != (3, 3) or not torch.isfinite(weight).all():
        return None
    if weight.shape[0] < MIN_CHANNELS or weight.shape[1] < MIN_CHANNELS:
        return None
    if not conv_nodes.static_float32(x, 4) or conv_nodes.value(x).shape[1] != weight.shape[1]:
        return None
    out_h, out_w = conv_nodes.value(node).shape[2:]
    if min(out_h, out_w) < MIN_OUTPUT:
        return None
    if (weight.shape[0] * weight.shape[1] <= RUNTIME_MAX_FILTER_PAIRS
            and min(out_h, out_w) >= RUNTIME_MIN_OUTPUT):
        return None  # the runtime's own per-call transform covers it (no larger file)
    if bias is not None and not conv_nodes.static_float32(bias, 1):
        return None
    if residual is not None and not conv_nodes.static_float32(residual, 4):
        return None
    pad = conv.padding * 2 if len(conv.padding) == 1 else conv.padding
    return x, w, bias, residual, pad, conv.lo, conv.hi


def count_winograd_convolutions(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many convolutions transform_winograd_filters would rewrite."""
    constants = stored_constants(ep, keep, dims=4)
    return sum(_match(node, constants) is not None for node in ep.graph.nodes)


def transform_winograd_filters(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """Rewrites each convolution of `ep`'s graph of the forms in the module
    docstring into one torchedge::conv2d_winograd call reading a new lifted
    constant `<weight>_winograd` (convolutions sharing a filter share it).
    Each rewritten node keeps its name and meta["val"]; filters nothing else
    reads any more are dropped. The stored constants named in `keep` (read by
    another method too) are left alone, as in weight_prepacking.py. Modifies
    `ep` in place; returns the number of convolutions rewritten."""
    constants = stored_constants(ep, keep, dims=4)
    matches = [(node, m) for node in ep.graph.nodes
               if (m := _match(node, constants)) is not None]
    if not matches:
        return 0
    fake_mode = graph_fake_mode(ep.graph)
    transformed: dict[torch.fx.Node, torch.fx.Node] = {}
    for node, (x, weight_node, bias, residual, pad, lo, hi) in matches:
        if weight_node not in transformed:
            value = conv2d_winograd_op.transform_filters(constants[weight_node])
            transformed[weight_node] = add_lifted_constant(
                ep, f"{weight_node.name}_winograd", value, fake_mode)
        node.target = CONV2D_WINOGRAD
        node.args = (x, transformed[weight_node], bias, residual, pad, lo, hi)
    ep.graph.lint()
    drop_unused_constants(ep)  # also recompiles
    return len(matches)
