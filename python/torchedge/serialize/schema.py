"""Python mirror of schema/program.fbs.

One dataclass per flatbuffer table, same field names and order, so the
emitter builds a program in plain Python and the writer/reader translate it
to and from bytes one table at a time. The EValue wrapper table and the two
unions are represented by the Python unions `KernelValue` and
`InstructionArguments`.

Conventions shared by writer and reader:
  * a field typed `list[...]` is always written (an empty vector when empty),
    because runtimes dereference these vectors without a null check;
  * a field typed `Optional[...]` is omitted from the file when it is None.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Union


class ScalarType(enum.IntEnum):
    """Element types; the numbers are c10::ScalarType's (wire format)."""

    BYTE = 0
    CHAR = 1
    SHORT = 2
    INT = 3
    LONG = 4
    HALF = 5
    FLOAT = 6
    DOUBLE = 7
    COMPLEXHALF = 8
    COMPLEXFLOAT = 9
    COMPLEXDOUBLE = 10
    BOOL = 11
    QINT8 = 12
    QUINT8 = 13
    QINT32 = 14
    BFLOAT16 = 15
    QUINT4X2 = 16
    QUINT2X4 = 17
    BITS16 = 22
    UINT16 = 27
    UINT32 = 28
    UINT64 = 29


class TensorShapeDynamism(enum.IntEnum):
    STATIC = 0
    DYNAMIC_BOUND = 1
    DYNAMIC_UNBOUND = 2


class TensorDataLocation(enum.IntEnum):
    SEGMENT = 0
    EXTERNAL = 1


class DeviceType(enum.IntEnum):
    CPU = 0
    CUDA = 1


class DataLocation(enum.IntEnum):
    INLINE = 0
    SEGMENT = 1


@dataclass
class ContainerMetadata:
    encoded_inp_str: str
    encoded_out_str: str


@dataclass
class AllocationDetails:
    memory_id: int
    memory_offset_low: int
    memory_offset_high: int

    @staticmethod
    def at(memory_id: int, offset: int) -> "AllocationDetails":
        return AllocationDetails(memory_id, offset & 0xFFFFFFFF, offset >> 32)

    @property
    def offset(self) -> int:
        return self.memory_offset_low | (self.memory_offset_high << 32)


@dataclass
class ExtraTensorInfo:
    mutable_data_segments_idx: int = 0
    fully_qualified_name: Optional[str] = None
    location: TensorDataLocation = TensorDataLocation.SEGMENT
    device_type: DeviceType = DeviceType.CPU
    device_index: int = 0


@dataclass
class Tensor:
    scalar_type: ScalarType
    sizes: list[int]
    dim_order: list[int]
    storage_offset: int = 0
    requires_grad: bool = False
    data_buffer_idx: int = 0
    allocation_info: Optional[AllocationDetails] = None
    layout: int = 0
    shape_dynamism: TensorShapeDynamism = TensorShapeDynamism.STATIC
    extra_tensor_info: Optional[ExtraTensorInfo] = None


@dataclass
class Null:
    pass


@dataclass
class Int:
    int_val: int


@dataclass
class Bool:
    bool_val: bool


@dataclass
class Double:
    double_val: float


@dataclass
class String:
    string_val: str


@dataclass
class IntList:
    """items are indices of Int values in ExecutionPlan.values."""

    items: list[int]


@dataclass
class DoubleList:
    items: list[float]


@dataclass
class BoolList:
    items: list[bool]


@dataclass
class TensorList:
    """items are indices of Tensor values in ExecutionPlan.values."""

    items: list[int]


@dataclass
class OptionalTensorList:
    """Like TensorList; -1 stands for None."""

    items: list[int]


# The members of the KernelTypes union, in union order (type tag = position + 1).
KERNEL_TYPES: tuple[type, ...] = (
    Null, Int, Bool, Double, Tensor, String,
    IntList, DoubleList, BoolList, TensorList, OptionalTensorList,
)
KernelValue = Union[
    Null, Int, Bool, Double, Tensor, String,
    IntList, DoubleList, BoolList, TensorList, OptionalTensorList,
]


@dataclass
class Operator:
    name: str
    overload: str

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass
class KernelCall:
    op_index: int
    args: list[int]


@dataclass
class DelegateCall:
    delegate_index: int
    args: list[int]


@dataclass
class MoveCall:
    move_from: int
    move_to: int


@dataclass
class JumpFalseCall:
    cond_value_index: int
    destination_instruction: int


@dataclass
class FreeCall:
    value_index: int


# The members of the InstructionArguments union, in union order.
INSTRUCTION_TYPES: tuple[type, ...] = (
    KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall,
)
InstructionArguments = Union[KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall]


@dataclass
class Frame:
    filename: str
    lineno: int
    name: str
    context: str


@dataclass
class FrameList:
    items: list[Frame]


@dataclass
class BackendDelegateDataReference:
    location: DataLocation
    index: int


@dataclass
class CompileSpec:
    key: str
    value: bytes


@dataclass
class BackendDelegate:
    id: str
    processed: BackendDelegateDataReference
    compile_specs: list[CompileSpec]


@dataclass
class Chain:
    inputs: list[int]
    outputs: list[int]
    instructions: list[InstructionArguments]
    stacktrace: Optional[list[FrameList]] = None


@dataclass
class NonConstBufferDevice:
    buffer_idx: int
    device_type: DeviceType = DeviceType.CPU
    device_index: int = 0


@dataclass
class ExecutionPlan:
    name: str
    container_meta_type: ContainerMetadata
    values: list[KernelValue]
    inputs: list[int]
    outputs: list[int]
    chains: list[Chain]
    operators: list[Operator]
    delegates: list[BackendDelegate]
    non_const_buffer_sizes: list[int]
    non_const_buffer_device: Optional[list[NonConstBufferDevice]] = None


@dataclass
class Buffer:
    storage: bytes


@dataclass
class BackendDelegateInlineData:
    data: bytes


@dataclass
class DataSegment:
    offset: int
    size: int


@dataclass
class SubsegmentOffsets:
    segment_index: int
    offsets: list[int]


@dataclass
class NamedData:
    key: str
    segment_index: int


@dataclass
class Program:
    version: int
    execution_plan: list[ExecutionPlan]
    constant_buffer: list[Buffer] = field(default_factory=list)
    backend_delegate_data: list[BackendDelegateInlineData] = field(default_factory=list)
    segments: list[DataSegment] = field(default_factory=list)
    constant_segment: Optional[SubsegmentOffsets] = None
    mutable_data_segments: Optional[list[SubsegmentOffsets]] = None
    named_data: Optional[list[NamedData]] = None
