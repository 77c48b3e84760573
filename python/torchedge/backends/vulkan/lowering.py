"""A partition's FX graph -> the Vulkan delegate's compute graph (blob_writer.py).

Every FX value becomes a blob tensor (contiguous, in the partition's one
dtype: float32, or float16 for a float16 model); each operator
becomes one or more shader dispatches. Reshapes that keep the element
order become aliases (no dispatch); permutes, expands, slices, selects,
concatenation and splits become strided copies; a relu/clamp/... right
after a convolution or matrix product (and nowhere else) is fused into it.
Data-movement operators are in movement.py, stride helpers in shapes.py.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Optional, Sequence

import torch

from torchedge.backends.backend_details import DelegateSubgraph
from torchedge.backends.vulkan.blob_writer import (
    FLOAT16_COMPUTE, Binary, BlobWriter, MAX_DIMS, Shader, TensorKind, Unary, f32_bits)
from torchedge.backends.vulkan.movement import MOVEMENT_EMITTERS
from torchedge.backends.vulkan.op_support import arguments, first_value
from torchedge.backends.vulkan.patterns import pattern_role
from torchedge.backends.vulkan.shapes import broadcast_strides, contiguous_strides, pad6, shape_of

aten = torch.ops.aten
FLT_MAX = 3.4028234663852886e38


def _pair(value: Any, default: int) -> tuple[int, int]:
    if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
        return default, default
    if isinstance(value, int):
        return value, value
    return (int(value[0]), int(value[0])) if len(value) == 1 else (int(value[0]), int(value[1]))


# Unary operators: (code, a, b) from the node's arguments.
def _clamp_bounds(lo: Any, hi: Any) -> tuple[float, float]:
    return (-FLT_MAX if lo is None else float(lo)), (FLT_MAX if hi is None else float(hi))


UNARY: dict[Any, Callable[[dict], tuple[Unary, float, float]]] = {
    aten.relu.default: lambda a: (Unary.RELU, 0, 0),
    aten.hardtanh.default: lambda a: (Unary.CLAMP, *_clamp_bounds(a["min_val"], a["max_val"])),
    aten.clamp.default: lambda a: (Unary.CLAMP, *_clamp_bounds(a["min"], a["max"])),
    aten.gelu.default: lambda a: (Unary.GELU if a["approximate"] == "none" else Unary.GELU_TANH, 0, 0),
    aten.sigmoid.default: lambda a: (Unary.SIGMOID, 0, 0),
    aten.tanh.default: lambda a: (Unary.TANH, 0, 0),
    aten.silu.default: lambda a: (Unary.SILU, 0, 0),
    aten.hardswish.default: lambda a: (Unary.HARDSWISH, 0, 0),
    aten.hardsigmoid.default: lambda a: (Unary.HARDSIGMOID, 0, 0),
    aten.neg.default: lambda a: (Unary.NEG, 0, 0),
    aten.abs.default: lambda a: (Unary.ABS, 0, 0),
    aten.sqrt.default: lambda a: (Unary.SQRT, 0, 0),
    aten.rsqrt.default: lambda a: (Unary.RSQRT, 0, 0),
    aten.exp.default: lambda a: (Unary.EXP, 0, 0),
    aten.log.default: lambda a: (Unary.LOG, 0, 0),
    aten.leaky_relu.default: lambda a: (Unary.LEAKY_RELU, float(a["negative_slope"]), 0),
    aten.sin.default: lambda a: (Unary.SIN, 0, 0),
    aten.cos.default: lambda a: (Unary.COS, 0, 0),
    aten.erf.default: lambda a: (Unary.ERF, 0, 0),
    aten.reciprocal.default: lambda a: (Unary.RECIPROCAL, 0, 0),
    aten.add.Scalar: lambda a: (Unary.AFFINE, 1.0, float(a["other"]) * float(a["alpha"])),
    aten.sub.Scalar: lambda a: (Unary.AFFINE, 1.0, -float(a["other"]) * float(a["alpha"])),
    aten.mul.Scalar: lambda a: (Unary.AFFINE, float(a["other"]), 0.0),
    aten.div.Scalar: lambda a: (Unary.AFFINE, 1.0 / float(a["other"]), 0.0),
    aten.rsub.Scalar: lambda a: (Unary.AFFINE, -float(a["alpha"]), float(a["other"])),
    aten.pow.Tensor_Scalar: lambda a: _pow(float(a["exponent"])),
}

# Activations a convolution or matrix product can apply to its own output.
FUSABLE = {aten.relu.default, aten.hardtanh.default, aten.clamp.default, aten.gelu.default,
           aten.sigmoid.default, aten.tanh.default, aten.silu.default, aten.hardswish.default}


def _pow(exponent: float) -> tuple[Unary, float, float]:
    special = {2.0: Unary.SQUARE, 0.5: Unary.SQRT, -0.5: Unary.RSQRT, -1.0: Unary.RECIPROCAL,
               1.0: Unary.NONE}
    return (special[exponent], 0, 0) if exponent in special else (Unary.POW, exponent, 0)


BINARY = {aten.add.Tensor: Binary.ADD, aten.sub.Tensor: Binary.SUB, aten.mul.Tensor: Binary.MUL,
          aten.div.Tensor: Binary.DIV, aten.div.Tensor_mode: Binary.DIV,
          aten.maximum.default: Binary.MAXIMUM, aten.minimum.default: Binary.MINIMUM,
          aten.pow.Tensor_Tensor: Binary.POW}

ALIASES = {aten.view_copy.default, aten._unsafe_view.default, aten.squeeze_copy.dims,
           aten.squeeze_copy.dim, aten.squeeze_copy.default, aten.unsqueeze_copy.default,
           aten.alias_copy.default, aten.clone.default, aten._to_copy.default}


class Lowering:
    """Walks one partition and fills a BlobWriter."""

    def __init__(self, subgraph: DelegateSubgraph) -> None:
        self.subgraph = subgraph
        dtypes = partition_dtypes(subgraph)
        # A float16 program's float32 upcasts (decompositions like
        # hardswish's) live in float16 on the device with everything else.
        self.writer = BlobWriter(dtype=torch.float16 if torch.float16 in dtypes else torch.float32,
                                 flags=FLOAT16_COMPUTE if len(dtypes) > 1 else 0)
        self.values: dict[torch.fx.Node, Any] = {}
        self.output_ids: dict[torch.fx.Node, int] = {}
        self.handle = 0
        self.names: list[str] = []

    # ---- tensors -------------------------------------------------------------
    def result(self, node: torch.fx.Node) -> int:
        """The tensor `node`'s value is written to (its output slot if it has one)."""
        if node in self.output_ids:
            return self.output_ids[node]
        return self.writer.add_internal(shape_of(node))

    def tensor(self, value: Any) -> int:
        """The tensor holding `value` (a node, or a number used as a tensor)."""
        if not isinstance(value, torch.fx.Node):
            return self.writer.add_constant(torch.tensor(float(value)))
        if value not in self.values:
            constant = self.subgraph.constants.get(value.name)
            assert constant is not None, f"{value.name} has no tensor yet"
            self.values[value] = self.writer.add_constant(constant)
        return self.values[value]

    def alias(self, node: torch.fx.Node, source: int) -> int:
        if node in self.output_ids:
            return self.copy_contiguous(node, source)
        return self.writer.add_alias(source, shape_of(node))

    # ---- ops ---------------------------------------------------------------
    def op(self, shader: Shader, ids: Sequence[Optional[int]], params: Sequence[int]) -> None:
        self.writer.add_op(shader, ids, params, self.handle)

    def copy(self, out: int, src: int, dims: Sequence[int], in_strides: Sequence[int],
             in_offset: int, out_strides: Sequence[int], out_offset: int) -> None:
        numel = math.prod(int(d) for d in dims)
        self.op(Shader.COPY, [out, src], [numel, *pad6(dims, 1), *pad6(in_strides, 0), in_offset,
                                          *pad6(out_strides, 0), out_offset])

    def copy_contiguous(self, node: torch.fx.Node, source: int) -> int:
        out = self.result(node)
        shape = shape_of(node)
        strides = contiguous_strides(shape)
        self.copy(out, source, shape, strides, 0, strides, 0)
        return out

    def unary(self, out: int, src: int, code: Unary, a: float, b: float) -> None:
        numel = math.prod(self.writer.shape(out)) if self.writer.shape(out) else 1
        self.op(Shader.UNARY, [out, src], [int(code), numel, f32_bits(a), f32_bits(b)])

    # ---- walk --------------------------------------------------------------
    def run(self) -> BlobWriter:
        graph = self.subgraph.graph_module.graph
        by_name = {n.name: n for n in graph.nodes if n.op == "placeholder"}
        for name in self.subgraph.inputs:
            node = by_name[name]
            self.values[node] = self.writer.add_io(TensorKind.INPUT, shape_of(node),
                                                   first_value(node).dtype)
        outputs = list(graph.output_node().args[0])
        for node in outputs:
            self.output_ids[node] = self.writer.add_io(TensorKind.OUTPUT, shape_of(node),
                                                       first_value(node).dtype)
        fused: set[torch.fx.Node] = set()
        for node in graph.nodes:
            if node.op != "call_function" or node in fused:
                continue
            self.names = [node.name]
            activation = self._fusable_activation(node)
            if activation is not None:
                fused.add(activation)
                self.names.append(activation.name)
            before = len(self.writer.ops)
            self.values[node] = self.emit(node, activation)
            if activation is not None:
                self.values[activation] = self.values[node]
            if len(self.writer.ops) > before:
                self.writer.debug_handle_map[self.handle] = tuple(self.names)
                self.handle += 1
        for node in outputs:  # outputs computed into another tensor (getitem, alias)
            if self.values[node] != self.output_ids[node]:
                self._copy_to_output(node)
        return self.writer

    def _copy_to_output(self, node: torch.fx.Node) -> None:
        out = self.output_ids[node]
        shape = shape_of(node)
        strides = contiguous_strides(shape)
        self.copy(out, self.values[node], shape, strides, 0, strides, 0)
        self.writer.debug_handle_map[self.handle] = (node.name,)
        self.handle += 1

    def _fusable_activation(self, node: torch.fx.Node) -> Optional[torch.fx.Node]:
        if node.target not in (aten.convolution.default, aten.addmm.default, aten.mm.default,
                               aten.bmm.default):
            return None
        if node in self.output_ids or len(node.users) != 1:
            return None
        user = next(iter(node.users))
        return user if user.op == "call_function" and user.target in FUSABLE else None

    def emit(self, node: torch.fx.Node, activation: Optional[torch.fx.Node]) -> Any:
        if node.target is operator.getitem:
            return self.values[node.args[0]][node.args[1]]
        role = pattern_role(node)
        if role == "absorbed":
            return None
        if role == "softmax_result":
            return self.alias(node, self.values[node.args[2]])
        target = node.target
        args = arguments(node)
        if target in UNARY:
            out = self.result(node)
            self.unary(out, self.tensor(args["self"]), *UNARY[target](args))
            return out
        if target in BINARY:
            return self.binary(node, BINARY[target], args)
        if target in ALIASES:
            return self.alias(node, self.tensor(args["self"]))
        emitter = EMITTERS[target]
        if target in (aten.convolution.default, aten.addmm.default, aten.mm.default,
                      aten.bmm.default):
            return emitter(self, node, args, activation)
        return emitter(self, node, args)

    def binary(self, node: torch.fx.Node, code: Binary, args: dict) -> int:
        out = self.result(node)
        shape = shape_of(node)
        a, b = args["self"], args["other"] if "other" in args else args["exponent"]
        alpha = args.get("alpha", 1)
        alpha = 1.0 if alpha is None else float(alpha)
        a_shape = shape_of(a) if isinstance(a, torch.fx.Node) else ()
        b_shape = shape_of(b) if isinstance(b, torch.fx.Node) else ()
        self.op(Shader.BINARY, [out, self.tensor(a), self.tensor(b), None],
                [int(code), max(1, math.prod(shape)), f32_bits(alpha), *pad6(shape, 1),
                 *pad6(broadcast_strides(a_shape, shape), 0),
                 *pad6(broadcast_strides(b_shape, shape), 0), *([0] * MAX_DIMS)])
        return out


# ---- per-operator emitters ------------------------------------------------------------
def _act(activation: Optional[torch.fx.Node]) -> tuple[int, float, float]:
    if activation is None:
        return int(Unary.NONE), 0.0, 0.0
    code, a, b = UNARY[activation.target](arguments(activation))
    return int(code), a, b


def _convolution(low: Lowering, node, args, activation) -> int:
    x, w = args["input"], args["weight"]
    xs, ws = shape_of(x), shape_of(w)
    one_d = len(xs) == 3
    n, cin, h, wd = (xs[0], xs[1], 1, xs[2]) if one_d else xs
    out_node = activation if activation is not None else node
    os = shape_of(node)
    oh, ow = (1, os[2]) if one_d else (os[2], os[3])
    kh, kw = (1, ws[2]) if one_d else (ws[2], ws[3])
    if one_d:
        sh, sw = 1, int(args["stride"][0])
        ph, pw = 0, int(args["padding"][0])
        dh, dw = 1, int(args["dilation"][0])
    else:
        sh, sw = _pair(args["stride"], 1)
        ph, pw = _pair(args["padding"], 0)
        dh, dw = _pair(args["dilation"], 1)
    bias = args["bias"]
    out = low.result(out_node)
    code, a, b = _act(activation)
    if (kh, kw, sh, sw, ph, pw, int(args["groups"])) == (1, 1, 1, 1, 0, 0, 1):
        # Pointwise: per batch element, out[Cout, HW] = W[Cout, Cin] @ x[Cin, HW]
        # (+ bias per row), already NCHW: the matmul shader runs it faster.
        hw = oh * ow
        low.op(Shader.MATMUL, [out, low.tensor(w), low.tensor(x),
                               None if bias is None else low.tensor(bias)],
               [os[1], hw, cin, 1, n, 0, 0, cin, 1, 0, cin * hw, hw, 1, 1, 0,
                int(bias is not None), f32_bits(1.0), code, f32_bits(a), f32_bits(b)])
        return out
    low.op(Shader.CONV2D, [out, low.tensor(x), low.tensor(w), None if bias is None else low.tensor(bias)],
           [n, cin, h, wd, os[1], oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, int(args["groups"]),
            int(bias is not None), code, f32_bits(a), f32_bits(b)])
    return out


def _matmul(low: Lowering, out: int, a: int, b: int, bias: Optional[int], m: int, n: int, k: int,
            batch: int, bias_strides: tuple[int, int], alpha: float,
            activation: Optional[torch.fx.Node]) -> None:
    code, x, y = _act(activation)
    low.op(Shader.MATMUL, [out, a, b, bias],
           [m, n, k, 1, batch, 0, m * k, k, 1, 0, k * n, n, 1, bias_strides[0], bias_strides[1],
            int(bias is not None), f32_bits(alpha), code, f32_bits(x), f32_bits(y)])


def _addmm(low: Lowering, node, args, activation) -> int:
    m, k = shape_of(args["mat1"])
    n = shape_of(args["mat2"])[1]
    bias_shape = shape_of(args["self"])
    strides = broadcast_strides(bias_shape, (m, n))
    out = low.result(activation if activation is not None else node)
    _matmul(low, out, low.tensor(args["mat1"]), low.tensor(args["mat2"]), low.tensor(args["self"]),
            m, n, k, 1, (strides[0], strides[1]), float(args["alpha"]), activation)
    return out


def _mm(low: Lowering, node, args, activation) -> int:
    m, k = shape_of(args["self"])
    n = shape_of(args["mat2"])[1]
    out = low.result(activation if activation is not None else node)
    _matmul(low, out, low.tensor(args["self"]), low.tensor(args["mat2"]), None, m, n, k, 1, (0, 0),
            1.0, activation)
    return out


def _bmm(low: Lowering, node, args, activation) -> int:
    batch, m, k = shape_of(args["self"])
    n = shape_of(args["mat2"])[2]
    out = low.result(activation if activation is not None else node)
    _matmul(low, out, low.tensor(args["self"]), low.tensor(args["mat2"]), None, m, n, k, batch,
            (0, 0), 1.0, activation)
    return out


def _outer_inner(shape: Sequence[int], first: int, last: int) -> tuple[int, int, int]:
    return (math.prod(shape[:first]), math.prod(shape[first:last + 1]), math.prod(shape[last + 1:]))


def _reduce(code: int) -> Callable:
    def emit(low: Lowering, node, args) -> int:
        shape = shape_of(args["self"])
        dims = args.get("dim")
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = list(range(len(shape)))
        dims = sorted(d % max(1, len(shape)) for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
        outer, r, inner = _outer_inner(shape, dims[0], dims[-1]) if shape else (1, 1, 1)
        out = low.result(node)
        low.op(Shader.REDUCE, [out, low.tensor(args["self"])], [outer, r, inner, code])
        return out
    return emit


def _softmax(log: int) -> Callable:
    def emit(low: Lowering, node, args) -> int:
        shape = shape_of(args["self"]) or (1,)
        dim = args["dim"] % len(shape)
        outer, size, inner = _outer_inner(shape, dim, dim)
        out = low.result(node)
        low.op(Shader.SOFTMAX, [out, low.tensor(args["input"] if "input" in args else args["self"])],
               [outer, size, inner, log])
        return out
    return emit


def _layer_norm(low: Lowering, node, args) -> list:
    shape = shape_of(args["input"])
    cols = math.prod(args["normalized_shape"])
    rows = math.prod(shape) // cols
    first = next((u for u in node.users if u.args[1] == 0), None)
    out = low.result(first) if first is not None else low.writer.add_internal(shape)
    weight, bias = args["weight"], args["bias"]
    low.op(Shader.NORM, [out, low.tensor(args["input"]),
                         None if weight is None else low.tensor(weight),
                         None if bias is None else low.tensor(bias)],
           [rows, cols, f32_bits(args["eps"]), int(weight is not None), int(bias is not None), 0])
    return [out, None, None]


def _pool(low: Lowering, node, x, out_shape, mode: int, kernel=(1, 1), stride=(1, 1),
          padding=(0, 0), dilation=(1, 1), count_include_pad=0, divisor=0, out=None) -> int:
    n, c, h, w = shape_of(x)
    out = low.result(node) if out is None else out
    low.op(Shader.POOL2D, [out, low.tensor(x)],
           [n * c, h, w, out_shape[2], out_shape[3], kernel[0], kernel[1], stride[0], stride[1],
            padding[0], padding[1], dilation[0], dilation[1], mode, count_include_pad, divisor])
    return out


def _max_pool(low: Lowering, node, args) -> list:
    kernel = _pair(args["kernel_size"], 1)
    stride = _pair(args["stride"], 0)
    stride = kernel if stride == (0, 0) else stride
    first = next((u for u in node.users if u.args[1] == 0), None)
    shape = tuple(node.meta["val"][0].shape)
    out = low.result(first) if first is not None else low.writer.add_internal(shape)
    _pool(low, node, args["self"], shape, 0, kernel, stride, _pair(args["padding"], 0),
          _pair(args["dilation"], 1), out=out)
    return [out, None]


def _avg_pool(low: Lowering, node, args) -> int:
    kernel = _pair(args["kernel_size"], 1)
    stride = _pair(args["stride"], 0)
    stride = kernel if stride == (0, 0) else stride
    return _pool(low, node, args["self"], shape_of(node), 1, kernel, stride,
                 _pair(args["padding"], 0), (1, 1), int(bool(args["count_include_pad"])),
                 int(args["divisor_override"] or 0))


def _adaptive_avg(low: Lowering, node, args) -> int:
    return _pool(low, node, args["self"], shape_of(node), 2)


def _resize(mode: int) -> Callable:
    """upsample_nearest2d (mode 0) / upsample_bilinear2d (mode 1), PyTorch's scales."""
    def emit(low: Lowering, node, args) -> int:
        n, c, h, w = shape_of(args["input"])
        oh, ow = shape_of(node)[2:]
        align = mode == 1 and bool(args.get("align_corners"))
        factors = args.get("scale_factors")

        def scale(size: int, out_size: int, k: int) -> float:
            if align:
                return (size - 1) / (out_size - 1) if out_size > 1 else 0.0
            return 1.0 / float(factors[k]) if factors else size / out_size

        out = low.result(node)
        low.op(Shader.RESIZE, [out, low.tensor(args["input"])],
               [n * c, h, w, oh, ow, mode, int(align), f32_bits(scale(h, oh, 0)),
                f32_bits(scale(w, ow, 1))])
        return out
    return emit


def _where(low: Lowering, node, args) -> int:
    out = low.result(node)
    shape = shape_of(node)
    cond, a, b = args["condition"], args["self"], args["other"]
    shapes = [shape_of(v) if isinstance(v, torch.fx.Node) else () for v in (a, b, cond)]
    low.op(Shader.BINARY, [out, low.tensor(a), low.tensor(b), low.tensor(cond)],
           [int(Binary.WHERE), max(1, math.prod(shape)), f32_bits(1.0), *pad6(shape, 1),
            *[s for sh in shapes for s in pad6(broadcast_strides(sh, shape), 0)]])
    return out


EMITTERS: dict[Any, Callable] = {
    aten.convolution.default: _convolution,
    aten.addmm.default: _addmm,
    aten.mm.default: _mm,
    aten.bmm.default: _bmm,
    aten.mean.dim: _reduce(1),
    aten.mean.default: _reduce(1),
    aten.sum.default: _reduce(0),
    aten.sum.dim_IntList: _reduce(0),
    aten.amax.default: _reduce(2),
    aten._softmax.default: _softmax(0),
    aten._log_softmax.default: _softmax(1),
    aten.native_layer_norm.default: _layer_norm,
    aten.max_pool2d_with_indices.default: _max_pool,
    aten.avg_pool2d.default: _avg_pool,
    aten._adaptive_avg_pool2d.default: _adaptive_avg,
    aten.upsample_nearest2d.vec: _resize(0),
    aten.upsample_bilinear2d.vec: _resize(1),
    **MOVEMENT_EMITTERS,
    aten.where.self: _where,
}


def partition_dtypes(subgraph: DelegateSubgraph) -> set:
    """The floating dtypes of the partition's values.

    Both float16 and float32 only in a float16 program whose partition holds
    the float32 upcasts of a decomposition (op_support lets such `_to_copy`
    nodes in); everything else has one.
    """
    found = set()
    for node in subgraph.graph_module.graph.nodes:
        val = first_value(node) if node.op != "output" else None
        if isinstance(val, torch.Tensor) and val.dtype.is_floating_point:
            found.add(val.dtype)
    return found


def lower_subgraph(subgraph: DelegateSubgraph, float16_compute: bool = False) -> BlobWriter:
    """The blob contents for one partition (see module docstring).

    `float16_compute` (force_fp16) sets the blob's FLOAT16_COMPUTE flag on a
    float32 partition: the runtime then keeps its tensors in float16 where
    the device can.
    """
    writer = Lowering(subgraph).run()
    if float16_compute:
        writer.flags |= FLOAT16_COMPUTE
    return writer
