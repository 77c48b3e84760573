"""Lowers one delegated partition to XNNPACK blob records.

`lower_subgraph` plans layouts (layout.py), folds batch norms into the
convolutions feeding them, then runs one emitter per operator node, in
graph order. Emitters translate ATen semantics to XNNPACK's: filters are
permuted to OHWI / [1, H, W, C*M], symmetric PyTorch padding becomes
top/right/bottom/left, elementwise constants are aligned with the layout
their result lives in. op_support.py decided beforehand that every node
here is supported.

Quantized partitions (PT2E): quantize/dequantize_per_tensor become
converts, weights behind dequantize_per_channel are folded, and operators
whose inputs and output are int8 run on the integers
(quantized_lowering.py).
"""

from __future__ import annotations

import operator
from typing import Callable, Optional

import torch

from torchedge.backends.backend_details import DelegateSubgraph
from torchedge.backends.xnnpack.blob_writer import NO_VALUE, BlobWriter, OpCode
from torchedge.backends.xnnpack.layout import NHWC_ORDER, plan_layouts
from torchedge.backends.xnnpack.lowering_context import INF, NHWC, PLAIN, LoweringContext
from torchedge.backends.xnnpack.op_support import (
    clamp_bounds, pair, pool_geometry, arguments, node_view, result_node, shape_of,
)
from torchedge.backends.xnnpack.quantized_lowering import (
    DQ_PER_TENSOR, Q_PER_TENSOR, Int8Plan, emit_dequantize, emit_pattern, emit_quantize,
)
from torchedge.backends.xnnpack.quantized_patterns import FoldedConstants, is_fold_candidate

aten = torch.ops.aten
Emitter = Callable[[LoweringContext, torch.fx.Node, dict], None]
NO_CLAMP = [-INF, INF]


def lower_subgraph(subgraph: DelegateSubgraph) -> BlobWriter:
    graph = subgraph.graph_module.graph
    nodes = [n for n in graph.nodes if n.op == "call_function" and n.target is not operator.getitem]
    lookup = FoldedConstants(
        lambda n: subgraph.constants.get(n.name) if n.op == "placeholder" else None)
    plan = plan_layouts(node_view(n, lookup) for n in nodes)
    if plan.conflicts:
        node, why = next(iter(plan.conflicts.items()))
        raise ValueError(f"XNNPACK partition cannot be lowered: {node.name} {why}")
    ctx = LoweringContext(subgraph, plan)
    folded = _batch_norm_folds(ctx, nodes)
    int8 = Int8Plan.of(nodes, ctx)
    for node in nodes:
        if node in folded.values():
            continue  # its result is written by the convolution it was folded into
        if is_fold_candidate(node) and ctx.constant(node) is not None:
            continue  # a dequantized weight, folded into its consumer's constants
        ctx.writer.begin_step(_step_names(node, folded, int8))
        if node in int8.patterns:
            emit_pattern(ctx, int8.patterns[node])
            ctx.flush()
            continue
        if node in int8.absorbed:
            continue  # written by (or inside) an int8 pattern
        if node.target is Q_PER_TENSOR or (node.target is DQ_PER_TENSOR and int8.needs_float(node)):
            (emit_quantize if node.target is Q_PER_TENSOR else emit_dequantize)(ctx, node)
            ctx.flush()
            continue
        if node.target is DQ_PER_TENSOR:
            continue  # read only as int8 by patterns
        emitter = _EMITTERS.get(node.target)
        if emitter is None:
            raise ValueError(f"XNNPACK lowering has no emitter for {node.target}")
        args = arguments(node)
        if node in folded:
            args["_batch_norm"] = arguments(folded[node])
            ctx.alias[node] = result_node(folded[node])
        emitter(ctx, node, args)
        ctx.flush()
    return ctx.writer


def _step_names(node: torch.fx.Node, folded: dict, int8: Int8Plan) -> list[str]:
    """The FX nodes whose work the XNNPACK nodes emitted for `node` do: a
    folded batch norm with its convolution, an int8 pattern's activation
    and quantize with its operator."""
    names = [node.name]
    if node in folded:
        names.append(folded[node].name)
    pattern = int8.patterns.get(node)
    if pattern is not None:
        names += [n.name for n in pattern.absorbed] + [pattern.output.name]
    return names


def _batch_norm_folds(ctx: LoweringContext, nodes: list) -> dict:
    """convolution -> the batch norm that alone consumes it."""
    folds = {}
    for node in nodes:
        if node.target is not aten._native_batch_norm_legit_no_training.default:
            continue
        source = node.args[0]
        if (isinstance(source, torch.fx.Node) and source.target is aten.convolution.default
                and source in nodes and len(source.users) == 1):
            folds[source] = node
    return folds


# ---- convolution, pooling ------------------------------------------------------------


def _batch_norm_affine(ctx, bn: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """An inference batch norm as y = x * scale + shift per channel (float64)."""
    mean = ctx.constant(bn["running_mean"]).double()
    var = ctx.constant(bn["running_var"]).double()
    gamma = ctx.constant(bn["weight"]).double() if bn["weight"] is not None else torch.ones_like(mean)
    beta = ctx.constant(bn["bias"]).double() if bn["bias"] is not None else torch.zeros_like(mean)
    scale = gamma / torch.sqrt(var + bn["eps"])
    return scale, beta - mean * scale


def _convolution(ctx: LoweringContext, node, a) -> None:
    weight = ctx.constant(a["weight"])
    groups = a["groups"]
    kh, kw = weight.shape[2:]
    if a["transposed"]:  # PyTorch [in, out / groups, kh, kw] -> [out, kh, kw, in / groups]
        group_in, group_out = weight.shape[0] // groups, weight.shape[1]
        filt = weight.reshape(groups, group_in, group_out, kh, kw).permute(0, 2, 3, 4, 1)
        filt = filt.reshape(groups * group_out, kh, kw, group_in)
    else:  # OIHW -> OHWI
        group_in, group_out = weight.shape[1], weight.shape[0] // groups
        filt = weight.permute(0, 2, 3, 1)
    out_ch = groups * group_out
    bias = ctx.constant(a["bias"]) if a["bias"] is not None else torch.zeros(out_ch)
    if "_batch_norm" in a:  # fold: per output channel (dim 0 of the XNNPACK filter)
        scale, shift = _batch_norm_affine(ctx, a["_batch_norm"])
        filt = (filt.double() * scale.reshape(-1, 1, 1, 1)).float()
        bias = (bias.double() * scale + shift).float()
    channels = shape_of(a["input"])[1]
    sh, sw = pair(a["stride"], 1)
    ph, pw = pair(a["padding"], 0)
    dh, dw = pair(a["dilation"], 1)
    x = ctx.read(a["input"], NHWC)
    out = ctx.result(node, NHWC)
    if a["transposed"]:
        ah, aw = pair(a["output_padding"], 0)
        ids = [x, ctx.add_constant(filt), ctx.add_constant(bias), out]
        params = [ph, pw, ph, pw, ah, aw, kh, kw, sh, sw, dh, dw, groups, group_in, group_out]
        ctx.node(OpCode.DECONV2D, ids, params + NO_CLAMP)
        return
    window = [ph, pw, ph, pw, kh, kw, sh, sw, dh, dw]
    if groups > 1 and group_in == 1 and groups == channels:  # depthwise: [1, kh, kw, C * M]
        filt = filt.reshape(out_ch, kh, kw).permute(1, 2, 0).reshape(1, kh, kw, out_ch)
        ids = [x, ctx.add_constant(filt), ctx.add_constant(bias), out]
        ctx.node(OpCode.DEPTHWISE_CONV2D, ids, window + [group_out, channels] + NO_CLAMP)
    else:
        ids = [x, ctx.add_constant(filt), ctx.add_constant(bias), out]
        ctx.node(OpCode.CONV2D, ids, window + [groups, group_in, group_out] + NO_CLAMP)


def _max_pool(ctx, node, a) -> None:
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pool_geometry(a, dilation=True)
    x = ctx.read(a["self"], NHWC)
    out = ctx.result(result_node(node), NHWC)
    ctx.node(OpCode.MAX_POOL2D, [x, out], [ph, pw, ph, pw, kh, kw, sh, sw, dh, dw] + NO_CLAMP)


def _avg_pool(ctx, node, a) -> None:
    (kh, kw), (sh, sw), (ph, pw), _ = pool_geometry(a, dilation=False)
    x = ctx.read(a["self"], NHWC)
    out = ctx.result(node, NHWC)
    ctx.node(OpCode.AVG_POOL2D, [x, out], [ph, pw, ph, pw, kh, kw, sh, sw] + NO_CLAMP)


def _mean(ctx, node, a) -> None:
    x = ctx.read(a["self"], NHWC)
    n, c = shape_of(a["self"])[:2]
    if a["keepdim"]:
        ctx.node(OpCode.GLOBAL_AVG_POOL2D, [x, ctx.result(node, NHWC)], NO_CLAMP)
        return
    pooled = ctx.internal((n, 1, 1, c))
    ctx.node(OpCode.GLOBAL_AVG_POOL2D, [x, pooled], NO_CLAMP)
    ctx.node(OpCode.RESHAPE, [pooled, ctx.result(node, PLAIN)])


def _upsample_bilinear(ctx, node, a) -> None:
    x = ctx.read(a["input"], NHWC)
    ctx.node(OpCode.RESIZE_BILINEAR2D, [x, ctx.result(node, NHWC)], [int(bool(a["align_corners"]))])


# ---- elementwise -----------------------------------------------------------------------


def _channel_constant(ctx, values: torch.Tensor, rank: int, layout: str) -> int:
    """Per-channel values shaped to broadcast over a rank-`rank` tensor's channel dim."""
    shape = (values.numel(),) if layout == NHWC else (values.numel(),) + (1,) * (rank - 2)
    return ctx.add_constant(values.reshape(shape))


def _batch_norm(ctx, node, a) -> None:
    scale, shift = _batch_norm_affine(ctx, a)
    out_node = result_node(node)
    layout = ctx.layout(out_node)
    rank = len(shape_of(out_node))
    x = ctx.read(a["input"], layout)
    scaled = ctx.internal(ctx.dims(out_node, layout))
    ctx.node(OpCode.MULTIPLY, [x, _channel_constant(ctx, scale.float(), rank, layout), scaled], NO_CLAMP)
    ctx.node(OpCode.ADD, [scaled, _channel_constant(ctx, shift.float(), rank, layout),
                          ctx.result(out_node, layout)], NO_CLAMP)


_BINARY = {
    aten.add.Tensor: OpCode.ADD, aten.add.Scalar: OpCode.ADD,
    aten.sub.Tensor: OpCode.SUBTRACT, aten.sub.Scalar: OpCode.SUBTRACT,
    aten.mul.Tensor: OpCode.MULTIPLY, aten.mul.Scalar: OpCode.MULTIPLY,
    aten.div.Tensor: OpCode.DIVIDE, aten.div.Scalar: OpCode.DIVIDE,
    aten.maximum.default: OpCode.MAXIMUM, aten.minimum.default: OpCode.MINIMUM,
}


def _binary(ctx, node, a) -> None:
    op = _BINARY[node.target]
    layout = ctx.layout(node)
    lhs = ctx.broadcast_operand(a["self"], layout)
    other, alpha = a["other"], a.get("alpha", 1)
    if alpha != 1 and (not isinstance(other, torch.fx.Node) or ctx.constant(other) is not None):
        rhs = ctx.broadcast_operand(other, layout, scale=alpha)  # folded into the constant
    else:
        rhs = ctx.broadcast_operand(other, layout)
        if alpha != 1:  # a run-time operand: times alpha first
            scaled = ctx.internal(ctx.writer.dims(rhs))
            ctx.node(OpCode.MULTIPLY, [rhs, ctx.scalar(alpha), scaled], NO_CLAMP)
            rhs = scaled
    params = [] if op in (OpCode.MAXIMUM, OpCode.MINIMUM) else NO_CLAMP
    ctx.node(op, [lhs, rhs, ctx.result(node, layout)], params)


def _clamp(ctx, node, a) -> None:
    low, high = clamp_bounds(node, a)
    layout = ctx.layout(node)
    x = ctx.read(node.args[0], layout)
    bounds = [-INF if low is None else low, INF if high is None else high]
    ctx.node(OpCode.CLAMP, [x, ctx.result(node, layout)], bounds)


_UNARY_OPCODES = {
    aten.hardswish.default: OpCode.HARDSWISH, aten.sigmoid.default: OpCode.SIGMOID,
    aten.abs.default: OpCode.ABS, aten.neg.default: OpCode.NEGATE,
    aten.floor.default: OpCode.FLOOR, aten.ceil.default: OpCode.CEILING,
    aten.sqrt.default: OpCode.SQUARE_ROOT, aten.round.default: OpCode.BANKERS_ROUNDING,
    aten.pow.Tensor_Scalar: OpCode.SQUARE,  # exponent 2 (op_support checked)
    aten.clone.default: OpCode.RESHAPE,     # a copy with the same dims
}


def _unary(ctx, node, a) -> None:
    layout = ctx.layout(node)
    x = ctx.read(node.args[0], layout)
    out = ctx.result(node, layout)
    if node.target is aten.leaky_relu.default:
        ctx.node(OpCode.LEAKY_RELU, [x, out], [float(a["negative_slope"])])
    elif node.target is aten.elu.default:
        ctx.node(OpCode.ELU, [x, out], [float(a["alpha"])])
    else:
        ctx.node(_UNARY_OPCODES[node.target], [x, out])


def _constant_pad(ctx, node, a) -> None:
    layout = ctx.layout(node)
    rank = len(shape_of(node))
    pre, post = [0] * rank, [0] * rank
    pad = list(a["pad"])
    for i in range(len(pad) // 2):  # pairs from the last dim backwards
        pre[rank - 1 - i], post[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    if layout == NHWC:
        pre, post = [pre[d] for d in NHWC_ORDER], [post[d] for d in NHWC_ORDER]
    x = ctx.read(a["self"], layout)
    ctx.node(OpCode.CONSTANT_PAD, [x, ctx.result(node, layout)], [float(a["value"])] + pre + post)


# ---- plain-layout operators ---------------------------------------------------------------


def _reshape(ctx, node, a) -> None:
    ctx.node(OpCode.RESHAPE, [ctx.read(node.args[0], PLAIN), ctx.result(node, PLAIN)])


def _softmax(ctx, node, a) -> None:
    ctx.node(OpCode.SOFTMAX, [ctx.read(a["self"], PLAIN), ctx.result(node, PLAIN)])


def _fully_connected(ctx, node, x, weight_out_in: torch.Tensor, bias: Optional[object],
                     bias_scale: float = 1.0) -> None:
    """x @ weight.T (+ bias); `bias` is a constant tensor, a run-time node or None."""
    out_features = weight_out_in.shape[0]
    filt = ctx.add_constant(weight_out_in.contiguous())
    bias_const = ctx.constant(bias) if isinstance(bias, torch.fx.Node) else None
    fused_bias = bias_const is not None and bias_const.numel() == out_features and \
        tuple(bias_const.shape) in ((out_features,), (1, out_features))
    if bias is None or fused_bias:
        bias_id = ctx.add_constant(bias_const.reshape(-1) * bias_scale) if fused_bias else NO_VALUE
        ctx.node(OpCode.FULLY_CONNECTED, [x, filt, bias_id, ctx.result(node, PLAIN)], NO_CLAMP)
        return
    product = ctx.internal(ctx.dims(node, PLAIN))
    ctx.node(OpCode.FULLY_CONNECTED, [x, filt, NO_VALUE, product], NO_CLAMP)
    if bias_const is not None:
        addend = ctx.add_constant(bias_const * bias_scale)
    else:
        addend = ctx.read(bias, PLAIN)
        if bias_scale != 1:
            scaled = ctx.internal(ctx.writer.dims(addend))
            ctx.node(OpCode.MULTIPLY, [addend, ctx.scalar(bias_scale), scaled], NO_CLAMP)
            addend = scaled
    ctx.node(OpCode.ADD, [product, addend, ctx.result(node, PLAIN)], NO_CLAMP)


def _addmm(ctx, node, a) -> None:
    weight = ctx.constant(a["mat2"]).t() * a["alpha"]
    _fully_connected(ctx, node, ctx.read(a["mat1"], PLAIN), weight, a["self"], a["beta"])


def _mm(ctx, node, a) -> None:
    _fully_connected(ctx, node, ctx.read(a["self"], PLAIN), ctx.constant(a["mat2"]).t(), None)


def _linear(ctx, node, a) -> None:
    _fully_connected(ctx, node, ctx.read(a["input"], PLAIN), ctx.constant(a["weight"]), a["bias"])


_EMITTERS: dict[object, Emitter] = {
    aten.convolution.default: _convolution,
    aten.max_pool2d_with_indices.default: _max_pool,
    aten.max_pool2d.default: _max_pool,
    aten.avg_pool2d.default: _avg_pool,
    aten.mean.dim: _mean,
    aten.upsample_bilinear2d.vec: _upsample_bilinear,
    aten._native_batch_norm_legit_no_training.default: _batch_norm,
    **{op: _binary for op in _BINARY},
    aten.relu.default: _clamp,
    aten.hardtanh.default: _clamp,
    aten.clamp.default: _clamp,
    **{op: _unary for op in (*_UNARY_OPCODES, aten.leaky_relu.default, aten.elu.default)},
    aten.constant_pad_nd.default: _constant_pad,
    aten.view_copy.default: _reshape,
    aten.squeeze_copy.dims: _reshape,
    aten.squeeze_copy.dim: _reshape,
    aten.squeeze_copy.default: _reshape,
    aten.unsqueeze_copy.default: _reshape,
    aten.permute_copy.default: _reshape,
    aten._softmax.default: _softmax,
    aten.addmm.default: _addmm,
    aten.mm.default: _mm,
    aten.linear.default: _linear,
}
