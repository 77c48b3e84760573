"""Which edge operators the XNNPACK delegate takes, and why it refuses others.

`check_node` looks at one operator node (dtypes, shapes, attributes,
whether weights are constants) and returns None or a specific reason.
`RULES` maps each supported ATen overload to its layout role (see
layout.py) and its check; lowering.py holds the matching emitters.
Everything here is float32 with static shapes (XNNPACK 2022 runtimes are
built for fixed shapes), plus PT2E's quantize/dequantize_per_tensor (XNNPACK
converts) and dequantize_per_channel weights (folded); which quantized
patterns then run in int8 is quantized_patterns.py's decision.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch

from torchedge.backends.xnnpack.layout import AGNOSTIC, PLAIN, SPATIAL, NodeView, moves_no_data
from torchedge.backends.xnnpack.quantized_patterns import (
    DQ_PER_CHANNEL, QDQ_OPS, is_fold_candidate, qdq_problem,
)
from torchedge.emit.tensor_values import dim_order

aten = torch.ops.aten
ConstantLookup = Callable[[torch.fx.Node], Optional[torch.Tensor]]
Check = Callable[[torch.fx.Node, dict, ConstantLookup], Optional[str]]


@dataclass(frozen=True)
class Rule:
    role: str
    check: Check


def arguments(node: torch.fx.Node) -> dict[str, Any]:
    """The node's arguments by schema name, defaults filled in."""
    out = {}
    for i, arg in enumerate(node.target._schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        else:
            out[arg.name] = arg.default_value if arg.has_default_value() else None
    return out


def shape_of(value: Any) -> Optional[tuple]:
    val = value.meta.get("val") if isinstance(value, torch.fx.Node) else None
    return tuple(val.shape) if isinstance(val, torch.Tensor) else None


def tensor_problem(value: torch.fx.Node, what: str) -> Optional[str]:
    """Why `value` cannot be an XNNPACK tensor, or None."""
    val = value.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return f"{what} is not a tensor"
    if val.dtype != torch.float32:
        return f"{what} is {str(val.dtype).replace('torch.', '')}; the XNNPACK delegate runs float32 only"
    if not all(isinstance(d, int) for d in val.shape):
        return (f"{what} has the dynamic shape {list(val.shape)}; XNNPACK 2022 runtimes have "
                "static shapes")
    if not 1 <= val.dim() <= 6:
        return f"{what} has rank {val.dim()}; XNNPACK tensors have 1 to 6 dims"
    if val.numel() == 0:
        return f"{what} is empty"
    order = tuple(dim_order(val))  # as the emitter records it
    if order != tuple(range(val.dim())) and not (val.dim() == 4 and order == (0, 2, 3, 1)):
        # The delegate binds row-major tensors (4-D ones may be NHWC, layout.py);
        # eager's linear-algebra results, for one, are column-major.
        return f"{what} has the dim order {list(order)}; the XNNPACK delegate takes row-major tensors"
    return None


def result_node(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    """The node carrying `node`'s tensor result (item 0 of a tuple result)."""
    if isinstance(node.meta.get("val"), torch.Tensor):
        return node
    for user in node.users:
        if user.target is operator.getitem and user.args[1] == 0:
            return user
    return None


def node_view(node: torch.fx.Node, constant: ConstantLookup) -> NodeView:
    inputs = tuple(x for x in node.all_input_nodes if constant(x) is None)
    if node.target in QDQ_OPS or node.target is DQ_PER_CHANNEL:
        role = AGNOSTIC  # elementwise converts; folded weights have no run-time inputs
    else:
        role = RULES[node.target].role
    return NodeView(node, role, inputs, result_node(node))


def check_node(node: torch.fx.Node, constant: ConstantLookup) -> Optional[str]:
    """`constant` should fold dequantized weights (quantized_patterns.FoldedConstants)."""
    if node.target in QDQ_OPS:
        return qdq_problem(node, constant)
    if is_fold_candidate(node):
        return None if constant(node) is not None else (
            "dequantizes a weight that is not a constant; XNNPACK packs weights at init")
    rule = RULES.get(node.target)
    if rule is None:
        return _MISSING.get(node.target, f"no XNNPACK operator for {node.target}")
    out = result_node(node)
    if out is None:  # e.g. only max pooling's indices are used: let the rule say why
        return rule.check(node, arguments(node), constant) or "its tensor result is unused"
    problem = tensor_problem(out, "the result")
    if problem:
        return problem
    for i, x in enumerate(node.all_input_nodes):
        if constant(x) is None:
            problem = tensor_problem(x, f"operand {i}")
            if problem:
                return problem
    return rule.check(node, arguments(node), constant)


# ---- per-operator checks ---------------------------------------------------------


def pair(value: Any, default: int) -> tuple[int, int]:
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
        return (default, default)
    if isinstance(value, int):
        return (value, value)
    return (int(value[0]), int(value[-1])) if len(value) in (1, 2) else (-1, -1)


def _check_conv(node, a, constant) -> Optional[str]:
    if a["transposed"] and any(p >= s for p, s in zip(pair(a["output_padding"], 0),
                                                       pair(a["stride"], 1))):
        return "transposed convolution with output_padding >= stride (XNNPACK needs it smaller)"
    weight_shape = shape_of(a["weight"])
    if weight_shape is None or len(weight_shape) != 4:
        return f"{len(weight_shape or ()) - 2}-D convolution: only 2-D convolution is delegated"
    if constant(a["weight"]) is None:
        return "the weight is computed at run time; XNNPACK packs weights at init, so they must be constants"
    if a["bias"] is not None and constant(a["bias"]) is None:
        return "the bias is computed at run time; it must be a constant"
    if constant(a["input"]) is not None:
        return "the input is a constant (left for constant folding)"
    return None


def _check_batch_norm(node, a, constant) -> Optional[str]:
    for name in ("weight", "bias", "running_mean", "running_var"):
        if a[name] is not None and constant(a[name]) is None:
            return f"batch norm {name} is computed at run time; it must be a constant"
    shape = shape_of(a["input"])
    if shape is None or len(shape) < 2:
        return "batch norm needs a channel dimension"
    for user in node.users:
        if user.target is not operator.getitem or (user.args[1] != 0 and user.users):
            return "batch norm's saved statistics are used; only the normalized output is delegated"
    return None


def _constant_operands_ok(node, constant) -> Optional[str]:
    for x in node.all_input_nodes:
        value = constant(x)
        if value is not None and value.dtype != torch.float32 and value.numel() != 1:
            return f"a {str(value.dtype).replace('torch.', '')} constant operand would change type promotion"
    return None


def _check_binary(node, a, constant) -> Optional[str]:
    return _constant_operands_ok(node, constant)


def _check_scalar_binary(node, a, constant) -> Optional[str]:
    other = a["other"]
    if not isinstance(other, (int, float, bool)):
        return "the scalar operand is not a number"
    return None


def _check_plain_unary(node, a, constant) -> Optional[str]:
    return None


def _check_clamp(node, a, constant) -> Optional[str]:
    low, high = clamp_bounds(node, a)
    if low is not None and high is not None and low > high:
        return "clamp with min > max"
    return None


def clamp_bounds(node, a) -> tuple[Optional[float], Optional[float]]:
    if node.target is aten.relu.default:
        return 0.0, None
    if node.target is aten.hardtanh.default:
        return float(a["min_val"]), float(a["max_val"])
    low, high = a["min"], a["max"]
    return (None if low is None else float(low)), (None if high is None else float(high))


def _check_elu(node, a, constant) -> Optional[str]:
    if a["scale"] != 1 or a["input_scale"] != 1:
        return "elu with scale or input_scale != 1 has no XNNPACK operator"
    return None


def _check_round(node, a, constant) -> Optional[str]:
    return None


def _check_pow(node, a, constant) -> Optional[str]:
    if a["exponent"] != 2:
        return f"pow with exponent {a['exponent']}: only squaring (exponent 2) is delegated"
    return None


def _check_mean(node, a, constant) -> Optional[str]:
    shape = shape_of(a["self"])
    dims = sorted(d % len(shape) for d in (a["dim"] or []))
    if len(shape) != 4 or dims != [2, 3]:
        return (f"mean over dims {a['dim']} of a rank-{len(shape)} tensor: only the mean over H and W "
                "of a 4-D tensor (global average pooling) is delegated")
    if a["dtype"] is not None:
        return "mean with an explicit dtype"
    return None


def pool_geometry(a, dilation: bool) -> Optional[tuple]:
    kernel = pair(a["kernel_size"], 1)
    stride = pair(a["stride"], 0)
    stride = kernel if stride == (0, 0) else stride
    padding = pair(a["padding"], 0)
    dil = pair(a["dilation"], 1) if dilation else (1, 1)
    if min(kernel + stride + dil) < 1 or min(padding) < 0:
        return None
    return kernel, stride, padding, dil


def _ceil_mode_changes_shape(node, a, kernel, stride, padding, dil) -> bool:
    if not a["ceil_mode"]:
        return False
    h, w = shape_of(a["self"])[2:]
    floor = [(size + 2 * p - ((k - 1) * d + 1)) // s + 1
             for size, k, s, p, d in zip((h, w), kernel, stride, padding, dil)]
    return list(shape_of(result_node(node))[2:]) != floor


def _check_max_pool(node, a, constant) -> Optional[str]:
    for user in node.users:
        if user.target is operator.getitem and user.args[1] == 1 and user.users:
            return "the max-pooling indices are used; XNNPACK's max pooling does not produce them"
    if len(shape_of(a["self"])) != 4:
        return "max pooling of a 3-D (unbatched) input"
    geometry = pool_geometry(a, dilation=True)
    if geometry is None:
        return "unusual pooling parameters"
    kernel, stride, padding, dil = geometry
    if kernel[0] * kernel[1] < 2:
        return "1x1 max pooling (XNNPACK rejects it; it is the identity)"
    if _ceil_mode_changes_shape(node, a, *geometry):
        return "ceil_mode changes the output size; XNNPACK pooling has no ceil mode"
    if padding[0] >= kernel[0] or padding[1] >= kernel[1]:
        return "padding as large as the pooling window"
    return None


def _check_avg_pool(node, a, constant) -> Optional[str]:
    if len(shape_of(a["self"])) != 4:
        return "average pooling of a 3-D (unbatched) input"
    geometry = pool_geometry(a, dilation=False)
    if geometry is None:
        return "unusual pooling parameters"
    kernel, stride, padding, _ = geometry
    if kernel[0] * kernel[1] < 2:
        return "1x1 average pooling (XNNPACK rejects it)"
    if a["divisor_override"] is not None:
        return "avg_pool2d with divisor_override has no XNNPACK equivalent"
    if max(padding) > 0 and a["count_include_pad"]:
        return ("padded avg_pool2d counting the padding (count_include_pad=True): XNNPACK "
                "averages over the valid pixels only")
    if _ceil_mode_changes_shape(node, a, *geometry):
        return "ceil_mode changes the output size; XNNPACK pooling has no ceil mode"
    if padding[0] >= kernel[0] or padding[1] >= kernel[1]:
        return "padding as large as the pooling window"
    return None


def _check_pad(node, a, constant) -> Optional[str]:
    pad = list(a["pad"])
    if any(p < 0 for p in pad):
        return "negative padding (cropping) is not delegated"
    if len(pad) % 2 or len(pad) // 2 > len(shape_of(a["self"])):
        return "padding longer than the tensor's rank"
    return None


def _check_reshape(node, a, constant) -> Optional[str]:
    return None


def _check_permute(node, a, constant) -> Optional[str]:
    shape = shape_of(a["self"])
    order = tuple(d % len(shape) for d in a["dims"])
    if not moves_no_data(shape, order):
        return f"permute {list(order)} moves data; XNNPACK 2022 has no transpose"
    return None


def _check_softmax(node, a, constant) -> Optional[str]:
    rank = len(shape_of(a["self"]))
    if a["dim"] % rank != rank - 1:
        return f"softmax over dim {a['dim']} of a rank-{rank} tensor: XNNPACK's runs over the last dim only"
    if a["half_to_float"]:
        return "softmax with half_to_float"
    return None


def _check_addmm(node, a, constant) -> Optional[str]:
    if constant(a["mat2"]) is None:
        return ("the right operand is computed at run time: XNNPACK 2022 multiplies by constant "
                "weights only (no batched/dynamic matmul)")
    if constant(a["mat1"]) is not None:
        return "the left operand is a constant (left for constant folding)"
    return None


def _check_mm(node, a, constant) -> Optional[str]:
    if constant(a["mat2"]) is None:
        return ("the right operand is computed at run time: XNNPACK 2022 multiplies by constant "
                "weights only (no batched/dynamic matmul)")
    if constant(a["self"]) is not None:
        return "the left operand is a constant (left for constant folding)"
    return None


def _check_linear(node, a, constant) -> Optional[str]:
    if constant(a["weight"]) is None:
        return "the weight is computed at run time; XNNPACK packs weights at init, so they must be constants"
    if a["bias"] is not None and constant(a["bias"]) is None:
        return "the bias is computed at run time; it must be a constant"
    return None


def _check_upsample_bilinear(node, a, constant) -> Optional[str]:
    in_shape = shape_of(a["input"])
    out_shape = shape_of(result_node(node))
    if len(in_shape) != 4:
        return "bilinear upsampling of a non-4-D tensor"
    scales = a["scale_factors"]
    if scales is not None and not a["align_corners"]:
        if any(abs(float(s) * i - o) > 1e-6 for s, i, o in zip(scales, in_shape[2:], out_shape[2:])):
            return ("scale_factors that do not divide the output size exactly: PyTorch then samples "
                    "at 1/scale, XNNPACK at input/output")
    return None


# Elementwise operators without attributes to check (leaky_relu's slope is any float).
UNARY_OPS = frozenset({
    aten.hardswish.default, aten.sigmoid.default, aten.abs.default, aten.neg.default,
    aten.floor.default, aten.ceil.default, aten.sqrt.default, aten.leaky_relu.default,
})

RULES: dict[Any, Rule] = {
    aten.convolution.default: Rule(SPATIAL, _check_conv),
    aten.max_pool2d_with_indices.default: Rule(SPATIAL, _check_max_pool),
    aten.max_pool2d.default: Rule(SPATIAL, _check_max_pool),
    aten.avg_pool2d.default: Rule(SPATIAL, _check_avg_pool),
    aten.mean.dim: Rule(SPATIAL, _check_mean),
    aten.upsample_bilinear2d.vec: Rule(SPATIAL, _check_upsample_bilinear),
    aten._native_batch_norm_legit_no_training.default: Rule(AGNOSTIC, _check_batch_norm),
    aten.add.Tensor: Rule(AGNOSTIC, _check_binary),
    aten.sub.Tensor: Rule(AGNOSTIC, _check_binary),
    aten.mul.Tensor: Rule(AGNOSTIC, _check_binary),
    aten.div.Tensor: Rule(AGNOSTIC, _check_binary),
    aten.maximum.default: Rule(AGNOSTIC, _check_binary),
    aten.minimum.default: Rule(AGNOSTIC, _check_binary),
    aten.add.Scalar: Rule(AGNOSTIC, _check_scalar_binary),
    aten.sub.Scalar: Rule(AGNOSTIC, _check_scalar_binary),
    aten.mul.Scalar: Rule(AGNOSTIC, _check_scalar_binary),
    aten.div.Scalar: Rule(AGNOSTIC, _check_scalar_binary),
    aten.relu.default: Rule(AGNOSTIC, _check_clamp),
    aten.hardtanh.default: Rule(AGNOSTIC, _check_clamp),
    aten.clamp.default: Rule(AGNOSTIC, _check_clamp),
    aten.elu.default: Rule(AGNOSTIC, _check_elu),
    aten.round.default: Rule(AGNOSTIC, _check_round),
    aten.pow.Tensor_Scalar: Rule(AGNOSTIC, _check_pow),
    aten.constant_pad_nd.default: Rule(AGNOSTIC, _check_pad),
    aten.clone.default: Rule(AGNOSTIC, _check_plain_unary),
    **{op: Rule(AGNOSTIC, _check_plain_unary) for op in UNARY_OPS},
    aten.view_copy.default: Rule(PLAIN, _check_reshape),
    aten.squeeze_copy.dims: Rule(PLAIN, _check_reshape),
    aten.squeeze_copy.dim: Rule(PLAIN, _check_reshape),
    aten.squeeze_copy.default: Rule(PLAIN, _check_reshape),
    aten.unsqueeze_copy.default: Rule(PLAIN, _check_reshape),
    aten.permute_copy.default: Rule(PLAIN, _check_permute),
    aten._softmax.default: Rule(PLAIN, _check_softmax),
    aten.addmm.default: Rule(PLAIN, _check_addmm),
    aten.mm.default: Rule(PLAIN, _check_mm),
    aten.linear.default: Rule(PLAIN, _check_linear),
}

# Operators the zoo uses that this XNNPACK (2022-02-16) has no operator for.
_MISSING = {
    aten.bmm.default: "batched matmul: XNNPACK 2022 has no batched matrix multiply",
    aten.cat.default: "XNNPACK 2022 has no concatenate",
    aten.gelu.default: "XNNPACK 2022 has no GELU (nor a float erf/tanh to build it from)",
    aten.tanh.default: "XNNPACK 2022 has tanh only as a quantized operator",
    aten.native_layer_norm.default: "XNNPACK 2022 has no layer norm",
    aten.upsample_nearest2d.vec: "XNNPACK 2022 resizes bilinearly only",
    aten.embedding.default: "XNNPACK 2022 has no gather/embedding",
    aten.expand_copy.default: "XNNPACK 2022 has no broadcast-to/expand (copy) operator",
    aten.slice_copy.Tensor: "XNNPACK 2022 has no slice",
    aten.select_copy.int: "XNNPACK 2022 has no slice/select",
    aten.split_with_sizes_copy.default: "XNNPACK 2022 has no split",
    aten._log_softmax.default: "XNNPACK 2022 has no log-softmax",
    aten.rsqrt.default: "XNNPACK 2022 has no reciprocal square root",
}
