"""What `torchedge inspect` reports about a .pte file, as plain data.

Read with torchedge.serialize's reader (no runtime needed): methods with
their inputs and outputs, the operators each calls with the dtype of each
call and its status in the operator listing (kernels/portable/operators.toml),
planned memory, constants, delegates and segments.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from torchedge import operators
from torchedge.aten.dtypes import SCALAR_TYPES, element_size
from torchedge.serialize import PteFile, deserialize_pte
from torchedge.serialize import schema as s

_WIRE_NAMES = {int(code): str(dtype).replace("torch.", "") for dtype, code in SCALAR_TYPES.items()}


def dtype_of_wire(code: int) -> str:
    return _WIRE_NAMES.get(int(code), f"scalar_type {int(code)}")


@dataclass
class ValueInfo:
    kind: str                       # "tensor", "int", "double", "bool", ...
    dtype: Optional[str] = None     # tensors only
    shape: Optional[list[int]] = None
    dim_order: Optional[list[int]] = None
    dynamic: bool = False

    def describe(self) -> str:
        if self.kind != "tensor":
            return self.kind
        text = f"{self.dtype}[{', '.join(map(str, self.shape or []))}]"
        if self.dim_order and self.dim_order != sorted(self.dim_order):
            text += f" dim_order={self.dim_order}"
        return text + (" (dynamic, upper bound)" if self.dynamic else "")


@dataclass
class OperatorUse:
    name: str                       # "aten::add.out"
    calls: int
    dtypes: list[str]               # dtype of each distinct call (first tensor argument)
    listed: bool                    # in operators.toml
    unproven_dtypes: list[str]      # dtypes the listing does not prove

    @property
    def status(self) -> str:
        if not self.listed:
            return "not in the portable listing"
        if self.unproven_dtypes:
            return f"dtype not proven: {', '.join(self.unproven_dtypes)}"
        return "supported"


@dataclass
class MethodSummary:
    name: str
    inputs: list[ValueInfo]
    outputs: list[ValueInfo]
    instructions: int
    operators: list[OperatorUse]
    delegates: list[str]
    planned_buffers: list[int]      # bytes per arena (mem_id 1, 2, ...)

    @property
    def planned_bytes(self) -> int:
        return sum(self.planned_buffers)


@dataclass
class ProgramSummary:
    file_bytes: int
    program_bytes: int               # flatbuffer + headers
    methods: list[MethodSummary]
    constants: int                   # distinct constant tensors
    constant_bytes: int
    segments: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for method, summary in zip(data["methods"], self.methods):
            method["planned_bytes"] = summary.planned_bytes
            for op, use in zip(method["operators"], summary.operators):
                op["status"] = use.status
        return data


def _value_info(value: Any) -> ValueInfo:
    if isinstance(value, s.Tensor):
        return ValueInfo("tensor", dtype_of_wire(value.scalar_type), list(value.sizes),
                         list(value.dim_order),
                         value.shape_dynamism != s.TensorShapeDynamism.STATIC)
    return ValueInfo(type(value).__name__.lower())


def _first_tensor_dtype(plan: s.ExecutionPlan, args: list[int]) -> Optional[str]:
    """The dtype of a call's first tensor argument (inside lists too): the
    dtype the listing keys an operator by (its input, or out for creation ops)."""
    for index in args:
        if not 0 <= index < len(plan.values):
            continue
        value = plan.values[index]
        if isinstance(value, s.Tensor):
            return dtype_of_wire(value.scalar_type)
        if isinstance(value, (s.TensorList, s.OptionalTensorList)):
            for item in value.items:
                if 0 <= item < len(plan.values) and isinstance(plan.values[item], s.Tensor):
                    return dtype_of_wire(plan.values[item].scalar_type)
    return None


def _listing_entry(name: str) -> Optional[operators.OperatorEntry]:
    """The listing's entry, or None (also when no listing is installed)."""
    try:
        return operators.lookup(name)
    except FileNotFoundError:
        return None


def _operator_uses(plan: s.ExecutionPlan) -> list[OperatorUse]:
    calls: dict[int, list[Optional[str]]] = {}
    for chain in plan.chains:
        for instruction in chain.instructions:
            if isinstance(instruction, s.KernelCall):
                calls.setdefault(instruction.op_index, []).append(
                    _first_tensor_dtype(plan, instruction.args))
    uses = []
    for index, op in enumerate(plan.operators):
        name = f"{op.name}.{op.overload}" if op.overload else op.name
        dtypes = sorted({d for d in calls.get(index, []) if d})
        entry = _listing_entry(name)
        unproven = [d for d in dtypes if entry is not None and d in operators.DTYPE_NAMES
                    and not entry.supports(d)]
        uses.append(OperatorUse(name, len(calls.get(index, [])), dtypes, entry is not None, unproven))
    return uses


def _constants(plan_list: list[s.ExecutionPlan]) -> tuple[int, int]:
    """(count, bytes) of distinct constant tensors (data_buffer_idx > 0)."""
    seen: dict[int, int] = {}
    for plan in plan_list:
        for value in plan.values:
            if isinstance(value, s.Tensor) and value.data_buffer_idx > 0 and value.allocation_info is None:
                numel = math.prod(value.sizes) if value.sizes else 1
                try:
                    size = numel * element_size(value.scalar_type)
                except (KeyError, ValueError):
                    size = 0
                seen[value.data_buffer_idx] = max(seen.get(value.data_buffer_idx, 0), size)
    return len(seen), sum(seen.values())


def _segments(pte: PteFile) -> list[dict[str, Any]]:
    program = pte.program
    roles: dict[int, str] = {}
    if program.constant_segment is not None:
        roles[program.constant_segment.segment_index] = "constants"
    for plan in program.execution_plan:
        for delegate in plan.delegates:
            if delegate.processed.location == s.DataLocation.SEGMENT:
                roles[delegate.processed.index] = f"delegate {delegate.id}"
    for segment in program.mutable_data_segments or []:
        roles[segment.segment_index] = "mutable buffers"
    for named in program.named_data or []:
        roles.setdefault(named.segment_index, f"named data {named.key}")
    return [{"index": i, "offset": seg.offset, "size": seg.size, "role": roles.get(i, "data")}
            for i, seg in enumerate(program.segments)]


def summarize(data: bytes) -> ProgramSummary:
    """The summary of the .pte file whose bytes are `data` (ValueError if malformed)."""
    pte = deserialize_pte(data)
    methods = []
    for plan in pte.program.execution_plan:
        value = lambda i: plan.values[i] if 0 <= i < len(plan.values) else None  # noqa: E731
        methods.append(MethodSummary(
            name=plan.name,
            inputs=[_value_info(value(i)) for i in plan.inputs],
            outputs=[_value_info(value(i)) for i in plan.outputs],
            instructions=sum(len(c.instructions) for c in plan.chains),
            operators=_operator_uses(plan),
            delegates=[d.id for d in plan.delegates],
            planned_buffers=list(plan.non_const_buffer_sizes[1:]),
        ))
    count, nbytes = _constants(pte.program.execution_plan)
    program_bytes = pte.header.program_size if pte.header else len(data)
    return ProgramSummary(len(data), program_bytes, methods, count, nbytes, _segments(pte))
