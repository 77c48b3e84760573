"""Fuse a float32 2-D convolution with the clamp-like activation after it.

    y = aten.convolution(x, w, b, stride, padding, dilation, False, [0, 0], groups)
    z = aten.relu(y) | aten.hardtanh(y, a, b) | aten.clamp(y, a, b)

becomes z = torchedge::conv2d_clamp(x, w, b, stride, padding, dilation,
groups, lo, hi) (conv2d_clamp_op.py), whose optimized kernel clamps in the
convolution's epilogue instead of in a separate pass over the output. The
pass runs at to_pte time on a copy of each method (PteOptions.fuse_activations),
never in to_edge: the EdgeProgram stays core ATen and the XNNPACK partitioner
still sees plain convolution + relu.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import conv2d_clamp_op
from torchedge.passes.graph_modules import graph_modules

aten = torch.ops.aten
CONV2D_CLAMP = getattr(getattr(torch.ops, conv2d_clamp_op.NAMESPACE), conv2d_clamp_op.OP_NAME).default


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _bounds(node: torch.fx.Node) -> Optional[tuple[float, float]]:
    """(lo, hi) of a relu / hardtanh / clamp node with constant numeric bounds, else None."""
    if node.op != "call_function":
        return None
    if node.target == aten.relu.default and len(node.args) == 1 and not node.kwargs:
        return 0.0, math.inf
    if node.target in (aten.hardtanh.default, aten.clamp.default):
        names = ("min_val", "max_val") if node.target == aten.hardtanh.default else ("min", "max")
        defaults = (-1.0, 1.0) if node.target == aten.hardtanh.default else (None, None)
        if len(node.args) > 3 or any(k not in names for k in node.kwargs):
            return None
        bounds = [node.args[i + 1] if len(node.args) > i + 1 else node.kwargs.get(name, defaults[i])
                  for i, name in enumerate(names)]
        if bounds[0] is None and bounds[1] is None:
            return None
        lo = -math.inf if bounds[0] is None else bounds[0]
        hi = math.inf if bounds[1] is None else bounds[1]
        if not (_is_number(lo) and _is_number(hi)) or lo > hi:
            return None  # a clamp with lo > hi is all hi; the kernel rejects it
        return float(lo), float(hi)
    return None


def _float32_4d(node: Any) -> bool:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32 and val.dim() == 4


def _conv2d_arguments(conv: torch.fx.Node) -> Optional[tuple]:
    """(x, w, b, stride, padding, dilation, groups) of a plain float32 2-D convolution."""
    if conv.op != "call_function" or conv.target != aten.convolution.default:
        return None
    if len(conv.args) != 9 or conv.kwargs:
        return None
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = conv.args
    if transposed is not False or list(output_padding) not in ([0, 0], [0]):
        return None
    if not (_float32_4d(x) and _float32_4d(w) and _float32_4d(conv)):
        return None
    for value in (stride, padding, dilation):
        if not isinstance(value, (list, tuple)) or len(value) not in (1, 2) \
                or not all(isinstance(v, int) for v in value):
            return None
    if not isinstance(groups, int):
        return None
    return x, w, b, list(stride), list(padding), list(dilation), groups


def _fuse_in(gm: torch.fx.GraphModule, apply: bool) -> int:
    count = 0
    for act in list(gm.graph.nodes):
        bounds = _bounds(act)
        conv = act.args[0] if bounds is not None else None
        if not isinstance(conv, torch.fx.Node) or len(conv.users) != 1:
            continue
        arguments = _conv2d_arguments(conv)
        if arguments is None or not _float32_4d(act):
            continue
        count += 1
        if apply:
            # The activation node becomes the fused call: its name, output
            # spec and meta["val"] (the clamped result's shape) stay valid.
            act.target = CONV2D_CLAMP
            act.args = (*arguments, *bounds)
            act.kwargs = {}
            if "stack_trace" in conv.meta:
                act.meta["stack_trace"] = conv.meta["stack_trace"]
            gm.graph.erase_node(conv)
    if count and apply:
        gm.graph.lint()
        gm.recompile()
    return count


def count_conv_activations(gm: torch.fx.GraphModule) -> int:
    """How many convolution + activation pairs fuse_conv_activations would fuse."""
    return sum(_fuse_in(module, apply=False) for module in graph_modules(gm))


def fuse_conv_activations(gm: torch.fx.GraphModule) -> int:
    """Replaces each float32 2-D convolution (4-d input, not transposed) whose
    only user is relu, hardtanh or clamp with constant bounds by one
    torchedge::conv2d_clamp call, in `gm` and its torch.cond branch graphs.

    Afterwards no such pair is left; every other convolution (1-d / 3-d,
    transposed, other dtypes, read by more than the activation) and every
    other activation is unchanged, and each fused node keeps the activation's
    name and meta["val"], so signatures stay valid. Returns the number of
    pairs fused.
    """
    return sum(_fuse_in(module, apply=True) for module in graph_modules(gm))
