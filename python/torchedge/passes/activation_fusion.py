"""Fuse a float32 2-D convolution with the residual add and the clamp-like
activation after it.

    y = aten.convolution(x, w, b, stride, padding, dilation, False, [0, 0], groups)
    z = aten.relu(y) | aten.hardtanh(y, a, b) | aten.clamp(y, a, b)

becomes z = torchedge::conv2d_clamp(x, w, b, stride, padding, dilation,
groups, lo, hi), and

    s = aten.add.Tensor(y, r) (or (r, y)),  r of y's shape and dtype
    z = activation(s) (optional: without one, z = s and the range is open)

becomes z = torchedge::conv2d_add_clamp(x, w, b, r, stride, padding,
dilation, groups, lo, hi) (conv2d_clamp_op.py; a ResNet block's end, or
MobileNetV2's projection + skip). The optimized kernel adds and clamps in the
convolution's bias pass instead of separate passes over the output (ResNet-50:
16 adds and 16 relus fewer). Float addition is commutative, so either operand
order is the same sum. The pass runs at to_pte time on a copy of each method
(PteOptions.fuse_activations), never in to_edge: the EdgeProgram stays core
ATen and the XNNPACK partitioner still sees plain convolution + add + relu.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx

from torchedge.passes import conv2d_clamp_op
from torchedge.passes.graph_modules import graph_modules

aten = torch.ops.aten
_namespace = getattr(torch.ops, conv2d_clamp_op.NAMESPACE)
CONV2D_CLAMP = getattr(_namespace, conv2d_clamp_op.OP_NAME).default
CONV2D_ADD_CLAMP = getattr(_namespace, conv2d_clamp_op.ADD_OP_NAME).default


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


def _same_shape(a: torch.fx.Node, b: torch.fx.Node) -> bool:
    return _float32_4d(a) and _float32_4d(b) and a.meta["val"].shape == b.meta["val"].shape


def _conv_and_residual(add: torch.fx.Node) -> Optional[tuple[torch.fx.Node, torch.fx.Node]]:
    """(convolution, residual) of add(conv, r) / add(r, conv) with alpha 1, where
    the convolution is a fusable conv2d read only by this add and r has the sum's
    shape and dtype (no broadcasting), else None."""
    if add.op != "call_function" or add.target != aten.add.Tensor or len(add.args) != 2:
        return None
    if add.kwargs and add.kwargs != {"alpha": 1}:
        return None
    for conv, residual in (add.args, reversed(add.args)):
        if isinstance(conv, torch.fx.Node) and isinstance(residual, torch.fx.Node) \
                and conv is not residual and len(conv.users) == 1 \
                and _conv2d_arguments(conv) is not None \
                and _same_shape(conv, residual) and _same_shape(conv, add):
            return conv, residual
    return None


def _replace(target_node: torch.fx.Node, op: Any, args: tuple,
             erased: list[torch.fx.Node], gm: torch.fx.GraphModule) -> None:
    """Turns `target_node` (the last node of the pattern) into the fused call
    and erases the pattern's other nodes (`erased`, users first). The node
    keeps its name, output spec and meta["val"], so signatures stay valid."""
    conv = erased[-1]
    target_node.target = op
    target_node.args = args
    target_node.kwargs = {}
    if "stack_trace" in conv.meta:
        target_node.meta["stack_trace"] = conv.meta["stack_trace"]
    for node in erased:
        gm.graph.erase_node(node)


def _fuse_residuals(gm: torch.fx.GraphModule, apply: bool) -> int:
    count = 0
    for add in list(gm.graph.nodes):
        pair = _conv_and_residual(add)
        if pair is None:
            continue
        conv, residual = pair
        x, w, b, stride, padding, dilation, groups = _conv2d_arguments(conv)
        last, bounds, erased = add, (-math.inf, math.inf), [conv]
        (user,) = add.users if len(add.users) == 1 else (None,)
        if user is not None and _bounds(user) is not None and user.args[0] is add \
                and _float32_4d(user):
            last, bounds, erased = user, _bounds(user), [add, conv]
        count += 1
        if apply:
            _replace(last, CONV2D_ADD_CLAMP,
                     (x, w, b, residual, stride, padding, dilation, groups, *bounds), erased, gm)
    return count


def _fuse_activations(gm: torch.fx.GraphModule, apply: bool) -> int:
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
            _replace(act, CONV2D_CLAMP, (*arguments, *bounds), [conv], gm)
    return count


def _fuse_in(gm: torch.fx.GraphModule, apply: bool) -> int:
    # Residual blocks first: their convolution is read by the add, so the
    # activation pattern cannot take it; what the residual pass leaves (a
    # convolution + activation without an add) the second pass takes.
    # Counting without applying: the two patterns never share a convolution.
    count = _fuse_residuals(gm, apply) + _fuse_activations(gm, apply)
    if count and apply:
        gm.graph.lint()
        gm.recompile()
    return count


def count_conv_activations(gm: torch.fx.GraphModule) -> int:
    """How many patterns fuse_conv_activations would fuse."""
    return sum(_fuse_in(module, apply=False) for module in graph_modules(gm))


def fuse_conv_activations(gm: torch.fx.GraphModule) -> int:
    """Replaces, in `gm` and its torch.cond branch graphs, each float32 2-D
    convolution (4-d input, not transposed) whose only user is
      - an add with a same-shape float32 tensor (then also the add's only
        user when it is a relu / hardtanh / clamp with constant bounds) by
        one torchedge::conv2d_add_clamp call;
      - else relu, hardtanh or clamp with constant bounds by one
        torchedge::conv2d_clamp call.

    Afterwards no such pattern is left; every other convolution (1-d / 3-d,
    transposed, other dtypes, read by more than one node, added to a
    broadcast tensor) and every other activation is unchanged, and each
    fused node keeps the name and meta["val"] of the pattern's last node, so
    signatures stay valid. Returns the number of patterns fused.
    """
    return sum(_fuse_in(module, apply=True) for module in graph_modules(gm))
