"""The ATen out-variant of a functional operator.

The runtime only has out-variant kernels ("aten::add.out"): the caller
allocates every result. The out-variant of a functional overload is the
overload of the same packet whose schema is the functional schema plus
mutable out argument(s) at the end (`Tensor(a!) out`, or `out0`, `out1`,...
one per return, or one `Tensor(a!)[] out` for a `Tensor[]` return).

Factory-style overloads (full, arange, _to_copy, ...) take TensorOptions
(`dtype`, `layout`, `device`, `pin_memory`) that their out-variants drop:
the out tensor carries them. Those arguments may be missing from the
out-variant; every other argument must match by name and type, in order.
"""

from __future__ import annotations

import functools
from typing import Optional

import torch
from torch._ops import OpOverload

TENSOR_OPTION_ARGUMENTS = frozenset({"dtype", "layout", "device", "pin_memory"})


def is_out_argument(argument: torch.Argument) -> bool:
    info = argument.alias_info
    return info is not None and info.is_write and argument.kwarg_only


def out_arguments(schema: torch.FunctionSchema) -> list[torch.Argument]:
    return [a for a in schema.arguments if is_out_argument(a)]


def _signature(arguments: list[torch.Argument]) -> list[tuple[str, str]]:
    return [(a.name, str(a.real_type)) for a in arguments]


def _matches(functional: torch.FunctionSchema, candidate: torch.FunctionSchema) -> bool:
    outs = out_arguments(candidate)
    ins = [a for a in candidate.arguments if not is_out_argument(a)]
    if not outs or candidate.arguments[-len(outs):] != outs:
        return False
    if any(a.alias_info is not None and a.alias_info.is_write for a in ins):
        return False
    if len(outs) != len(functional.returns):
        return False
    wanted = _signature(ins)
    names = {name for name, _ in wanted}
    expected = [
        (name, kind) for name, kind in _signature(list(functional.arguments))
        if name in names or name not in TENSOR_OPTION_ARGUMENTS
    ]
    return wanted == expected


@functools.lru_cache(maxsize=None)
def out_variant(op: OpOverload) -> Optional[OpOverload]:
    """The out-variant overload of functional `op`, or None if it has none."""
    functional = op._schema
    if out_arguments(functional) or any(
        a.alias_info is not None and a.alias_info.is_write for a in functional.arguments
    ):
        return None  # already an out-variant, or mutates an input
    packet = op.overloadpacket
    candidates = []
    for name in packet.overloads():
        candidate = getattr(packet, name)
        if _matches(functional, candidate._schema):
            candidates.append(candidate)
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c._overloadname != "out", c._overloadname))
    return candidates[0]


def kernel_name(op: OpOverload) -> tuple[str, str]:
    """("aten::add", "out") for aten.add.out: the Operator table entry."""
    return op._schema.name, op._overloadname
