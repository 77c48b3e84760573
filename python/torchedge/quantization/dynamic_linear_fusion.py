"""Fuses PT2E's dynamic int8 linear pattern into torchedge::linear_dynamic_int8.

convert_pt2e lowers each dynamically quantized linear layer to

    scale, zp = choose_qparams.tensor(x, -128, 127, float32 eps, int8)
    xq  = quantize_per_tensor.tensor(x, scale, zp, -128, 127, int8)
    xdq = dequantize_per_tensor.tensor(xq, scale, zp, -128, 127, int8)
    wdq = dequantize_per_channel(W, S, Z, 0, qmin, qmax, int8)     # W, S, Z constants
    y   = linear(xdq, wdq, bias)

which the runtime would run as a float GEMM on dequantized values. When W is
a constant int8 [N, K] tensor, S constant float32 [N] scales and Z absent
or all zero (symmetric per-output-channel weights), `fuse_dynamic_linear`
replaces `y` with `torchedge::linear_dynamic_int8(x, W, S, bias)`, whose
runtime kernel quantizes x itself and multiplies in int8. The op's eager
implementation is the same five-op composition, so the quantized reference
model computes exactly what it did before; anything else (other ranges,
asymmetric or non-constant weights, per-token activations) is left as it
was.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import torch
import torch.fx

from torchedge.quantization import int8_linear_ops

_qd = torch.ops.quantized_decomposed


def _constant(gm: torch.fx.GraphModule, node: Any) -> Optional[torch.Tensor]:
    """The tensor a get_attr node reads, or None."""
    if not isinstance(node, torch.fx.Node) or node.op != "get_attr":
        return None
    value: Any = gm
    for part in node.target.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value if isinstance(value, torch.Tensor) else None


def _args_are(node: torch.fx.Node, target: Any, tail: tuple, arity: int) -> bool:
    """node calls `target` with `arity` positional args ending in `tail` and no
    kwargs but a float32/None out_dtype."""
    if node.op != "call_function" or node.target != target or len(node.args) != arity:
        return False
    if any(key != "out_dtype" or value not in (None, torch.float32)
           for key, value in node.kwargs.items()):
        return False
    return tuple(node.args[arity - len(tail):]) == tail


def _activation_source(xdq: Any) -> Optional[torch.fx.Node]:
    """x if `xdq` is the dynamic per-tensor quantize/dequantize of x, else None."""
    int8_range = (-128, 127, torch.int8)
    if not isinstance(xdq, torch.fx.Node) or not _args_are(
            xdq, _qd.dequantize_per_tensor.tensor, int8_range, 6):
        return None
    xq, scale, zp = xdq.args[:3]
    if not isinstance(xq, torch.fx.Node) or not _args_are(
            xq, _qd.quantize_per_tensor.tensor, int8_range, 6):
        return None
    if xq.args[1] is not scale or xq.args[2] is not zp:
        return None
    for node, index in ((scale, 0), (zp, 1)):
        if not (isinstance(node, torch.fx.Node) and node.op == "call_function"
                and node.target == operator.getitem and node.args[1] == index):
            return None
    choose = scale.args[0]
    if choose is not zp.args[0] or not _args_are(
            choose, _qd.choose_qparams.tensor,
            (-128, 127, int8_linear_ops.FLOAT32_EPS, torch.int8), 5):
        return None
    x = choose.args[0]
    if xq.args[0] is not x or not isinstance(x, torch.fx.Node):
        return None
    val = x.meta.get("val")
    if val is not None and getattr(val, "dtype", None) != torch.float32:
        return None
    return x


def _symmetric_weight(gm: torch.fx.GraphModule, wdq: Any) -> Optional[tuple]:
    """(W node, S node) if `wdq` dequantizes a constant symmetric per-channel int8 weight."""
    if not isinstance(wdq, torch.fx.Node) or wdq.op != "call_function" \
            or wdq.target != _qd.dequantize_per_channel.default or len(wdq.args) != 7:
        return None
    if any(key != "out_dtype" or value not in (None, torch.float32)
           for key, value in wdq.kwargs.items()):
        return None
    w_node, s_node, z_node, axis, _, _, dtype = wdq.args
    w, s = _constant(gm, w_node), _constant(gm, s_node)
    if axis != 0 or dtype != torch.int8 or w is None or s is None:
        return None
    if w.dtype != torch.int8 or w.dim() != 2 or s.dtype != torch.float32 \
            or list(s.shape) != [w.shape[0]]:
        return None
    if z_node is not None:
        z = _constant(gm, z_node)
        if z is None or z.numel() != w.shape[0] or bool(z.any()):
            return None
    return w_node, s_node


def fuse_dynamic_linear(gm: torch.fx.GraphModule) -> int:
    """Rewrites every matching dynamic int8 linear of `gm` (in place; see the
    module docstring) and removes the quantize/dequantize nodes left unused.

    Afterwards no aten.linear of the matched form remains; each fused layer
    is one torchedge::linear_dynamic_int8 call reading the same int8 weight
    and scales constants. Returns the number of layers fused.
    """
    fused = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target != torch.ops.aten.linear.default:
            continue
        if node.kwargs or len(node.args) not in (2, 3):
            continue
        xdq, wdq = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) == 3 else None
        x = _activation_source(xdq)
        weight = _symmetric_weight(gm, wdq)
        if x is None or weight is None:
            continue
        if bias is not None:
            b = _constant(gm, bias) if isinstance(bias, torch.fx.Node) else None
            b = b if b is not None else getattr(bias, "meta", {}).get("val")
            if getattr(b, "dtype", None) != torch.float32:
                continue
        with gm.graph.inserting_before(node):
            new = gm.graph.call_function(torch.ops.torchedge.linear_dynamic_int8.default,
                                         (x, weight[0], weight[1], bias))
        new.meta = dict(node.meta)
        node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
        _erase_if_unused([xdq, xdq.args[0], xdq.args[1], xdq.args[2], xdq.args[1].args[0],
                          wdq, wdq.args[2]], gm.graph)
        fused += 1
    if fused:
        gm.graph.lint()
        gm.recompile()
    return fused


def _erase_if_unused(nodes: list, graph: torch.fx.Graph) -> None:
    """Erases the nodes (in order) that nothing reads any more."""
    for node in nodes:
        if isinstance(node, torch.fx.Node) and not node.users and node.graph is graph:
            graph.erase_node(node)
