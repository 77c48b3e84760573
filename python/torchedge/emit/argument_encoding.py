"""Encoding one ATen schema argument as an index into the values list.

    Tensor                      -> index of its Tensor value
    Tensor?                     -> Null when None
    Tensor[]                    -> TensorList of Tensor value indices
    Tensor?[]                   -> OptionalTensorList, -1 for None
    int / SymInt                -> Int (a SymInt node: its Int value)
    float                       -> Double
    bool                        -> Bool
    Scalar                      -> Bool, Int or Double by Python type
    int[] / SymInt[]            -> IntList of Int value indices
    float[]                     -> DoubleList (literals)
    bool[]                      -> BoolList (literals)
    ScalarType                  -> Int (c10::ScalarType number)
    MemoryFormat / Layout       -> Int (contiguous 0, preserve 1, channels_last 2, ...; strided 0)
    Device                      -> Int 0 (CPU)
    str                         -> String
    any optional argument       -> Null when None
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Protocol

import torch
import torch.fx

from torchedge.aten.dtypes import LAYOUTS, MEMORY_FORMATS, scalar_type
from torchedge.emit.value_table import ValueTable


class NodeValues(Protocol):
    """What the encoder needs from the method emitter."""

    values: ValueTable

    def value_of(self, node: torch.fx.Node) -> int: ...


def _strip_optional(type_name: str) -> tuple[str, bool]:
    if type_name.startswith("Optional[") and type_name.endswith("]"):
        return type_name[len("Optional["):-1], True
    return type_name, False


def _scalar(ctx: NodeValues, value: Any) -> int:
    if isinstance(value, torch.fx.Node):
        return ctx.value_of(value)
    if isinstance(value, bool):
        return ctx.values.bool(value)
    if isinstance(value, numbers.Integral):
        return ctx.values.int(int(value))
    if isinstance(value, numbers.Real):
        return ctx.values.double(float(value))
    raise TypeError(f"expected a number, got {value!r}")


def _int(ctx: NodeValues, value: Any) -> int:
    if isinstance(value, torch.fx.Node):
        return ctx.value_of(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"expected an int, got {value!r}")
    return ctx.values.int(int(value))


def _int_list(ctx: NodeValues, value: Any, length: Any) -> int:
    if isinstance(value, (numbers.Integral, torch.fx.Node)):
        value = [value] * (length or 1)  # int[2] padding=1 means [1, 1]
    return ctx.values.int_list([_int(ctx, v) for v in value])


def _tensor(ctx: NodeValues, value: Any) -> int:
    if not isinstance(value, torch.fx.Node):
        raise TypeError(f"expected a tensor node, got {value!r} (run the edge passes first)")
    return ctx.value_of(value)


def _enum(table: dict, kind: str) -> Callable[[NodeValues, Any], int]:
    def encode(ctx: NodeValues, value: Any) -> int:
        if value not in table:
            raise TypeError(f"unsupported {kind} {value!r}")
        return ctx.values.int(table[value])
    return encode


def _dtype(ctx: NodeValues, value: Any) -> int:
    code = scalar_type(value)
    if code is None:
        raise TypeError(f"unsupported dtype {value!r}")
    return ctx.values.int(int(code))


def _device(ctx: NodeValues, value: Any) -> int:
    if torch.device(value).type != "cpu":
        raise TypeError(f"unsupported device {value!r}")
    return ctx.values.int(0)


_ENCODERS: dict[str, Callable[[NodeValues, Any], int]] = {
    "Tensor": _tensor,
    "List[Tensor]": lambda ctx, v: ctx.values.tensor_list([_tensor(ctx, t) for t in v]),
    "List[Optional[Tensor]]": lambda ctx, v: ctx.values.optional_tensor_list(
        [-1 if t is None else _tensor(ctx, t) for t in v]
    ),
    "int": _int,
    "float": lambda ctx, v: ctx.value_of(v) if isinstance(v, torch.fx.Node) else ctx.values.double(float(v)),
    "bool": lambda ctx, v: ctx.values.bool(bool(v)),
    "number": _scalar,
    "List[float]": lambda ctx, v: ctx.values.double_list(v),
    "List[bool]": lambda ctx, v: ctx.values.bool_list(v),
    "ScalarType": _dtype,
    "MemoryFormat": _enum(MEMORY_FORMATS, "memory format"),
    "Layout": _enum(LAYOUTS, "layout"),
    "Device": _device,
    "str": lambda ctx, v: ctx.values.string(str(v)),
}


def encode_argument(ctx: NodeValues, argument: torch.Argument, value: Any) -> int:
    """The value index passing `value` for schema `argument`."""
    type_name, optional = _strip_optional(str(argument.real_type))
    if value is None:
        if not optional:
            raise TypeError(f"argument '{argument.name}' ({argument.real_type}) is None")
        return ctx.values.null()
    if type_name == "List[int]":
        return _int_list(ctx, value, argument.N)
    encoder = _ENCODERS.get(type_name)
    if encoder is None:
        raise TypeError(f"argument '{argument.name}': type {argument.real_type} cannot be emitted")
    return encoder(ctx, value)
