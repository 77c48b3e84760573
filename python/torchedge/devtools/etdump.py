"""Reading ETDump files (devtools/etdump/etdump.fbs) into plain Python objects.

    dump = parse_etdump("out.etdump")           # or parse_etdump(program.etdump())
    for run in dump.runs: run.name, run.profile_events, run.debug_events
    dump.methods["forward"].instructions[i]    # kind, name, source file / line
    dump.methods["forward"].tensors            # placement and lifetime of each tensor

The reader uses the code flatc generates from etdump.fbs (the build writes it to
torchedge/devtools/_generated). Times are in `dump.time_unit` (nanoseconds).
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from typing import Optional, Union

import torch

_PACKAGE = "torchedge.devtools._generated.torchedge_etdump"
IDENTIFIER = b"ED00"


def _generated(name: str):
    try:
        package = importlib.import_module(_PACKAGE)
    except ImportError as error:
        raise ImportError("the ETDump reader is not generated yet: run `make build` (flatc "
                          "writes it from devtools/etdump/etdump.fbs)") from error
    # flatc's accessors import nested tables by their absolute package name.
    sys.modules.setdefault("torchedge_etdump", package)
    return getattr(importlib.import_module(f"{_PACKAGE}.{name}"), name)


@dataclass
class ProfileEvent:
    name: str
    instruction_id: int           # -1: not an instruction (execute, load, delegate init)
    start: int
    end: int
    delegate_debug_id_int: int = -1
    delegate_debug_id_str: Optional[str] = None
    method: Optional[str] = None  # "Program::load_method": the method loaded

    @property
    def duration(self) -> int:
        return self.end - self.start


@dataclass
class DebugEvent:
    instruction_id: int
    name: str
    tensors: list[torch.Tensor]   # the instruction's output(s), copied at run time


@dataclass
class RunData:
    name: str                     # "load", or the method that ran
    profile_events: list[ProfileEvent] = field(default_factory=list)
    debug_events: list[DebugEvent] = field(default_factory=list)


@dataclass
class Instruction:
    kind: str
    name: str
    source_file: Optional[str]
    source_line: int


@dataclass
class TensorLifetime:
    mem_id: int                   # 0: not in a planned arena
    offset: int
    nbytes: int
    first_instruction: int
    last_instruction: int
    is_output: bool


@dataclass
class MethodInfo:
    name: str
    instructions: list[Instruction]
    arenas: dict[int, int]        # mem_id -> planned bytes
    tensors: list[TensorLifetime]
    method_allocator_used: int
    method_allocator_capacity: int


@dataclass
class ETDump:
    version: int
    runs: list[RunData]
    methods: dict[str, MethodInfo]
    dropped_events: int
    dropped_debug_events: int
    time_unit: str
    debug_buffer: bytes = b""     # what DebugEvent tensors' offsets index (upstream's
                                  # Inspector reads it as a separate file)

    def runs_of(self, method: str) -> list[RunData]:
        return [r for r in self.runs if r.name == method]


def microseconds(duration: float, unit: str) -> float:
    """A duration in an ETDump's time unit ("ns") in microseconds."""
    return duration / 1e3 if unit == "ns" else float(duration)


def _text(value: Optional[bytes]) -> Optional[str]:
    return None if value is None else value.decode("utf-8", "replace")


def _tensor(table, debug: memoryview) -> torch.Tensor:
    from torchedge.runtime import _WIRE_TO_DTYPE

    dtype = _WIRE_TO_DTYPE.get(table.ScalarType())
    if dtype is None:
        raise ValueError(f"captured tensor of unsupported scalar type {table.ScalarType()}")
    sizes = [table.Sizes(i) for i in range(table.SizesLength())]
    strides = [table.Strides(i) for i in range(table.StridesLength())]
    numel = 1
    for s in sizes:
        numel *= s
    # The storage spans the largest offset the strides reach.
    span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides)) if numel else 0
    itemsize = torch.empty((), dtype=dtype).element_size()
    start = table.Offset()
    data = bytes(debug[start:start + span * itemsize])
    if len(data) < span * itemsize:
        raise ValueError(f"captured tensor at offset {start} runs past the debug buffer")
    flat = torch.frombuffer(bytearray(data), dtype=dtype) if span else torch.empty(0, dtype=dtype)
    return flat.as_strided(sizes, strides) if span else flat.reshape(sizes)


def _debug_event(table, debug: memoryview) -> DebugEvent:
    value = table.DebugEntry()
    tensors: list[torch.Tensor] = []
    value_type = _generated("ValueType")
    if value is not None and value.Val() == value_type.Tensor:
        tensors.append(_tensor(value.Tensor(), debug))
    elif value is not None and value.Val() == value_type.TensorList:
        lst = value.TensorList()
        tensors.extend(_tensor(lst.Tensors(i), debug) for i in range(lst.TensorsLength()))
    return DebugEvent(table.InstructionId(), _text(table.Name()) or "", tensors)


def _method(table) -> MethodInfo:
    instructions = []
    for i in range(table.InstructionsLength()):
        ins = table.Instructions(i)
        instructions.append(Instruction(_text(ins.Kind()) or "", _text(ins.Name()) or "",
                                        _text(ins.SourceFile()), ins.SourceLine()))
    arenas = {table.Arenas(i).MemId(): table.Arenas(i).Size() for i in range(table.ArenasLength())}
    tensors = []
    for i in range(table.TensorsLength()):
        t = table.Tensors(i)
        tensors.append(TensorLifetime(t.MemId(), t.Offset(), t.Nbytes(), t.FirstInstruction(),
                                      t.LastInstruction(), bool(t.IsOutput())))
    return MethodInfo(_text(table.Name()) or "", instructions, arenas, tensors,
                      table.MethodAllocatorUsed(), table.MethodAllocatorCapacity())


def parse_etdump(source: Union[str, os.PathLike, bytes, bytearray]) -> ETDump:
    """Reads an ETDump file (a path or its bytes); ValueError when it is not one."""
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else \
        open(os.fspath(source), "rb").read()
    if len(data) < 12 or data[8:12] != IDENTIFIER:
        raise ValueError(f"not an ETDump: expected a size-prefixed FlatBuffer with identifier "
                         f"{IDENTIFIER.decode()}, got {data[8:12]!r}")
    size = int.from_bytes(data[:4], "little")
    if size + 4 > len(data):
        raise ValueError(f"truncated ETDump: the size prefix says {size + 4} bytes, "
                         f"the file has {len(data)}")
    root = _generated("ETDump").GetRootAs(data, 4)
    debug = memoryview(root.DebugBufferAsNumpy().tobytes()) if root.DebugBufferLength() else \
        memoryview(b"")
    runs = []
    for r in range(root.RunDataLength()):
        run_table = root.RunData(r)
        run = RunData(_text(run_table.Name()) or "")
        for e in range(run_table.EventsLength()):
            event = run_table.Events(e)
            profile = event.ProfileEvent()
            if profile is not None:
                run.profile_events.append(ProfileEvent(
                    _text(profile.Name()) or "", profile.InstructionId(), profile.StartTime(),
                    profile.EndTime(), profile.DelegateDebugIdInt(),
                    _text(profile.DelegateDebugIdStr()), _text(profile.Method())))
            debug_table = event.DebugEvent()
            if debug_table is not None:
                run.debug_events.append(_debug_event(debug_table, debug))
        runs.append(run)
    methods = {}
    for m in range(root.MethodsLength()):
        info = _method(root.Methods(m))
        methods[info.name] = info
    return ETDump(root.Version(), runs, methods, root.DroppedEvents(), root.DroppedDebugEvents(),
                  _text(root.TimeUnit()) or "ns", bytes(debug))
