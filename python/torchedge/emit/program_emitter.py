"""An EdgeProgram -> a Program (all methods) plus its segment data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from torch.export import ExportedProgram

from torchedge.emit.constant_table import ConstantTable
from torchedge.emit.external_data import ExternalData, ExternalSelection, selector
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
    # Per method, the FX node each instruction came from (None: emitter-made).
    instruction_nodes: dict[str, list[Any]] = field(default_factory=dict)
    # The .ptd entries (torchedge.serialize.flat_tensor.NamedTensor) of the
    # constants emitted as external; empty when none were selected.
    external_data: list[Any] = field(default_factory=list)


def emit_program(
    methods: Mapping[str, ExportedProgram],
    *,
    constant_tensor_alignment: int = 16,
    memory_alignment: int = 16,
    include_stacktrace: bool = True,
    input_guards: bool = True,
    alias_views: bool = True,
    external_data: ExternalSelection = False,
) -> EmittedProgram:
    """Emits and memory-plans every method; constants are shared program-wide.

    Constants live in one segment (segment 0) as SubsegmentOffsets whose
    offsets[0] is reserved; a program without constants has offsets [0] and
    no segment at all. Initial values of mutable buffers live in the next
    segment, described by Program.mutable_data_segments[0] the same way
    (offsets[0] reserved; a buffer's data_buffer_idx indexes the offsets);
    the runtime copies them into planned memory when it loads a method.
    `input_guards`: see torchedge.emit.input_guards; `alias_views`: see
    torchedge.emit.view_aliases; `external_data`: the constants (True: all;
    names; or a predicate over names) emitted as named .ptd entries instead
    of into the constant segment, see torchedge.emit.external_data.
    """
    wants = selector(external_data)
    external = ExternalData(wants) if wants is not None else None
    constants = ConstantTable(constant_tensor_alignment)
    mutable_data = ConstantTable(constant_tensor_alignment)
    plans, memory, instruction_nodes = [], {}, {}
    delegate_blobs: list[bytes] = []
    for name, program in methods.items():
        emitter = MethodEmitter(
            name, program, constants, include_stacktrace,
            mutable_data=mutable_data, input_guards=input_guards,
            delegate_blobs=delegate_blobs, alias_views=alias_views, external_data=external,
        )
        plan = emitter.emit()
        instruction_nodes[name] = emitter.instruction_nodes
        memory[name] = plan_memory(plan, memory_alignment)
        plans.append(plan)
    data, offsets = constants.segment()
    segments = [data] if len(offsets) > 1 else []
    mutable_data_segments = None
    if len(mutable_data):
        initial, initial_offsets = mutable_data.segment()
        mutable_data_segments = [s.SubsegmentOffsets(len(segments), initial_offsets)]
        segments.append(initial)
    # Delegate blobs follow, one segment each; point each reference at its segment.
    for plan in plans:
        for delegate in plan.delegates:
            delegate.processed.index += len(segments)
    segments.extend(delegate_blobs)
    program = s.Program(
        version=PROGRAM_VERSION,
        execution_plan=plans,
        constant_buffer=[],
        backend_delegate_data=[],
        segments=[],
        constant_segment=s.SubsegmentOffsets(segment_index=0, offsets=offsets),
        mutable_data_segments=mutable_data_segments,
    )
    entries = external.entries() if external is not None else []
    return EmittedProgram(program, segments, memory, instruction_nodes, entries)
