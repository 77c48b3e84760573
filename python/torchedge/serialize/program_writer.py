"""Program (Python model) -> flatbuffer bytes, table by table.

Only the flatbuffer: the extended header and the segments are added by
`pte_file.serialize_pte`. Fields typed `list` in the model are always written
(empty vectors included); `Optional` fields are omitted when None.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, TypeVar

import flatbuffers
import numpy as np

from torchedge.serialize import schema as s
from torchedge.serialize.generated import table

FILE_IDENTIFIER = b"ET12"

T = TypeVar("T")
_Builder = flatbuffers.Builder


def program_to_flatbuffer(program: s.Program) -> bytes:
    """The flatbuffer of `program`, with file identifier "ET12"."""
    builder = flatbuffers.Builder(1 << 16)
    root = _program(builder, program)
    builder.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


# -- vectors -------------------------------------------------------------------


def _numbers(b: _Builder, items: Sequence[object], dtype: type) -> int:
    return b.CreateNumpyVector(np.asarray(list(items), dtype=dtype))


def _aligned_bytes(b: _Builder, data: bytes, alignment: int) -> int:
    """A [ubyte] vector whose first element is `alignment`-aligned."""
    b.StartVector(1, len(data), alignment)
    b.head = b.head - len(data)
    b.Bytes[b.head : b.head + len(data)] = data
    return b.EndVector()


def _tables(b: _Builder, items: Sequence[T], write: Callable[[_Builder, T], int]) -> int:
    offsets = [write(b, item) for item in items]
    b.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def _string(b: _Builder, text: Optional[str]) -> Optional[int]:
    return None if text is None else b.CreateString(text)


# -- values --------------------------------------------------------------------


def _allocation(b: _Builder, a: s.AllocationDetails) -> int:
    t = table("AllocationDetails")
    t.AllocationDetailsStart(b)
    t.AllocationDetailsAddMemoryId(b, a.memory_id)
    t.AllocationDetailsAddMemoryOffsetLow(b, a.memory_offset_low)
    t.AllocationDetailsAddMemoryOffsetHigh(b, a.memory_offset_high)
    return t.AllocationDetailsEnd(b)


def _extra_tensor_info(b: _Builder, e: s.ExtraTensorInfo) -> int:
    t = table("ExtraTensorInfo")
    fqn = _string(b, e.fully_qualified_name)
    t.ExtraTensorInfoStart(b)
    t.ExtraTensorInfoAddMutableDataSegmentsIdx(b, e.mutable_data_segments_idx)
    if fqn is not None:
        t.ExtraTensorInfoAddFullyQualifiedName(b, fqn)
    t.ExtraTensorInfoAddLocation(b, int(e.location))
    t.ExtraTensorInfoAddDeviceType(b, int(e.device_type))
    t.ExtraTensorInfoAddDeviceIndex(b, e.device_index)
    return t.ExtraTensorInfoEnd(b)


def _tensor(b: _Builder, v: s.Tensor) -> int:
    t = table("Tensor")
    sizes = _numbers(b, v.sizes, np.int32)
    dim_order = _numbers(b, v.dim_order, np.uint8)
    allocation = None if v.allocation_info is None else _allocation(b, v.allocation_info)
    extra = None if v.extra_tensor_info is None else _extra_tensor_info(b, v.extra_tensor_info)
    t.TensorStart(b)
    t.TensorAddScalarType(b, int(v.scalar_type))
    t.TensorAddStorageOffset(b, v.storage_offset)
    t.TensorAddSizes(b, sizes)
    t.TensorAddDimOrder(b, dim_order)
    t.TensorAddRequiresGrad(b, v.requires_grad)
    t.TensorAddDataBufferIdx(b, v.data_buffer_idx)
    if allocation is not None:
        t.TensorAddAllocationInfo(b, allocation)
    t.TensorAddLayout(b, v.layout)
    t.TensorAddShapeDynamism(b, int(v.shape_dynamism))
    if extra is not None:
        t.TensorAddExtraTensorInfo(b, extra)
    return t.TensorEnd(b)


def _list_value(b: _Builder, name: str, items: Sequence[object], dtype: type) -> int:
    t = table(name)
    vector = _numbers(b, items, dtype)
    getattr(t, f"{name}Start")(b)
    getattr(t, f"{name}AddItems")(b, vector)
    return getattr(t, f"{name}End")(b)


def _kernel_value(b: _Builder, v: s.KernelValue) -> int:
    if isinstance(v, s.Null):
        t = table("Null")
        t.NullStart(b)
        return t.NullEnd(b)
    if isinstance(v, s.Int):
        t = table("Int")
        t.IntStart(b)
        t.IntAddIntVal(b, v.int_val)
        return t.IntEnd(b)
    if isinstance(v, s.Bool):
        t = table("Bool")
        t.BoolStart(b)
        t.BoolAddBoolVal(b, v.bool_val)
        return t.BoolEnd(b)
    if isinstance(v, s.Double):
        t = table("Double")
        t.DoubleStart(b)
        t.DoubleAddDoubleVal(b, v.double_val)
        return t.DoubleEnd(b)
    if isinstance(v, s.Tensor):
        return _tensor(b, v)
    if isinstance(v, s.String):
        t = table("String")
        text = b.CreateString(v.string_val)
        t.StringStart(b)
        t.StringAddStringVal(b, text)
        return t.StringEnd(b)
    if isinstance(v, s.IntList):
        return _list_value(b, "IntList", v.items, np.int64)
    if isinstance(v, s.DoubleList):
        return _list_value(b, "DoubleList", v.items, np.float64)
    if isinstance(v, s.BoolList):
        return _list_value(b, "BoolList", v.items, np.bool_)
    if isinstance(v, s.TensorList):
        return _list_value(b, "TensorList", v.items, np.int32)
    if isinstance(v, s.OptionalTensorList):
        return _list_value(b, "OptionalTensorList", v.items, np.int32)
    raise TypeError(f"not a kernel value: {v!r}")


def _evalue(b: _Builder, v: s.KernelValue) -> int:
    t = table("EValue")
    payload = _kernel_value(b, v)
    t.EValueStart(b)
    t.EValueAddValType(b, s.KERNEL_TYPES.index(type(v)) + 1)
    t.EValueAddVal(b, payload)
    return t.EValueEnd(b)


# -- instructions --------------------------------------------------------------


def _instruction_payload(b: _Builder, i: s.InstructionArguments) -> int:
    if isinstance(i, s.KernelCall):
        t = table("KernelCall")
        args = _numbers(b, i.args, np.int32)
        t.KernelCallStart(b)
        t.KernelCallAddOpIndex(b, i.op_index)
        t.KernelCallAddArgs(b, args)
        return t.KernelCallEnd(b)
    if isinstance(i, s.DelegateCall):
        t = table("DelegateCall")
        args = _numbers(b, i.args, np.int32)
        t.DelegateCallStart(b)
        t.DelegateCallAddDelegateIndex(b, i.delegate_index)
        t.DelegateCallAddArgs(b, args)
        return t.DelegateCallEnd(b)
    if isinstance(i, s.MoveCall):
        t = table("MoveCall")
        t.MoveCallStart(b)
        t.MoveCallAddMoveFrom(b, i.move_from)
        t.MoveCallAddMoveTo(b, i.move_to)
        return t.MoveCallEnd(b)
    if isinstance(i, s.JumpFalseCall):
        t = table("JumpFalseCall")
        t.JumpFalseCallStart(b)
        t.JumpFalseCallAddCondValueIndex(b, i.cond_value_index)
        t.JumpFalseCallAddDestinationInstruction(b, i.destination_instruction)
        return t.JumpFalseCallEnd(b)
    if isinstance(i, s.FreeCall):
        t = table("FreeCall")
        t.FreeCallStart(b)
        t.FreeCallAddValueIndex(b, i.value_index)
        return t.FreeCallEnd(b)
    raise TypeError(f"not an instruction: {i!r}")


def _instruction(b: _Builder, i: s.InstructionArguments) -> int:
    t = table("Instruction")
    payload = _instruction_payload(b, i)
    t.InstructionStart(b)
    t.InstructionAddInstrArgsType(b, s.INSTRUCTION_TYPES.index(type(i)) + 1)
    t.InstructionAddInstrArgs(b, payload)
    return t.InstructionEnd(b)


def _frame(b: _Builder, f: s.Frame) -> int:
    t = table("Frame")
    filename, name, context = b.CreateString(f.filename), b.CreateString(f.name), b.CreateString(f.context)
    t.FrameStart(b)
    t.FrameAddFilename(b, filename)
    t.FrameAddLineno(b, f.lineno)
    t.FrameAddName(b, name)
    t.FrameAddContext(b, context)
    return t.FrameEnd(b)


def _frame_list(b: _Builder, fl: s.FrameList) -> int:
    t = table("FrameList")
    items = _tables(b, fl.items, _frame)
    t.FrameListStart(b)
    t.FrameListAddItems(b, items)
    return t.FrameListEnd(b)


def _chain(b: _Builder, c: s.Chain) -> int:
    t = table("Chain")
    inputs = _numbers(b, c.inputs, np.int32)
    outputs = _numbers(b, c.outputs, np.int32)
    instructions = _tables(b, c.instructions, _instruction)
    stacktrace = None if c.stacktrace is None else _tables(b, c.stacktrace, _frame_list)
    t.ChainStart(b)
    t.ChainAddInputs(b, inputs)
    t.ChainAddOutputs(b, outputs)
    t.ChainAddInstructions(b, instructions)
    if stacktrace is not None:
        t.ChainAddStacktrace(b, stacktrace)
    return t.ChainEnd(b)


# -- execution plan ------------------------------------------------------------


def _operator(b: _Builder, o: s.Operator) -> int:
    t = table("Operator")
    name, overload = b.CreateString(o.name), b.CreateString(o.overload)
    t.OperatorStart(b)
    t.OperatorAddName(b, name)
    t.OperatorAddOverload(b, overload)
    return t.OperatorEnd(b)


def _compile_spec(b: _Builder, c: s.CompileSpec) -> int:
    t = table("CompileSpec")
    key = b.CreateString(c.key)
    value = b.CreateByteVector(bytes(c.value))
    t.CompileSpecStart(b)
    t.CompileSpecAddKey(b, key)
    t.CompileSpecAddValue(b, value)
    return t.CompileSpecEnd(b)


def _delegate(b: _Builder, d: s.BackendDelegate) -> int:
    ref = table("BackendDelegateDataReference")
    t = table("BackendDelegate")
    delegate_id = b.CreateString(d.id)
    specs = _tables(b, d.compile_specs, _compile_spec)
    ref.BackendDelegateDataReferenceStart(b)
    ref.BackendDelegateDataReferenceAddLocation(b, int(d.processed.location))
    ref.BackendDelegateDataReferenceAddIndex(b, d.processed.index)
    processed = ref.BackendDelegateDataReferenceEnd(b)
    t.BackendDelegateStart(b)
    t.BackendDelegateAddId(b, delegate_id)
    t.BackendDelegateAddProcessed(b, processed)
    t.BackendDelegateAddCompileSpecs(b, specs)
    return t.BackendDelegateEnd(b)


def _buffer_device(b: _Builder, d: s.NonConstBufferDevice) -> int:
    t = table("NonConstBufferDevice")
    t.NonConstBufferDeviceStart(b)
    t.NonConstBufferDeviceAddBufferIdx(b, d.buffer_idx)
    t.NonConstBufferDeviceAddDeviceType(b, int(d.device_type))
    t.NonConstBufferDeviceAddDeviceIndex(b, d.device_index)
    return t.NonConstBufferDeviceEnd(b)


def _container_metadata(b: _Builder, m: s.ContainerMetadata) -> int:
    t = table("ContainerMetadata")
    inp, out = b.CreateString(m.encoded_inp_str), b.CreateString(m.encoded_out_str)
    t.ContainerMetadataStart(b)
    t.ContainerMetadataAddEncodedInpStr(b, inp)
    t.ContainerMetadataAddEncodedOutStr(b, out)
    return t.ContainerMetadataEnd(b)


def _execution_plan(b: _Builder, p: s.ExecutionPlan) -> int:
    t = table("ExecutionPlan")
    name = b.CreateString(p.name)
    meta = _container_metadata(b, p.container_meta_type)
    values = _tables(b, p.values, _evalue)
    inputs = _numbers(b, p.inputs, np.int32)
    outputs = _numbers(b, p.outputs, np.int32)
    chains = _tables(b, p.chains, _chain)
    operators = _tables(b, p.operators, _operator)
    delegates = _tables(b, p.delegates, _delegate)
    sizes = _numbers(b, p.non_const_buffer_sizes, np.int64)
    devices = (
        None if p.non_const_buffer_device is None
        else _tables(b, p.non_const_buffer_device, _buffer_device)
    )
    t.ExecutionPlanStart(b)
    t.ExecutionPlanAddName(b, name)
    t.ExecutionPlanAddContainerMetaType(b, meta)
    t.ExecutionPlanAddValues(b, values)
    t.ExecutionPlanAddInputs(b, inputs)
    t.ExecutionPlanAddOutputs(b, outputs)
    t.ExecutionPlanAddChains(b, chains)
    t.ExecutionPlanAddOperators(b, operators)
    t.ExecutionPlanAddDelegates(b, delegates)
    t.ExecutionPlanAddNonConstBufferSizes(b, sizes)
    if devices is not None:
        t.ExecutionPlanAddNonConstBufferDevice(b, devices)
    return t.ExecutionPlanEnd(b)


# -- program -------------------------------------------------------------------


def _buffer(b: _Builder, buf: s.Buffer) -> int:
    t = table("Buffer")
    storage = _aligned_bytes(b, bytes(buf.storage), 16)
    t.BufferStart(b)
    t.BufferAddStorage(b, storage)
    return t.BufferEnd(b)


def _inline_data(b: _Builder, d: s.BackendDelegateInlineData) -> int:
    t = table("BackendDelegateInlineData")
    data = _aligned_bytes(b, bytes(d.data), 16)
    t.BackendDelegateInlineDataStart(b)
    t.BackendDelegateInlineDataAddData(b, data)
    return t.BackendDelegateInlineDataEnd(b)


def _data_segment(b: _Builder, d: s.DataSegment) -> int:
    t = table("DataSegment")
    t.DataSegmentStart(b)
    t.DataSegmentAddOffset(b, d.offset)
    t.DataSegmentAddSize(b, d.size)
    return t.DataSegmentEnd(b)


def _subsegment_offsets(b: _Builder, o: s.SubsegmentOffsets) -> int:
    t = table("SubsegmentOffsets")
    offsets = _numbers(b, o.offsets, np.uint64)
    t.SubsegmentOffsetsStart(b)
    t.SubsegmentOffsetsAddSegmentIndex(b, o.segment_index)
    t.SubsegmentOffsetsAddOffsets(b, offsets)
    return t.SubsegmentOffsetsEnd(b)


def _named_data(b: _Builder, n: s.NamedData) -> int:
    t = table("NamedData")
    key = b.CreateString(n.key)
    t.NamedDataStart(b)
    t.NamedDataAddKey(b, key)
    t.NamedDataAddSegmentIndex(b, n.segment_index)
    return t.NamedDataEnd(b)


def _program(b: _Builder, p: s.Program) -> int:
    t = table("Program")
    plans = _tables(b, p.execution_plan, _execution_plan)
    constant_buffer = _tables(b, p.constant_buffer, _buffer)
    delegate_data = _tables(b, p.backend_delegate_data, _inline_data)
    segments = _tables(b, p.segments, _data_segment)
    constant_segment = (
        None if p.constant_segment is None else _subsegment_offsets(b, p.constant_segment)
    )
    mutable = (
        None if p.mutable_data_segments is None
        else _tables(b, p.mutable_data_segments, _subsegment_offsets)
    )
    named = None if p.named_data is None else _tables(b, p.named_data, _named_data)
    t.ProgramStart(b)
    t.ProgramAddVersion(b, p.version)
    t.ProgramAddExecutionPlan(b, plans)
    t.ProgramAddConstantBuffer(b, constant_buffer)
    t.ProgramAddBackendDelegateData(b, delegate_data)
    t.ProgramAddSegments(b, segments)
    if constant_segment is not None:
        t.ProgramAddConstantSegment(b, constant_segment)
    if mutable is not None:
        t.ProgramAddMutableDataSegments(b, mutable)
    if named is not None:
        t.ProgramAddNamedData(b, named)
    return t.ProgramEnd(b)
