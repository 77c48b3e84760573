"""PT2E quantize/dequantize patterns the XNNPACK delegate runs in int8.

A converted PT2E program computes in float32 between quantize_per_tensor
(q) and dequantize_per_tensor (dq) nodes, with weights stored as int8
constants behind dequantize_per_channel. The delegate takes all of it:

* q / dq become XNNPACK convert nodes (float32 <-> qs8), so a partition's
  inputs and outputs are float32 or int8 exactly as the graph has them;
* dequantize_per_channel of a constant weight (and a permute of it, as
  linear layers are exported) is folded ahead of time (`FoldedConstants`);
* where an operator reads only dq'd int8 values and its result, after at
  most one relu/hardtanh, goes only to one q, it runs on the integers
  instead (`match_int8`): qs8 convolution / depthwise convolution / linear
  (as a 1x1 convolution: this XNNPACK has no per-channel fully connected)
  with per-channel (qc8) weights and an int32 bias, add, max pooling,
  global average pooling, relu/hardtanh and reshape. The q's int8 value is
  then written directly and no float32 value exists in between.

`match_int8` says why a candidate is not taken; the partitioner puts that in
the delegation report, and the operator then runs in float32 inside the
delegate between converts (still correct, only slower).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch

from torchedge.backends.xnnpack.blob_writer import QParams

aten = torch.ops.aten
ConstantLookup = Callable[[torch.fx.Node], Optional[torch.Tensor]]


def _quantized_decomposed():
    # The ops are registered by torch.ao (or torchao) on import.
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    return torch.ops.quantized_decomposed


_qd = _quantized_decomposed()
Q_PER_TENSOR = _qd.quantize_per_tensor.default
DQ_PER_TENSOR = _qd.dequantize_per_tensor.default
DQ_PER_CHANNEL = _qd.dequantize_per_channel.default
QDQ_OPS = frozenset({Q_PER_TENSOR, DQ_PER_TENSOR})

ACTIVATIONS = frozenset({aten.relu.default, aten.hardtanh.default})
RESHAPES = frozenset({aten.view_copy.default, aten.squeeze_copy.dims, aten.squeeze_copy.dim,
                      aten.squeeze_copy.default, aten.unsqueeze_copy.default})
LINEAR_OPS = frozenset({aten.addmm.default, aten.mm.default, aten.linear.default})
MAX_POOL_OPS = frozenset({aten.max_pool2d_with_indices.default, aten.max_pool2d.default})
CANDIDATES = frozenset({aten.convolution.default, *LINEAR_OPS, aten.add.Tensor, *MAX_POOL_OPS,
                        aten.mean.dim, *ACTIVATIONS, *RESHAPES})

# XNNPACK 2022's accepted ranges (probed on this build; node_validator.cpp
# checks the same): per-channel requantization input*weight/output scale,
# add's input/output scale ratio, global average pooling's ratio.
REQUANT_RANGE = (2.0 ** -32, 256.0)
ADD_RATIO_RANGE = (2.0 ** -10, 256.0)
GAP_RATIO_RANGE = (2.0 ** -8, 256.0)


def _f32(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32))


def per_tensor_qparams(node: torch.fx.Node) -> Optional[QParams]:
    """(scale, zero point) of a q/dq node that is int8 over [-128, 127], else None."""
    if node.op != "call_function" or node.target not in QDQ_OPS:
        return None
    args = list(node.args) + [None] * 6
    scale, zero_point, qmin, qmax, dtype = args[1:6]
    if not isinstance(scale, (int, float)) or not isinstance(zero_point, int):
        return None
    if dtype != torch.int8 or qmin != -128 or qmax != 127:
        return None
    if node.target is DQ_PER_TENSOR and node.kwargs.get("out_dtype") not in (None, torch.float32):
        return None
    return QParams(float(scale), int(zero_point))


def qdq_problem(node: torch.fx.Node, constant: ConstantLookup) -> Optional[str]:
    """Why a quantize/dequantize_per_tensor node cannot be an XNNPACK convert."""
    params = per_tensor_qparams(node)
    if params is None:
        return ("only int8 per-tensor quantization over [-128, 127] with a constant scale and "
                "zero point becomes an XNNPACK convert")
    scale = _f32(params.scale)
    if not (math.isfinite(scale) and scale > 0 and abs(scale) >= 1.2e-38):
        return f"quantization scale {params.scale} is not a normal positive float32"
    if not -128 <= params.zero_point <= 127:
        return f"zero point {params.zero_point} outside [-128, 127]"
    source = node.args[0]
    if not isinstance(source, torch.fx.Node) or constant(source) is not None:
        return "quantizes/dequantizes a constant (left for constant folding)"
    if node.target is DQ_PER_TENSOR:
        producer_params = per_tensor_qparams(source)
        if source.op == "call_function" and source.target is Q_PER_TENSOR:
            if producer_params != params:
                return "dequantizes with other parameters than its quantize used"
        else:  # an int8 value from outside: every reader must agree on its parameters
            readers = [per_tensor_qparams(u) if u.target is DQ_PER_TENSOR else None
                       for u in source.users]
            if any(r != params for r in readers):
                return "its int8 input is read with different quantization parameters elsewhere"
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor) or not all(isinstance(d, int) for d in val.shape):
        return "dynamic shape; XNNPACK 2022 runtimes have static shapes"
    if not 1 <= val.dim() <= 6 or val.numel() == 0:
        return f"rank {val.dim()} / empty tensors are not XNNPACK values"
    return None


# ---- folded weights ------------------------------------------------------------------------


def is_fold_candidate(node: torch.fx.Node) -> bool:
    """dequantize_per_channel, or a permute_copy of one (how linear weights arrive)."""
    if node.op != "call_function":
        return False
    if node.target is DQ_PER_CHANNEL:
        return True
    return (node.target is aten.permute_copy.default and isinstance(node.args[0], torch.fx.Node)
            and node.args[0].op == "call_function" and node.args[0].target is DQ_PER_CHANNEL)


@dataclass
class FoldedConstants:
    """A constant lookup that also evaluates dequantize_per_channel (and a
    permute of it) over constant operands, as the eager reference does."""

    base: ConstantLookup
    _cache: dict = field(default_factory=dict)

    def __call__(self, node: torch.fx.Node) -> Optional[torch.Tensor]:
        if not isinstance(node, torch.fx.Node):
            return None
        if node.op == "placeholder":
            return self.base(node)
        if not is_fold_candidate(node):
            return None
        if node not in self._cache:
            self._cache[node] = self._evaluate(node)
        return self._cache[node]

    def _evaluate(self, node: torch.fx.Node) -> Optional[torch.Tensor]:
        operands = []
        for arg in node.args:
            if isinstance(arg, torch.fx.Node):
                value = self(arg)
                if value is None:
                    return None
                operands.append(value)
            else:
                operands.append(arg)
        return node.target(*operands, **node.kwargs)


@dataclass(frozen=True)
class QuantizedWeight:
    """int8 weight (as exported: OIHW, or [out, in] for linear), scales per out channel."""

    values: torch.Tensor  # int8
    scales: torch.Tensor  # float32 [out]


def quantized_weight(node: torch.fx.Node, constant: ConstantLookup,
                     transposed: bool) -> tuple[Optional[QuantizedWeight], str]:
    """The int8 weight behind `node` (dequantize_per_channel along dim 0, or,
    when `transposed`, a [1, 0] permute of one), or why there is none."""
    if transposed:
        if (node.op != "call_function" or node.target is not aten.permute_copy.default
                or list(node.args[1]) not in ([1, 0], [-1, 0], [1, -2])):
            return None, "the weight is not a transposed per-channel dequantize"
        node = node.args[0]
    if node.op != "call_function" or node.target is not DQ_PER_CHANNEL:
        return None, "the weight is not dequantized per channel from int8 (dequantize_per_channel)"
    args = list(node.args) + [None] * 7
    values, scales, zero_points = (constant(a) if isinstance(a, torch.fx.Node) else None
                                   for a in args[:3])
    axis, qmin, qmax, dtype = args[3:7]
    if values is None or scales is None or values.dtype != torch.int8 or dtype != torch.int8:
        return None, "the weight is not an int8 constant"
    if axis != 0:
        return None, f"the weight is quantized along dim {axis}; XNNPACK's qc8 needs output channels (dim 0)"
    # int8, or the 7-bit range of weight_bits=7 (values that int8 holds as they are).
    if (qmin, qmax) not in ((-127, 127), (-128, 127), (-63, 63)):
        return None, f"weight range [{qmin}, {qmax}] is not int8"
    if args[2] is not None and (zero_points is None or bool((zero_points != 0).any())):
        return None, "asymmetric weights (non-zero zero points); XNNPACK's qc8 is symmetric"
    scales = scales.to(torch.float32).reshape(-1)
    if scales.numel() != values.shape[0] or not bool(torch.isfinite(scales).all()) or \
            not bool((scales >= 1.2e-38).all()):
        return None, "weight scales are not one finite, positive float per output channel"
    return QuantizedWeight(values, scales), ""


# ---- int8 patterns -----------------------------------------------------------------------------


@dataclass
class Int8Pattern:
    """One operator run on int8 values: reads `inputs` (dq nodes) through
    their int8 sources, writes `output` (a q node)'s int8 value."""

    kind: str                   # conv, linear, add, max_pool, mean, clamp, reshape
    anchor: torch.fx.Node
    inputs: list[torch.fx.Node]
    output: torch.fx.Node
    absorbed: list[torch.fx.Node]  # nodes between anchor and output (activation, getitem)
    bounds: tuple[float, float] = (-math.inf, math.inf)
    weight: Optional[QuantizedWeight] = None
    bias: Optional[torch.Tensor] = None

    def input_qparams(self, i: int = 0) -> QParams:
        return per_tensor_qparams(self.inputs[i])

    @property
    def output_qparams(self) -> QParams:
        return per_tensor_qparams(self.output)


def _dq_input(value) -> Optional[torch.fx.Node]:
    if isinstance(value, torch.fx.Node) and per_tensor_qparams(value) is not None and \
            value.target is DQ_PER_TENSOR:
        return value
    return None


def _only_user(node: torch.fx.Node) -> Optional[torch.fx.Node]:
    return next(iter(node.users)) if len(node.users) == 1 else None


def _activation_bounds(node: torch.fx.Node) -> tuple[float, float]:
    if node.target is aten.relu.default:
        return 0.0, math.inf
    args = list(node.args) + [-1.0, 1.0]
    low = node.kwargs.get("min_val", args[1])
    high = node.kwargs.get("max_val", args[2])
    return float(low), float(high)


def _requantized_tail(node: torch.fx.Node, allow_activation: bool):
    """Follows node -> [relu/hardtanh] -> q; returns (q, absorbed, bounds) or a reason."""
    absorbed = []
    bounds = (-math.inf, math.inf)
    user = _only_user(node)
    if allow_activation and user is not None and user.op == "call_function" and \
            user.target in ACTIVATIONS:
        absorbed.append(user)
        bounds = _activation_bounds(user)
        node, user = user, _only_user(user)
    if user is None or user.op != "call_function" or user.target is not Q_PER_TENSOR or \
            per_tensor_qparams(user) is None:
        return None, "its result is used in float32 (not only by one int8 quantize_per_tensor)"
    return (user, absorbed, bounds), ""


def _range_ok(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= value < bounds[1]


def match_int8(node: torch.fx.Node, constant: ConstantLookup) -> tuple[Optional[Int8Pattern], str]:
    """The int8 pattern anchored at `node`, or (None, why not). Nodes that
    read no dequantized value give (None, "")."""
    if node.op != "call_function" or node.target in QDQ_OPS or is_fold_candidate(node):
        return None, ""
    tensor_args = [a for a in node.args if isinstance(a, torch.fx.Node) and constant(a) is None]
    if all(_dq_input(a) is None for a in tensor_args):
        return None, ""
    if node.target not in CANDIDATES:
        name = getattr(node.target, "__name__", str(node.target))
        return None, f"this XNNPACK has no int8 operator for {name}"
    if node.target in MAX_POOL_OPS:
        return _match_max_pool(node)
    if node.target in (aten.mean.dim, *ACTIVATIONS, *RESHAPES):
        return _match_unary(node)
    if node.target is aten.add.Tensor:
        return _match_add(node)
    return _match_weighted(node, constant)


def _match_weighted(node, constant) -> tuple[Optional[Int8Pattern], str]:
    target = node.target
    if target is aten.convolution.default:
        x, w, bias = node.args[0], node.args[1], node.args[2]
        if node.args[6]:
            return None, "transposed convolution: this XNNPACK has no per-channel int8 deconvolution"
        kind, transposed = "conv", False
    elif target is aten.linear.default:
        x, w = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")
        kind, transposed = "linear", False
    elif target is aten.addmm.default:
        bias, x, w = node.args[0], node.args[1], node.args[2]
        if node.kwargs.get("alpha", 1) != 1 or node.kwargs.get("beta", 1) != 1:
            return None, "addmm with alpha or beta != 1"
        kind, transposed = "linear", True
    else:  # mm
        x, w, bias = node.args[0], node.args[1], None
        kind, transposed = "linear", True
    dq = _dq_input(x)
    if dq is None:
        return None, "the activation is not dequantized from int8 per tensor"
    weight, why = quantized_weight(w, constant, transposed)
    if weight is None:
        return None, why
    bias_value = None
    if bias is not None:
        bias_value = constant(bias)
        if bias_value is None:
            return None, "the bias is computed at run time"
        bias_value = bias_value.to(torch.float32).reshape(-1)
        if bias_value.numel() != weight.values.shape[0]:
            return None, "the bias is broadcast, not one value per output channel"
    tail, why = _requantized_tail(node, allow_activation=True)
    if tail is None:
        return None, why
    q, absorbed, bounds = tail
    pattern = Int8Pattern(kind, node, [dq], q, absorbed, bounds, weight, bias_value)
    x_scale, out_scale = _f32(pattern.input_qparams().scale), _f32(pattern.output_qparams.scale)
    requant = weight.scales.double() * x_scale / out_scale
    if not all(_range_ok(float(r), REQUANT_RANGE) for r in (requant.min(), requant.max())):
        return None, ("input scale * weight scale / output scale leaves XNNPACK's requantization "
                      "range [2^-32, 256)")
    return pattern, ""


def _match_add(node) -> tuple[Optional[Int8Pattern], str]:
    a, b = node.args[0], node.args[1]
    if node.kwargs.get("alpha", 1) != 1:
        return None, "add with alpha != 1"
    dqs = [_dq_input(a), _dq_input(b)]
    if any(d is None for d in dqs):
        return None, "an operand is not dequantized from int8 per tensor"
    if tuple(a.meta["val"].shape) != tuple(b.meta["val"].shape):
        return None, "broadcasting int8 add (operands of different shapes)"
    tail, why = _requantized_tail(node, allow_activation=True)
    if tail is None:
        return None, why
    q, absorbed, bounds = tail
    pattern = Int8Pattern("add", node, dqs, q, absorbed, bounds)
    out_scale = pattern.output_qparams.scale
    if not all(_range_ok(pattern.input_qparams(i).scale / out_scale, ADD_RATIO_RANGE) for i in (0, 1)):
        return None, "input/output scale ratio outside XNNPACK's int8 add range [2^-10, 256)"
    return pattern, ""


def _match_max_pool(node) -> tuple[Optional[Int8Pattern], str]:
    dq = _dq_input(node.args[0])
    if dq is None:
        return None, "the input is not dequantized from int8 per tensor"
    absorbed = []
    value = node
    if node.target is aten.max_pool2d_with_indices.default:
        items = [u for u in node.users if u.target is operator.getitem and u.args[1] == 0]
        if len(items) != 1:
            return None, "max pooling's values are read more than once"
        value = items[0]
        absorbed.append(value)
    tail, why = _requantized_tail(value, allow_activation=False)
    if tail is None:
        return None, why
    q = tail[0]
    pattern = Int8Pattern("max_pool", node, [dq], q, absorbed)
    if pattern.input_qparams() != pattern.output_qparams:
        return None, "max pooling would requantize (input and output parameters differ)"
    return pattern, ""


def _match_unary(node) -> tuple[Optional[Int8Pattern], str]:
    dq = _dq_input(node.args[0])
    if dq is None:
        return None, "the input is not dequantized from int8 per tensor"
    tail, why = _requantized_tail(node, allow_activation=False)
    if tail is None:
        return None, why
    q = tail[0]
    if node.target is aten.mean.dim:
        pattern = Int8Pattern("mean", node, [dq], q, [])
        ratio = pattern.input_qparams().scale / pattern.output_qparams.scale
        if not _range_ok(ratio, GAP_RATIO_RANGE):
            return None, "input/output scale ratio outside XNNPACK's int8 average pooling range"
        return pattern, ""
    kind = "clamp" if node.target in ACTIVATIONS else "reshape"
    bounds = _activation_bounds(node) if kind == "clamp" else (-math.inf, math.inf)
    pattern = Int8Pattern(kind, node, [dq], q, [], bounds)
    if pattern.input_qparams() != pattern.output_qparams:
        return None, (f"int8 {kind} needs the same input and output parameters (this one "
                      "requantizes)")
    return pattern, ""
