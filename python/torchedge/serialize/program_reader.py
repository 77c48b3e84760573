"""Flatbuffer bytes -> Program (Python model), through flatc's generated readers.

The inverse of `program_writer.program_to_flatbuffer` for every field that
writer emits: `program_from_flatbuffer(program_to_flatbuffer(p)) == p`.
Absent `list` fields read as empty lists, absent `Optional` fields as None.
Meant for tests and inspection, not for untrusted input at scale.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar

from flatbuffers.table import Table

from torchedge.serialize import schema as s
from torchedge.serialize.generated import table

T = TypeVar("T")


def program_from_flatbuffer(buffer: bytes, offset: int = 0) -> s.Program:
    """Reads the Program whose root offset is at `buffer[offset:offset+4]`."""
    fb = table("Program").Program.GetRootAs(buffer, offset)
    return s.Program(
        version=fb.Version(),
        execution_plan=_tables(fb, "ExecutionPlan", _execution_plan),
        constant_buffer=_tables(fb, "ConstantBuffer", lambda b: s.Buffer(_bytes(b, "Storage"))),
        backend_delegate_data=_tables(
            fb, "BackendDelegateData", lambda d: s.BackendDelegateInlineData(_bytes(d, "Data"))
        ),
        segments=_tables(fb, "Segments", lambda d: s.DataSegment(d.Offset(), d.Size())),
        constant_segment=_optional(fb.ConstantSegment(), _subsegment_offsets),
        mutable_data_segments=_optional_tables(fb, "MutableDataSegments", _subsegment_offsets),
        named_data=_optional_tables(
            fb, "NamedData", lambda n: s.NamedData(_str(n.Key()), n.SegmentIndex())
        ),
    )


# -- generic accessors ---------------------------------------------------------


def _str(raw: Optional[bytes]) -> str:
    return "" if raw is None else raw.decode("utf-8")


def _optional_str(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8")


def _numbers(fb: Any, field: str) -> list:
    if getattr(fb, f"{field}IsNone")():
        return []
    return getattr(fb, f"{field}AsNumpy")().tolist()


def _bytes(fb: Any, field: str) -> bytes:
    if getattr(fb, f"{field}IsNone")():
        return b""
    return getattr(fb, f"{field}AsNumpy")().tobytes()


def _tables(fb: Any, field: str, convert: Callable[[Any], T]) -> list[T]:
    get = getattr(fb, field)
    return [convert(get(i)) for i in range(getattr(fb, f"{field}Length")())]


def _optional_tables(fb: Any, field: str, convert: Callable[[Any], T]) -> Optional[list[T]]:
    if getattr(fb, f"{field}IsNone")():
        return None
    return _tables(fb, field, convert)


def _optional(fb: Any, convert: Callable[[Any], T]) -> Optional[T]:
    return None if fb is None else convert(fb)


def _union_member(module_name: str, payload: Table) -> Any:
    cls = getattr(table(module_name), module_name)
    obj = cls()
    obj.Init(payload.Bytes, payload.Pos)
    return obj


# -- tables --------------------------------------------------------------------


def _subsegment_offsets(fb: Any) -> s.SubsegmentOffsets:
    return s.SubsegmentOffsets(fb.SegmentIndex(), _numbers(fb, "Offsets"))


def _tensor(fb: Any) -> s.Tensor:
    allocation = fb.AllocationInfo()
    extra = fb.ExtraTensorInfo()
    return s.Tensor(
        scalar_type=s.ScalarType(fb.ScalarType()),
        sizes=_numbers(fb, "Sizes"),
        dim_order=_numbers(fb, "DimOrder"),
        storage_offset=fb.StorageOffset(),
        requires_grad=fb.RequiresGrad(),
        data_buffer_idx=fb.DataBufferIdx(),
        allocation_info=None if allocation is None else s.AllocationDetails(
            allocation.MemoryId(), allocation.MemoryOffsetLow(), allocation.MemoryOffsetHigh()
        ),
        layout=fb.Layout(),
        shape_dynamism=s.TensorShapeDynamism(fb.ShapeDynamism()),
        extra_tensor_info=None if extra is None else s.ExtraTensorInfo(
            mutable_data_segments_idx=extra.MutableDataSegmentsIdx(),
            fully_qualified_name=_optional_str(extra.FullyQualifiedName()),
            location=s.TensorDataLocation(extra.Location()),
            device_type=s.DeviceType(extra.DeviceType()),
            device_index=extra.DeviceIndex(),
        ),
    )


def _kernel_value(fb: Any) -> s.KernelValue:
    tag = fb.ValType()
    if not 1 <= tag <= len(s.KERNEL_TYPES):
        raise ValueError(f"EValue has unknown type tag {tag}")
    kind = s.KERNEL_TYPES[tag - 1]
    member = _union_member(kind.__name__, fb.Val())
    if kind is s.Null:
        return s.Null()
    if kind is s.Int:
        return s.Int(member.IntVal())
    if kind is s.Bool:
        return s.Bool(member.BoolVal())
    if kind is s.Double:
        return s.Double(member.DoubleVal())
    if kind is s.Tensor:
        return _tensor(member)
    if kind is s.String:
        return s.String(_str(member.StringVal()))
    if kind is s.BoolList:
        return s.BoolList([bool(x) for x in _numbers(member, "Items")])
    return kind(_numbers(member, "Items"))


def _instruction(fb: Any) -> s.InstructionArguments:
    tag = fb.InstrArgsType()
    if not 1 <= tag <= len(s.INSTRUCTION_TYPES):
        raise ValueError(f"Instruction has unknown type tag {tag}")
    kind = s.INSTRUCTION_TYPES[tag - 1]
    m = _union_member(kind.__name__, fb.InstrArgs())
    if kind is s.KernelCall:
        return s.KernelCall(m.OpIndex(), _numbers(m, "Args"))
    if kind is s.DelegateCall:
        return s.DelegateCall(m.DelegateIndex(), _numbers(m, "Args"))
    if kind is s.MoveCall:
        return s.MoveCall(m.MoveFrom(), m.MoveTo())
    if kind is s.JumpFalseCall:
        return s.JumpFalseCall(m.CondValueIndex(), m.DestinationInstruction())
    return s.FreeCall(m.ValueIndex())


def _frame_list(fb: Any) -> s.FrameList:
    return s.FrameList(_tables(fb, "Items", lambda f: s.Frame(
        _str(f.Filename()), f.Lineno(), _str(f.Name()), _str(f.Context())
    )))


def _chain(fb: Any) -> s.Chain:
    return s.Chain(
        inputs=_numbers(fb, "Inputs"),
        outputs=_numbers(fb, "Outputs"),
        instructions=_tables(fb, "Instructions", _instruction),
        stacktrace=_optional_tables(fb, "Stacktrace", _frame_list),
    )


def _delegate(fb: Any) -> s.BackendDelegate:
    processed = fb.Processed()
    return s.BackendDelegate(
        id=_str(fb.Id()),
        processed=s.BackendDelegateDataReference(
            s.DataLocation(processed.Location()), processed.Index()
        ),
        compile_specs=_tables(
            fb, "CompileSpecs", lambda c: s.CompileSpec(_str(c.Key()), _bytes(c, "Value"))
        ),
    )


def _execution_plan(fb: Any) -> s.ExecutionPlan:
    meta = fb.ContainerMetaType()
    return s.ExecutionPlan(
        name=_str(fb.Name()),
        container_meta_type=s.ContainerMetadata(
            _str(meta.EncodedInpStr()) if meta else "",
            _str(meta.EncodedOutStr()) if meta else "",
        ),
        values=_tables(fb, "Values", _kernel_value),
        inputs=_numbers(fb, "Inputs"),
        outputs=_numbers(fb, "Outputs"),
        chains=_tables(fb, "Chains", _chain),
        operators=_tables(fb, "Operators", lambda o: s.Operator(_str(o.Name()), _str(o.Overload()))),
        delegates=_tables(fb, "Delegates", _delegate),
        non_const_buffer_sizes=_numbers(fb, "NonConstBufferSizes"),
        non_const_buffer_device=_optional_tables(
            fb, "NonConstBufferDevice", lambda d: s.NonConstBufferDevice(
                d.BufferIdx(), s.DeviceType(d.DeviceType()), d.DeviceIndex()
            )
        ),
    )
