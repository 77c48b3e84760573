"""An EdgeProgram -> a Program (all methods) plus its segment data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from torch.export import ExportedProgram

from torchedge.emit.constant_table import ConstantTable
from torchedge.emit.method_emitter import MethodEmitter
from torchedge.memory import MemoryReport, plan_memory
from torchedge.serialize import schema as s

PROGRAM_VERSION = 0


@dataclass
class EmittedProgram:
    """The program and the bytes of each segment it indexes (in order)."""

    program: s.Program
    segments: list[bytes]
    memory: dict[str, MemoryReport]


def emit_program(
    methods: Mapping[str, ExportedProgram],
    *,
    constant_tensor_alignment: int = 16,
    memory_alignment: int = 16,
    include_stacktrace: bool = True,
) -> EmittedProgram:
    """Emits and memory-plans every method; constants are shared program-wide.

    Constants live in one segment (segment 0) as SubsegmentOffsets whose
    offsets[0] is reserved; a program without constants has offsets [0] and
    no segment at all.
    """
    constants = ConstantTable(constant_tensor_alignment)
    plans, memory = [], {}
    for name, program in methods.items():
        plan = MethodEmitter(name, program, constants, include_stacktrace).emit()
        memory[name] = plan_memory(plan, memory_alignment)
        plans.append(plan)
    data, offsets = constants.segment()
    segments = [data] if len(offsets) > 1 else []
    program = s.Program(
        version=PROGRAM_VERSION,
        execution_plan=plans,
        constant_buffer=[],
        backend_delegate_data=[],
        segments=[],
        constant_segment=s.SubsegmentOffsets(segment_index=0, offsets=offsets),
    )
    return EmittedProgram(program, segments, memory)
