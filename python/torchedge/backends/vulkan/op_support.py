"""Which edge operators the Vulkan delegate takes, and why it refuses others.

`check_node(node)` returns None when the node can run as the delegate's
shaders, else the reason it stays on the CPU kernels (the delegation report
prints it). Every value inside the delegate is a float32 or float16 tensor
(one of the two per node: dtype conversions stay on the CPU, except the
float16 <-> float32 ones of float16 programs, see FLOAT16_PROGRAM) with a static
shape, rank 0..6 and fewer than 2^31 elements; lowering.py holds the
emitter of each operator named here.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Optional

import torch

aten = torch.ops.aten

FLOAT_DTYPES = (torch.float32, torch.float16)
# Node meta the partitioner sets on float16 <-> float32 `_to_copy` nodes of a
# float16 program (every floating input and weight float16): there they are
# the upcasts of decompositions, delegated with the values between them held
# in float16 on the device.
FLOAT16_PROGRAM = "vulkan_float16_program"
MAX_RANK = 6
MAX_ELEMENTS = 2**31 - 1
Check = Callable[[torch.fx.Node, dict], Optional[str]]


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


def value_of(x: Any) -> Any:
    return x.meta.get("val") if isinstance(x, torch.fx.Node) else None


def first_value(node: torch.fx.Node) -> Any:
    """The node's value, or item 0 of a tuple (layer norm's and max pooling's
    other results, e.g. float32 statistics of a float16 layer norm, are never
    delegated)."""
    val = node.meta.get("val")
    return val[0] if isinstance(val, (tuple, list)) and val else val


def tensor_problem(value: Any, what: str, allow_bool: bool = False) -> Optional[str]:
    """Why `value` (a node) cannot be a Vulkan tensor, or None."""
    val = value_of(value)
    if not isinstance(val, torch.Tensor):
        return f"{what} is not a tensor"
    dtypes = FLOAT_DTYPES + (torch.bool,) if allow_bool else FLOAT_DTYPES
    if val.dtype not in dtypes:
        return (f"{what} is {str(val.dtype).replace('torch.', '')}; the Vulkan delegate runs "
                "float32 and float16")
    if not all(isinstance(d, int) for d in val.shape):
        return f"{what} has the dynamic shape {list(val.shape)}; the delegate's shapes are static"
    if val.dim() > MAX_RANK:
        return f"{what} has rank {val.dim()}; the shaders index at most {MAX_RANK} dims"
    if not 0 < val.numel() <= MAX_ELEMENTS:
        return f"{what} has {val.numel()} elements; expected 1 to 2^31 - 1"
    return None


def _tensors_ok(node: torch.fx.Node, args: dict) -> Optional[str]:
    for name, value in args.items():
        if isinstance(value, torch.fx.Node):
            problem = tensor_problem(value, f"input '{name}'")
            if problem:
                return problem
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if isinstance(item, torch.fx.Node):
                    problem = tensor_problem(item, f"input '{name}[{i}]'")
                    if problem:
                        return problem
    return None


def _output_ok(node: torch.fx.Node) -> Optional[str]:
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)):
        return None  # checked per op (only item 0 may be used)
    return tensor_problem(node, "the result")


def _only_item0_used(node: torch.fx.Node) -> Optional[str]:
    for user in node.users:
        if user.target is not operator.getitem or user.args[1] != 0:
            return "only its first result can be delegated (the others are read)"
    return tensor_problem(next(iter(node.users)), "the result") if node.users else None


def _ok(node, args) -> Optional[str]:
    return None


def _conv(node, args) -> Optional[str]:
    if args["transposed"]:
        return "transposed convolution has no shader yet"
    if len(value_of(args["input"]).shape) not in (3, 4):
        return "only 1-D and 2-D convolution (3-D or 4-D input)"
    if any(p != 0 for p in args["output_padding"]):
        return "output_padding must be 0"
    return None


def _addmm(node, args) -> Optional[str]:
    if args.get("beta", 1) != 1:
        return "beta must be 1"
    bias = value_of(args["self"])
    if bias.dim() > 2:
        return "the bias must have rank <= 2"
    return None


def _bmm(node, args) -> Optional[str]:
    if value_of(args["self"]).shape[0] > 65535:
        return "at most 65535 batches"
    return None


def _binary(node, args) -> Optional[str]:
    if not isinstance(args["other"], torch.fx.Node):
        return None
    if args.get("alpha", 1) is not None and not isinstance(args.get("alpha", 1), (int, float)):
        return "alpha must be a number"
    return None


def _div(node, args) -> Optional[str]:
    if args.get("rounding_mode") is not None:
        return "div with rounding_mode has no shader"
    return _binary(node, args)


def _number(name: str) -> Check:
    def check(node, args):
        value = args.get(name)
        if value is not None and not isinstance(value, (int, float)):
            return f"'{name}' must be a number"
        return None
    return check


def _gelu(node, args) -> Optional[str]:
    return None if args["approximate"] in ("none", "tanh") else f"gelu approximate={args['approximate']!r}"


def _reduce_dims(node, args) -> Optional[str]:
    shape = value_of(args["self"]).shape
    dims = args.get("dim")
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return None
    dims = sorted(d % max(1, len(shape)) for d in (dims if isinstance(dims, (list, tuple)) else [dims]))
    if dims != list(range(dims[0], dims[0] + len(dims))):
        return "the reduced dims must be adjacent"
    if args.get("dtype") is not None and args["dtype"] != value_of(args["self"]).dtype:
        return "dtype must be the input's"
    return None


def _softmax(node, args) -> Optional[str]:
    return "half_to_float is not supported" if args.get("half_to_float") else None


def _layer_norm(node, args) -> Optional[str]:
    return _only_item0_used(node)


def _max_pool(node, args) -> Optional[str]:
    if len(value_of(args["self"]).shape) != 4:
        return "only 4-D (N, C, H, W) input"
    return _only_item0_used(node)


def _avg_pool(node, args) -> Optional[str]:
    if len(value_of(args["self"]).shape) != 4:
        return "only 4-D (N, C, H, W) input"
    if args.get("ceil_mode"):
        return "ceil_mode average pooling has no shader"
    return None


def _adaptive(node, args) -> Optional[str]:
    if len(value_of(args["self"]).shape) != 4:
        return "only 4-D (N, C, H, W) input"
    return None if node.target is aten._adaptive_avg_pool2d.default else _only_item0_used(node)


def _upsample(node, args) -> Optional[str]:
    if len(value_of(args["input"]).shape) != 4:
        return "only 4-D (N, C, H, W) input"
    return None


def _slice(node, args) -> Optional[str]:
    return None if (args.get("step") or 1) >= 1 else "slice step must be >= 1"


def _to_copy(node, args) -> Optional[str]:
    if value_of(args["self"]).dtype != node.meta["val"].dtype and not node.meta.get(FLOAT16_PROGRAM):
        return ("dtype conversions stay on the CPU (one dtype per Vulkan partition; float16 "
                "<-> float32 ones are delegated only in float16 programs)")
    return None


def _split(node, args) -> Optional[str]:
    for user in node.users:
        if user.target is not operator.getitem:
            return "its result list is used whole"
    return None


def _where(node, args) -> Optional[str]:
    if value_of(args["condition"]).dtype != torch.bool:
        return "the condition must be bool"
    if node.meta.get("vulkan_constant_condition") is not True:
        return "the condition must be a constant (computed masks stay on the CPU)"
    return None


# Operators with their checks; lowering.EMITTERS has the same keys.
RULES: dict[Any, Check] = {
    aten.convolution.default: _conv,
    aten.addmm.default: _addmm,
    aten.mm.default: _ok,
    aten.bmm.default: _bmm,
    aten.add.Tensor: _binary, aten.sub.Tensor: _binary, aten.mul.Tensor: _binary,
    aten.div.Tensor: _div, aten.div.Tensor_mode: _div, aten.maximum.default: _ok,
    aten.minimum.default: _ok, aten.pow.Tensor_Tensor: _ok,
    aten.add.Scalar: _number("other"), aten.sub.Scalar: _number("other"),
    aten.mul.Scalar: _number("other"), aten.div.Scalar: _number("other"),
    aten.rsub.Scalar: _number("other"), aten.pow.Tensor_Scalar: _number("exponent"),
    aten.relu.default: _ok, aten.hardtanh.default: _ok, aten.clamp.default: _number("min"),
    aten.gelu.default: _gelu, aten.sigmoid.default: _ok, aten.tanh.default: _ok,
    aten.silu.default: _ok, aten.hardswish.default: _ok, aten.hardsigmoid.default: _ok,
    aten.neg.default: _ok, aten.abs.default: _ok, aten.sqrt.default: _ok,
    aten.rsqrt.default: _ok, aten.exp.default: _ok, aten.log.default: _ok,
    aten.leaky_relu.default: _ok, aten.sin.default: _ok, aten.cos.default: _ok,
    aten.erf.default: _ok, aten.reciprocal.default: _ok,
    aten.mean.dim: _reduce_dims, aten.sum.dim_IntList: _reduce_dims, aten.amax.default: _reduce_dims,
    aten.mean.default: _reduce_dims, aten.sum.default: _reduce_dims,
    aten._softmax.default: _softmax, aten._log_softmax.default: _softmax,
    aten.native_layer_norm.default: _layer_norm,
    aten.max_pool2d_with_indices.default: _max_pool, aten.avg_pool2d.default: _avg_pool,
    aten._adaptive_avg_pool2d.default: _adaptive,
    aten.upsample_nearest2d.vec: _upsample, aten.upsample_bilinear2d.vec: _upsample,
    aten.view_copy.default: _ok, aten._unsafe_view.default: _ok, aten.squeeze_copy.dims: _ok,
    aten.squeeze_copy.dim: _ok, aten.squeeze_copy.default: _ok, aten.unsqueeze_copy.default: _ok,
    aten.alias_copy.default: _ok, aten.clone.default: _ok, aten._to_copy.default: _to_copy,
    aten.permute_copy.default: _ok, aten.transpose_copy.int: _ok, aten.t_copy.default: _ok,
    aten.expand_copy.default: _ok, aten.slice_copy.Tensor: _slice, aten.select_copy.int: _ok,
    aten.cat.default: _ok, aten.split_with_sizes_copy.default: _split,
    aten.split_copy.Tensor: _split, aten.where.self: _where,
}


def check_node(node: torch.fx.Node) -> Optional[str]:
    """None when `node` runs on the Vulkan delegate, else why not."""
    if node.meta.get("vulkan_pattern") is not None:
        return None
    if node.target is operator.getitem:
        return None
    rule = RULES.get(node.target)
    if rule is None:
        name = getattr(node.target, "__name__", str(node.target))
        return f"the Vulkan delegate has no shader for {name}"
    args = arguments(node)
    if node.target is aten.where.self:
        problem = (tensor_problem(args["self"], "input 'self'") or
                   tensor_problem(args["other"], "input 'other'") or _output_ok(node))
    else:
        problem = _tensors_ok(node, args) or _output_ok(node)
    return problem or _one_dtype(node, args) or rule(node, args)


def _one_dtype(node: torch.fx.Node, args: dict) -> Optional[str]:
    """Each node computes in one float dtype: a blob (and a shader) holds one."""
    found = set()
    values = [node] + [v for v in args.values() if isinstance(v, torch.fx.Node)]
    for arg in args.values():
        if isinstance(arg, (list, tuple)):
            values += [v for v in arg if isinstance(v, torch.fx.Node)]
    for v in values:
        val = first_value(v)
        if isinstance(val, torch.Tensor) and val.dtype in FLOAT_DTYPES:
            found.add(val.dtype)
    if len(found) > 1 and not node.meta.get(FLOAT16_PROGRAM):
        return "mixes float32 and float16 (dtype conversions stay on the CPU)"
    return None
