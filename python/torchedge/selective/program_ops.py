"""The operators a .pte file calls, with the dtypes of their tensor arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Union

from torchedge.aten.dtypes import SCALAR_TYPES
from torchedge.selective.op_list import WIRE_VALUE, OpList
from torchedge.serialize import deserialize_pte
from torchedge.serialize import schema as s

_NAME_OF_WIRE = {code: name for name, code in WIRE_VALUE.items()}


def _dtype_name(code: int, op: str) -> str:
    if int(code) not in _NAME_OF_WIRE:
        known = {int(c): str(d) for d, c in SCALAR_TYPES.items()}
        raise ValueError(f"{op}: tensor of dtype {known.get(int(code), int(code))} has no kernel dtype")
    return _NAME_OF_WIRE[int(code)]


def _tensor_dtypes(plan: s.ExecutionPlan, args: Iterable[int], op: str) -> set[str]:
    """Dtypes of every tensor among `args`, inside tensor lists too."""
    found: set[str] = set()
    for index in args:
        value = plan.values[index] if 0 <= index < len(plan.values) else None
        if isinstance(value, s.Tensor):
            found.add(_dtype_name(value.scalar_type, op))
        elif isinstance(value, (s.TensorList, s.OptionalTensorList)):
            found |= _tensor_dtypes(plan, value.items, op)
    return found


def ops_of_program(data: bytes) -> OpList:
    """Every kernel the program's methods call (delegated calls excluded:
    the delegate's blob runs them) with their tensor dtypes."""
    program = deserialize_pte(data).program
    ops = OpList()
    for plan in program.execution_plan:
        names = [f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators]
        for chain in plan.chains:
            for instruction in chain.instructions:
                if isinstance(instruction, s.KernelCall):
                    name = names[instruction.op_index]
                    ops.add(name, _tensor_dtypes(plan, instruction.args, name))
    return ops


def ops_of_programs(paths: Iterable[Union[str, Path]]) -> OpList:
    ops = OpList()
    for path in paths:
        ops.merge(ops_of_program(Path(path).read_bytes()))
    return ops
