"""Emitters for the int8 side of a partition (see quantized_patterns.py).

`Int8Plan` finds the int8 patterns of one partition; lowering.py then asks
it, node by node, whether to emit an int8 operator (`emit_pattern`), a
convert (`emit_quantize` / `emit_dequantize`), or nothing (a node folded
into a pattern or a weight folded ahead of time).

Weights: the exported int8 weight with its per-output-channel scales
becomes a qcint8 constant (OHWI for convolution, [1, H, W, C*M] with the
channel along dim 3 for depthwise, [N, 1, 1, K] for a linear layer run as
a 1x1 convolution); the float bias becomes qcint32 with scale[c] =
input scale * weight scale[c] (round half to even, as XNNPACK adds it to
the int32 accumulator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from torchedge.backends.xnnpack.blob_writer import NO_VALUE, OpCode
from torchedge.backends.xnnpack.lowering_context import NHWC, PLAIN, LoweringContext
from torchedge.backends.xnnpack.op_support import arguments, pair, pool_geometry, shape_of
from torchedge.backends.xnnpack.quantized_patterns import (
    DQ_PER_TENSOR, Q_PER_TENSOR, Int8Pattern, match_int8,
)

INF = math.inf


@dataclass
class Int8Plan:
    patterns: dict[torch.fx.Node, Int8Pattern] = field(default_factory=dict)  # by anchor
    absorbed: set[torch.fx.Node] = field(default_factory=set)  # written by a pattern, or inside one
    int8_reads: dict[torch.fx.Node, set[torch.fx.Node]] = field(default_factory=dict)  # dq -> anchors

    @classmethod
    def of(cls, nodes: list[torch.fx.Node], ctx: LoweringContext) -> "Int8Plan":
        plan = cls()
        for node in nodes:
            pattern, _ = match_int8(node, ctx.constant)
            if pattern is None:
                continue
            plan.patterns[node] = pattern
            plan.absorbed.update(pattern.absorbed)
            plan.absorbed.add(pattern.output)
            for dq in pattern.inputs:
                plan.int8_reads.setdefault(dq, set()).add(node)
        return plan

    def needs_float(self, dq: torch.fx.Node) -> bool:
        """Whether some reader of `dq` (or the partition's output) wants float32."""
        readers = self.int8_reads.get(dq, set())
        return any(user not in readers for user in dq.users)


def emit_quantize(ctx: LoweringContext, node: torch.fx.Node) -> None:
    layout = ctx.layout(node)
    ctx.node(OpCode.CONVERT, [ctx.read(node.args[0], layout), ctx.result(node, layout)])


def emit_dequantize(ctx: LoweringContext, node: torch.fx.Node) -> None:
    layout = ctx.layout(node)
    ctx.node(OpCode.CONVERT, [ctx.read(node.args[0], layout), ctx.result(node, layout)])


def emit_pattern(ctx: LoweringContext, p: Int8Pattern) -> None:
    _EMITTERS[p.kind](ctx, p)


def _f32(x: float) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float32)


def _source(p: Int8Pattern, i: int = 0) -> torch.fx.Node:
    """The int8 value the pattern's i-th dequantize reads."""
    return p.inputs[i].args[0]


def _bounds(p: Int8Pattern) -> list[float]:
    return [float(p.bounds[0]), float(p.bounds[1])]


def _weight_and_bias(ctx: LoweringContext, p: Int8Pattern, filt: torch.Tensor,
                     channel_dim: int) -> tuple[int, int]:
    scales = p.weight.scales
    filter_id = ctx.writer.add_channelwise_constant(filt.contiguous(), channel_dim, scales.tolist())
    if p.bias is None:
        return filter_id, NO_VALUE
    bias_scales = _f32(p.input_qparams().scale) * scales  # float32, as the runtime checks
    quantized = torch.round(p.bias.double() / bias_scales.double())
    quantized = quantized.clamp(-(2 ** 31), 2 ** 31 - 1).to(torch.int32)
    return filter_id, ctx.writer.add_channelwise_constant(quantized, 0, bias_scales.tolist())


def _conv(ctx: LoweringContext, p: Int8Pattern) -> None:
    a = arguments(p.anchor)
    weight = p.weight.values  # OIHW int8
    groups = a["groups"]
    out_ch, group_in, kh, kw = weight.shape
    group_out = out_ch // groups
    channels = shape_of(a["input"])[1]
    sh, sw = pair(a["stride"], 1)
    ph, pw = pair(a["padding"], 0)
    dh, dw = pair(a["dilation"], 1)
    window = [ph, pw, ph, pw, kh, kw, sh, sw, dh, dw]
    x = ctx.read(_source(p), NHWC)
    out = ctx.result(p.output, NHWC)
    if groups > 1 and group_in == 1 and groups == channels:  # depthwise: [1, kh, kw, C * M]
        filt = weight.reshape(out_ch, kh, kw).permute(1, 2, 0).reshape(1, kh, kw, out_ch)
        filter_id, bias_id = _weight_and_bias(ctx, p, filt, 3)
        ctx.node(OpCode.DEPTHWISE_CONV2D, [x, filter_id, bias_id, out],
                 window + [group_out, channels] + _bounds(p))
    else:
        filter_id, bias_id = _weight_and_bias(ctx, p, weight.permute(0, 2, 3, 1), 0)
        ctx.node(OpCode.CONV2D, [x, filter_id, bias_id, out],
                 window + [groups, group_in, group_out] + _bounds(p))


def _linear(ctx: LoweringContext, p: Int8Pattern) -> None:
    """x [..., K] @ W[N, K].T as a 1x1 convolution over [1, 1, rows, K]."""
    weight = p.weight.values
    n, k = weight.shape
    x_shape = shape_of(p.inputs[0])
    rows = math.prod(x_shape[:-1])
    source = _source(p)
    x = ctx.read(source, PLAIN)
    as_image = ctx.internal((1, 1, rows, k), ctx.qparams[source])
    ctx.node(OpCode.RESHAPE, [x, as_image])
    product = ctx.internal((1, 1, rows, n), ctx.qparams[p.output])
    filter_id, bias_id = _weight_and_bias(ctx, p, weight.reshape(n, 1, 1, k), 0)
    ctx.node(OpCode.CONV2D, [as_image, filter_id, bias_id, product],
             [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, n] + _bounds(p))
    ctx.node(OpCode.RESHAPE, [product, ctx.result(p.output, PLAIN)])


def _add(ctx: LoweringContext, p: Int8Pattern) -> None:
    layout = ctx.layout(p.output)
    lhs, rhs = ctx.read(_source(p, 0), layout), ctx.read(_source(p, 1), layout)
    ctx.node(OpCode.ADD, [lhs, rhs, ctx.result(p.output, layout)], _bounds(p))


def _max_pool(ctx: LoweringContext, p: Int8Pattern) -> None:
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pool_geometry(arguments(p.anchor), dilation=True)
    x = ctx.read(_source(p), NHWC)
    ctx.node(OpCode.MAX_POOL2D, [x, ctx.result(p.output, NHWC)],
             [ph, pw, ph, pw, kh, kw, sh, sw, dh, dw, -INF, INF])


def _mean(ctx: LoweringContext, p: Int8Pattern) -> None:
    source = _source(p)
    x = ctx.read(source, NHWC)
    if arguments(p.anchor)["keepdim"]:
        ctx.node(OpCode.GLOBAL_AVG_POOL2D, [x, ctx.result(p.output, NHWC)], [-INF, INF])
        return
    n, c = shape_of(p.inputs[0])[:2]
    pooled = ctx.internal((n, 1, 1, c), ctx.qparams[p.output])
    ctx.node(OpCode.GLOBAL_AVG_POOL2D, [x, pooled], [-INF, INF])
    ctx.node(OpCode.RESHAPE, [pooled, ctx.result(p.output, PLAIN)])


def _clamp(ctx: LoweringContext, p: Int8Pattern) -> None:
    layout = ctx.layout(p.output)
    x = ctx.read(_source(p), layout)
    ctx.node(OpCode.CLAMP, [x, ctx.result(p.output, layout)], _bounds(p))


def _reshape(ctx: LoweringContext, p: Int8Pattern) -> None:
    ctx.node(OpCode.RESHAPE, [ctx.read(_source(p), PLAIN), ctx.result(p.output, PLAIN)])


_EMITTERS = {
    "conv": _conv, "linear": _linear, "add": _add, "max_pool": _max_pool, "mean": _mean,
    "clamp": _clamp, "reshape": _reshape,
}

__all__ = ["DQ_PER_TENSOR", "Q_PER_TENSOR", "Int8Plan", "emit_dequantize", "emit_pattern",
           "emit_quantize"]
