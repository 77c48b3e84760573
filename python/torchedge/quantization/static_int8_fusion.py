"""Fuses PT2E's static int8 convolution, linear and add patterns into torchedge's int8 ops.

convert_pt2e lowers a statically quantized convolution to

    xdq = dequantize_per_tensor(xq, sx, zx, -128, 127, int8)
    wdq = dequantize_per_channel(W, S, Z, 0, qmin, qmax, int8)      # W, S, Z constants
    y   = conv2d(xdq, wdq, bias, stride, padding, dilation, groups)
    y   = act(y)                                 # optional: relu, relu6, hardtanh(a, b)
    q   = quantize_per_tensor(y, so, zo, -128, 127, int8)

which the runtime would run as a float convolution on dequantized values.
When W is a constant int8 [Cout, Cin/groups, KH, KW] tensor, S constant
float32 [Cout] scales, Z absent or all zero (symmetric per-output-channel
weights), the bias a float32 [Cout] constant or absent, the input 4-D, and
conv2d and act each read only by the next step, `fuse_static_int8` replaces
`q` with one call (int8_conv_ops.py):

    depthwise (groups == Cin == Cout):  torchedge::depthwise_conv2d_int8(xq, sx, zx, W, S, ...)
    otherwise:                          torchedge::conv2d_int8(xq, sx, zx, panels, S, ..., weight_bits,
                                                               sums)

where `panels` is a new constant, W in the runtime GEMM's panel layout
(pack_conv_weight_panels), weight_bits 7 when W lies in [-64, 63] (the
runtime's faster AVX2 path; int8_conv_ops.weight_bits_of), else 8, and `sums`
a new int32 [Cout] constant, each output channel's weight sum
(int8_conv_ops.conv_weight_sums); a linear(xdq, wdq, bias) (W int8 [N, K], xq
[..., K]) in place of conv2d becomes torchedge::quantized_linear(xq, sx, zx,
W, S, bias, ..., weight_sums) with weight_sums a new int32 [N] constant, the
sums of W's rows (int8_conv_ops.linear_weight_sums). The activation becomes the output range
[output_min, output_max]: its bounds quantized with quantize_per_tensor
itself (quantization is monotone, so quantize(clamp(y, a, b)) ==
clamp(quantize(y), quantize(a), quantize(b)) exactly). Likewise

    q = quantize_per_tensor(act(add(dequantize_per_tensor(a), dequantize_per_tensor(b))), ...)

with act none or relu and a, b of the add's own shape (no broadcasting)
becomes torchedge::add_int8, and quantize(max_pool2d(dequantize(x, s, z)), s, z)
(the same parameters both sides, as the quantizer shares them) becomes
max_pool2d(x) on the int8 tensor itself, flatten likewise (exact: see
_match_max_pool), and quantize(mean over H, W of dequantize(x))
(adaptive_avg_pool2d(x, 1), mean(x, [-2, -1]), or an avg_pool2d whose one
window is the whole unpadded plane) becomes torchedge::mean_hw_int8
(int8_pool_ops.py: PyTorch's quantized average pooling's rounding, within one
step of the float mean; _match_mean). Last, a
conv2d_int8 whose only reader is an add_int8 (either operand, the add
dequantizing it with the conv's own output scale and zero point, as PT2E's
shared observers make it) becomes torchedge::conv2d_add_int8 with the add's
other operand as its residual (_fuse_residual_adds: the int8 value the conv
would have written goes straight into the add's formula). The
ops' eager implementations are the same compositions, so the quantized reference model computes bit-identical
outputs; anything else (uint8 or other ranges, asymmetric or non-constant
weights, conv1d, string padding, broadcasting adds) is left as it was.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch
import torch.fx

from torchedge.quantization import int8_conv_ops, int8_pool_ops
from torchedge.quantization.dynamic_linear_fusion import (
    _constant, _delete_attr, _new_constant, symmetric_int8_weight)

aten = torch.ops.aten
_qd = torch.ops.quantized_decomposed
_INT8_RANGE = (-128, 127, torch.int8)
_RELU = {aten.relu.default, aten.relu_.default}
_HARDTANH = {aten.hardtanh.default, aten.hardtanh_.default}
_RELU6 = {aten.relu6.default}
_ADD = {aten.add.Tensor, aten.add_.Tensor}
_MAX_POOL = {aten.max_pool2d.default}
_VALUE_PRESERVING = _MAX_POOL | {aten.flatten.using_ints}
_MEAN_OPS = {aten.adaptive_avg_pool2d.default, aten.mean.dim, aten.avg_pool2d.default}
# Metadata key of a fused node's output shape (for the shape checks of later matches;
# convert's final export recomputes every node's metadata).
SHAPE_KEY = "torchedge_int8_shape"
# aten.conv2d.default's arguments after (input, weight) and their defaults.
_CONV_DEFAULTS = (("bias", None), ("stride", [1, 1]), ("padding", [0, 0]),
                  ("dilation", [1, 1]), ("groups", 1))


def _call(node: Any, targets: set) -> bool:
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target in targets


def _per_tensor_qparams(node: Any, target: Any) -> Optional[tuple]:
    """(source, scale, zero_point) if `node` is target(source, float, int, -128, 127, int8)."""
    if not _call(node, {target}) or len(node.args) != 6:
        return None
    if any(key != "out_dtype" or value not in (None, torch.float32)
           for key, value in node.kwargs.items()):
        return None
    source, scale, zero_point, *rest = node.args
    if tuple(rest) != _INT8_RANGE or not isinstance(source, torch.fx.Node):
        return None
    if not isinstance(scale, float) or isinstance(zero_point, bool) \
            or not isinstance(zero_point, int):
        return None
    if not (math.isfinite(scale) and scale > 0 and -128 <= zero_point <= 127):
        return None
    return source, scale, zero_point


def _dequantized(node: Any) -> Optional[tuple]:
    return _per_tensor_qparams(node, _qd.dequantize_per_tensor.default)


def _quantized(node: Any) -> Optional[tuple]:
    return _per_tensor_qparams(node, _qd.quantize_per_tensor.default)


def _shape(node: Any) -> Optional[list]:
    """The node's tensor shape, following per-tensor quantize/dequantize (which
    keep shapes and have no metadata of their own in convert_pt2e's graph) and
    the ops this pass made (which hold their output shape in SHAPE_KEY)."""
    while isinstance(node, torch.fx.Node):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            return list(val.shape)
        if SHAPE_KEY in node.meta:
            return list(node.meta[SHAPE_KEY])
        if not _call(node, {_qd.dequantize_per_tensor.default, _qd.quantize_per_tensor.default}):
            return None
        node = node.args[0]
    return None


def _only_user(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    return next(iter(node.users)) if len(node.users) == 1 else None


def output_bound(value: float, scale: float, zero_point: int) -> int:
    """quantize_per_tensor(value as float32, scale, zero_point, -128, 127, int8):
    the bound an activation clamp at `value` becomes on the int8 output."""
    q = _qd.quantize_per_tensor.default(torch.tensor([value], dtype=torch.float32), scale,
                                        zero_point, -128, 127, torch.int8)
    return int(q.item())


def _activation(node: torch.fx.Node) -> Optional[tuple]:
    """(low, high) float bounds of a relu/relu6/hardtanh node, else None."""
    if _call(node, _RELU) and len(node.args) == 1 and not node.kwargs:
        return 0.0, math.inf
    if _call(node, _RELU6) and len(node.args) == 1 and not node.kwargs:
        return 0.0, 6.0
    if _call(node, _HARDTANH):
        names = ("min_val", "max_val")
        if len(node.args) > 3 or any(k not in names for k in node.kwargs):
            return None
        bounds = [-1.0, 1.0]  # hardtanh's defaults
        for i, name in enumerate(names):
            if len(node.args) > i + 1:
                bounds[i] = node.args[i + 1]
            elif name in node.kwargs:
                bounds[i] = node.kwargs[name]
        if not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds) \
                or bounds[0] > bounds[1]:
            return None
        return float(bounds[0]), float(bounds[1])
    return None


def _output_range(bounds: Optional[tuple], scale: float, zero_point: int) -> tuple:
    if bounds is None:
        return -128, 127
    return output_bound(bounds[0], scale, zero_point), output_bound(bounds[1], scale, zero_point)


def _producer(q: torch.fx.Node, targets: set) -> Optional[tuple]:
    """(compute node, activation node or None, activation bounds) for q's input:
    targets(...) -> [act] -> q, each read only by the next."""
    y = q.args[0]
    act, bounds = None, None
    if isinstance(y, torch.fx.Node) and not _call(y, targets):
        bounds = _activation(y)
        if bounds is None or _only_user(y) is not q:
            return None
        act, y = y, y.args[0]
    if not _call(y, targets):
        return None
    if _only_user(y) is not (act if act is not None else q):
        return None
    return y, act, bounds


def _conv_arguments(conv: torch.fx.Node) -> Optional[dict]:
    names = ("input", "weight") + tuple(name for name, _ in _CONV_DEFAULTS)
    if len(conv.args) > len(names) or any(k not in names[len(conv.args):] for k in conv.kwargs):
        return None
    args = dict(zip(names, conv.args))
    for name, default in _CONV_DEFAULTS:
        args.setdefault(name, conv.kwargs.get(name, default))
    for name in ("stride", "padding", "dilation"):
        value = args[name]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) for v in value):
            return None
        value = list(value) * 2 if len(value) == 1 else list(value)
        if len(value) != 2:
            return None
        args[name] = value
    if not isinstance(args["groups"], int) or args["groups"] < 1:
        return None
    return args


def _match_conv(gm: torch.fx.GraphModule, q: torch.fx.Node) -> Optional[tuple]:
    """(op name, its args, new constant(s) or None, nodes to erase afterwards)
    for a fusable conv (new: (panels, weight sums): the packed weight's get_attr
    goes in args[3], the sums' last; a linear's new constant, its weight_sums,
    goes last), else None."""
    out = _quantized(q)
    produced = _producer(q, {aten.conv2d.default}) if out is not None else None
    if produced is None:
        return None
    conv, act, bounds = produced
    args = _conv_arguments(conv)
    if args is None:
        return None
    x = _dequantized(args["input"])
    weight = symmetric_int8_weight(gm, args["weight"], 4)
    if x is None or weight is None:
        return None
    w_node, s_node, w = weight
    cout, cin_g, kh, kw = w.shape
    groups = args["groups"]
    val = conv.meta.get("val")
    if not isinstance(val, torch.Tensor) or val.dtype != torch.float32 or val.dim() != 4 \
            or val.shape[1] != cout or cout % groups:
        return None
    x_shape = _shape(x[0])
    if cin_g * kh * kw > int8_conv_ops.MAX_K or (
            x_shape is not None and (len(x_shape) != 4 or x_shape[1] != cin_g * groups)):
        return None
    bias = args["bias"]
    if bias is not None:
        b = _constant(gm, bias)
        if b is None or b.dtype != torch.float32 or list(b.shape) != [cout]:
            return None
    _, out_scale, out_zp = out
    low, high = _output_range(bounds, out_scale, out_zp)
    xq, x_scale, x_zp = x
    tail = (out_scale, out_zp, low, high)
    stride, padding, dilation = args["stride"], args["padding"], args["dilation"]
    if groups == cout and cin_g == 1:
        op = int8_conv_ops.DEPTHWISE_OP_NAME
        op_args = (xq, x_scale, x_zp, w_node, s_node, bias, stride, padding, dilation, *tail)
        new_weight = None
    else:
        op = int8_conv_ops.CONV_OP_NAME
        new_weight = int8_conv_ops.pack_conv_weight_panels(w, groups)
        # The output channels' weight sums go in as a constant too (weight_sums,
        # last): the sdot kernel starts its sums at -zx * sums instead of
        # summing the panels per call.
        op_args = (xq, x_scale, x_zp, None, s_node, bias, [kh, kw], stride, padding, dilation,
                   groups, *tail, int8_conv_ops.weight_bits_of(w), None)
        new_weight = (new_weight, int8_conv_ops.conv_weight_sums(new_weight, cout))
    dead = [n for n in (act, conv, args["input"], args["weight"]) if n is not None]
    return op, op_args, new_weight, dead


def _match_linear(gm: torch.fx.GraphModule, q: torch.fx.Node) -> Optional[tuple]:
    """Like _match_conv, for a fusable linear (any activation _activation knows)."""
    out = _quantized(q)
    produced = _producer(q, {aten.linear.default}) if out is not None else None
    if produced is None:
        return None
    linear, act, bounds = produced
    if linear.kwargs or len(linear.args) not in (2, 3):
        return None
    x = _dequantized(linear.args[0])
    weight = symmetric_int8_weight(gm, linear.args[1], 2)
    if x is None or weight is None:
        return None
    w_node, s_node, w = weight
    bias = linear.args[2] if len(linear.args) == 3 else None
    if bias is not None:
        b = _constant(gm, bias)
        if b is None or b.dtype != torch.float32 or list(b.shape) != [w.shape[0]]:
            return None
    # No input shape check: linear(x, W) traced, so x is [..., K]. (The input's
    # metadata can be stale: move_exported_model_to_eval's dropout rewrite
    # leaves its pattern's example shape.)
    if w.shape[1] > int8_conv_ops.MAX_K:
        return None
    _, out_scale, out_zp = out
    low, high = _output_range(bounds, out_scale, out_zp)
    # The weight's row sums go in as a constant (weight_sums, last): kernels on
    # the raw int8 input subtract zx * sums instead of summing W per call.
    op_args = (*x, w_node, s_node, bias, out_scale, out_zp, low, high, None)
    dead = [n for n in (act, linear, *linear.args[:2]) if n is not None]
    return (int8_conv_ops.LINEAR_OP_NAME, op_args, int8_conv_ops.linear_weight_sums(w), dead)


def _match_add(q: torch.fx.Node) -> Optional[tuple]:
    """Like _match_conv, for a fusable add."""
    out = _quantized(q)
    produced = _producer(q, _ADD) if out is not None else None
    if produced is None:
        return None
    add, act, bounds = produced
    if act is not None and act.target not in _RELU:
        return None
    if len(add.args) != 2 or any(k != "alpha" or v != 1 for k, v in add.kwargs.items()):
        return None
    a, b = (_dequantized(n) for n in add.args)
    if a is None or b is None:
        return None
    if add.target == aten.add_.Tensor and len(add.args[0].users) != 1:
        return None  # the in-place add's result is also read through its first operand
    shapes = [_shape(add.args[0]), _shape(add.args[1]), _shape(add)]
    if shapes[0] is None or not shapes[0] == shapes[1] == shapes[2]:
        return None
    _, out_scale, out_zp = out
    low, high = _output_range(bounds, out_scale, out_zp)
    op_args = (*a, *b, out_scale, out_zp, low, high)
    dead = [n for n in (act, add, *add.args) if n is not None]
    return int8_conv_ops.ADD_OP_NAME, op_args, None, dead


def _match_max_pool(q: torch.fx.Node) -> Optional[tuple]:
    """(the op's args on the int8 input, nodes to erase, shape) for
    quantize(op(dequantize(x, s, z)), s, z) with op max_pool2d or flatten: the
    same parameters on both sides, so the op can run on x itself. Exact:
    dequantize is monotone, so the max commutes with it (flatten moves
    values only), and quantize(dequantize(v)) == v for every int8 v
    (|v - z| * s * (1 / s) is within 2^-14 of an integer)."""
    out = _quantized(q)
    pool = q.args[0]
    if out is None or not _call(pool, _VALUE_PRESERVING) or _only_user(pool) is not q:
        return None
    x = _dequantized(pool.args[0])
    if x is None or x[1:] != out[1:] or pool.kwargs:
        return None
    return (x[0], *pool.args[1:]), [pool, pool.args[0]], _shape(pool)


def _averages_whole_plane(pool: torch.fx.Node, shape: list) -> Optional[bool]:
    """keepdim if `pool` averages each [H, W] plane of its rank-4 input into
    one value (adaptive_avg_pool2d to 1x1, mean over the last two dims,
    avg_pool2d with one unpadded window), else None."""
    args, kwargs = pool.args, pool.kwargs
    h, w = shape[2], shape[3]
    if pool.target == aten.adaptive_avg_pool2d.default:
        if len(args) != 2 or kwargs or list(args[1]) not in ([1, 1], [1]):
            return None
        return True
    if pool.target == aten.mean.dim:
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        if len(args) < 2 or any(k not in ("keepdim",) for k in kwargs) or len(args) > 3 \
                or not isinstance(args[1], (list, tuple)) or not isinstance(keepdim, bool):
            return None
        return keepdim if sorted(d % 4 for d in args[1]) == [2, 3] else None
    names = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
             "divisor_override")
    if len(args) > 7 or any(k not in names[len(args) - 1:] for k in kwargs):
        return None
    given = dict(zip(names, args[1:]), **kwargs)
    kernel = list(given["kernel_size"]) * (2 if len(given["kernel_size"]) == 1 else 1)
    padding = list(given.get("padding", [0, 0]))
    # A window of the whole unpadded plane is the only one (ceil_mode too:
    # ceil((H - H) / stride) + 1 == 1), and count_include_pad has no pad to count.
    if kernel != [h, w] or any(p != 0 for p in padding) or given.get("divisor_override"):
        return None
    return True


def _match_mean(q: torch.fx.Node) -> Optional[tuple]:
    """(mean_hw_int8's args, nodes to erase, output shape) for quantize(average
    of each H x W plane of dequantize(x)) with int8 x of rank 4, else None."""
    out = _quantized(q)
    pool = q.args[0]
    if out is None or not _call(pool, _MEAN_OPS) or _only_user(pool) is not q:
        return None
    x = _dequantized(pool.args[0])
    shape = _shape(pool.args[0]) if x is not None else None
    if shape is None or len(shape) != 4:
        return None
    if all(isinstance(d, int) for d in shape[2:]) \
            and not 1 <= shape[2] * shape[3] <= int8_pool_ops.MAX_PLANE:
        return None  # (symbolic sizes: the kernel checks the bound at run time)
    keepdim = _averages_whole_plane(pool, shape)
    if keepdim is None:
        return None
    _, out_scale, out_zp = out
    op_args = (*x, keepdim, out_scale, out_zp, -128, 127)
    out_shape = shape[:2] + ([1, 1] if keepdim else [])
    return op_args, [pool, pool.args[0]], out_shape


def fuse_static_int8(gm: torch.fx.GraphModule) -> dict:
    """Rewrites every matching static int8 conv2d, linear and add of `gm` (in
    place; see the module docstring), removes the nodes and constants left
    unused, and returns how many calls of each new op it left in the graph:
    {"conv2d_int8": n, "depthwise_conv2d_int8": n, "quantized_linear": n, "add_int8": n,
    "conv2d_add_int8": n, "max_pool2d": n, "mean_hw_int8": n} (max pools moved onto their int8 input, see
    _match_max_pool; a conv2d_add_int8 counts neither as a conv2d_int8 nor as an add_int8)."""
    counts = {int8_conv_ops.CONV_OP_NAME: 0, int8_conv_ops.DEPTHWISE_OP_NAME: 0,
              int8_conv_ops.LINEAR_OP_NAME: 0, int8_conv_ops.ADD_OP_NAME: 0,
              int8_conv_ops.CONV_ADD_OP_NAME: 0, "max_pool2d": 0,
              int8_pool_ops.MEAN_OP_NAME: 0}
    for q in list(gm.graph.nodes):
        if q.graph is not gm.graph or not _call(q, {_qd.quantize_per_tensor.default}):
            continue
        pool = _match_max_pool(q)
        if pool is not None:
            with gm.graph.inserting_before(q):
                new = gm.graph.call_function(q.args[0].target, pool[0])
            new.meta = {k: v for k, v in q.meta.items() if k != "val"}
            if pool[2] is not None:
                new.meta[SHAPE_KEY] = pool[2]
            q.replace_all_uses_with(new)
            gm.graph.erase_node(q)
            _erase_dead(gm, pool[1])
            if new.target in _MAX_POOL:
                counts["max_pool2d"] += 1
            continue
        mean = _match_mean(q)
        if mean is not None:
            with gm.graph.inserting_before(q):
                new = gm.graph.call_function(
                    getattr(torch.ops.torchedge, int8_pool_ops.MEAN_OP_NAME).default, mean[0])
            new.meta = {k: v for k, v in q.meta.items() if k != "val"}
            new.meta[SHAPE_KEY] = mean[2]
            q.replace_all_uses_with(new)
            gm.graph.erase_node(q)
            _erase_dead(gm, mean[1])
            counts[int8_pool_ops.MEAN_OP_NAME] += 1
            continue
        match = _match_conv(gm, q) or _match_linear(gm, q) or _match_add(q)
        if match is None:
            continue
        name, op_args, new_weight, dead = match
        with gm.graph.inserting_before(q):
            if new_weight is not None and name == int8_conv_ops.LINEAR_OP_NAME:
                attr = _new_constant(gm, f"_torchedge_linear_sums_{counts[name]}", new_weight)
                op_args = (*op_args[:-1], gm.graph.get_attr(attr))
            elif new_weight is not None:
                panels, sums = new_weight
                attr = _new_constant(gm, f"_torchedge_conv_panels_{counts[name]}", panels)
                sums_attr = _new_constant(gm, f"_torchedge_conv_sums_{counts[name]}", sums)
                op_args = (*op_args[:3], gm.graph.get_attr(attr), *op_args[4:-1],
                           gm.graph.get_attr(sums_attr))
            new = gm.graph.call_function(getattr(torch.ops.torchedge, name).default, op_args)
        new.meta = {k: v for k, v in q.meta.items() if k != "val"}
        shape = _shape(q)
        if shape is not None:
            new.meta[SHAPE_KEY] = shape
        q.replace_all_uses_with(new)
        gm.graph.erase_node(q)
        _erase_dead(gm, dead)
        counts[name] += 1
    fused = _fuse_residual_adds(gm)
    counts[int8_conv_ops.CONV_OP_NAME] -= fused
    counts[int8_conv_ops.ADD_OP_NAME] -= fused
    counts[int8_conv_ops.CONV_ADD_OP_NAME] += fused
    if any(counts.values()):
        gm.graph.lint()
        gm.recompile()
    return counts


def _residual_conv(add: torch.fx.Node) -> Optional[tuple]:
    """(conv2d_int8 node, residual args (tensor, scale, zero point)) when one
    operand of add_int8 `add` is a conv2d_int8 that nothing else reads and that
    the add dequantizes with the conv's output parameters, else None. The
    first operand wins when both qualify."""
    conv_op = getattr(torch.ops.torchedge, int8_conv_ops.CONV_OP_NAME).default
    a, b = add.args[0:3], add.args[3:6]
    if a[0] is b[0]:
        return None  # x + x: the conv's value is both operands
    for operand, other in ((a, b), (b, a)):
        conv = operand[0]
        if _call(conv, {conv_op}) and _only_user(conv) is add \
                and tuple(operand[1:]) == tuple(conv.args[11:13]):
            return conv, other
    return None


def _fuse_residual_adds(gm: torch.fx.GraphModule) -> int:
    """Replaces add_int8(conv2d_int8(...), residual) (either order, see
    _residual_conv) by one conv2d_add_int8; returns how many. Exact: the
    fused op's reference is that composition, and a + b == b + a in float."""
    add_op = getattr(torch.ops.torchedge, int8_conv_ops.ADD_OP_NAME).default
    conv_add_op = getattr(torch.ops.torchedge, int8_conv_ops.CONV_ADD_OP_NAME).default
    fused = 0
    for add in list(gm.graph.nodes):
        if not _call(add, {add_op}) or len(add.args) != 10 or add.kwargs:
            continue
        match = _residual_conv(add)
        if match is None:
            continue
        conv, residual = match
        # conv2d_int8's arguments but its last two (weight_bits, weight_sums: they end
        # conv2d_add_int8's).
        conv_args, weight_bits = conv.args[:15], conv.args[15:]
        with gm.graph.inserting_before(add):
            new = gm.graph.call_function(
                conv_add_op, (*conv_args, *residual, *add.args[6:], *weight_bits))
        new.meta = dict(add.meta)
        add.replace_all_uses_with(new)
        gm.graph.erase_node(add)
        gm.graph.erase_node(conv)
        fused += 1
    return fused


def _erase_dead(gm: torch.fx.GraphModule, nodes: list) -> None:
    """Erases the nodes nothing reads any more (in order), then the weight
    dequantize's constants nothing reads (and their attributes)."""
    constants = []
    for node in dict.fromkeys(nodes):  # x + x names its dequantize twice
        if node.graph is not gm.graph or node.users:
            continue
        if _call(node, {_qd.dequantize_per_channel.default}):
            constants += [a for a in node.args[:3] if isinstance(a, torch.fx.Node)]
        gm.graph.erase_node(node)
    for node in constants:
        if node.graph is gm.graph and not node.users and node.op == "get_attr":
            target = node.target
            gm.graph.erase_node(node)
            if not any(n.op == "get_attr" and n.target == target for n in gm.graph.nodes):
                _delete_attr(gm, target)
