"""The "TVK1" blob the Vulkan delegate's runtime reads (backends/vulkan/blob_format.h).

Little-endian, u32 unless noted; float parameters as IEEE-754 bits:

    header (40 bytes)   b"TVK1", version 2, num_tensors, num_inputs,
                        num_outputs, num_ops, u64 data_offset, flags
                        (FLOAT16_COMPUTE), reserved 0
    tensor (56 bytes)   kind, rank, dims[6], u64 a, u64 b, dtype
                        (ScalarType code: 6 float32, 5 float16), reserved 0
                        (Constant: a = byte offset in the data section,
                        b = byte size; Alias: a = id of an earlier tensor
                        with the same element count)
    op (160 bytes)      shader, debug handle, num_ids, ids[4] (output
                        first; 0xFFFFFFFF = none), num_params, params[32]
    data                constants in their tensor's dtype, 16-byte aligned each

A blob holds one dtype: every tensor is float32 (a float32 partition) or
float16 (a partition of a float16 model). FLOAT16_COMPUTE asks the runtime
to keep a float32 partition's tensors in float16 on devices that can
(float32 at the delegate boundary), and marks a float16 program's
partition whose inputs or outputs include float32 values (its float32
upcasts are float16 on the device); see docs/vulkan.md.

Tensors 0..num_inputs-1 are the delegate's inputs (DelegateCall order), the
next num_outputs its outputs. Each shader's parameters are listed at the
top of its GLSL file (backends/vulkan/shaders/); the runtime checks every
one of them against the tensors it binds.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field
from typing import Optional, Sequence

import torch

MAGIC = b"TVK1"
VERSION = 2
HEADER_BYTES = 40
FLOAT16_COMPUTE = 1  # header flag
DTYPE_CODES = {torch.float32: 6, torch.float16: 5}  # ScalarType codes
MAX_DIMS = 6
MAX_PARAMS = 32
NO_TENSOR = 0xFFFFFFFF
MAX_ELEMENTS = 2**31 - 1


class TensorKind(enum.IntEnum):
    INTERNAL = 0
    INPUT = 1
    OUTPUT = 2
    CONSTANT = 3
    ALIAS = 4


class Shader(enum.IntEnum):
    UNARY = 0
    BINARY = 1
    COPY = 2
    MATMUL = 3
    CONV2D = 4
    POOL2D = 5
    SOFTMAX = 6
    NORM = 7
    REDUCE = 8
    RESIZE = 9


# Parameter counts, as the runtime's blob reader expects them.
PARAM_COUNTS = {Shader.UNARY: 4, Shader.BINARY: 27, Shader.COPY: 21, Shader.MATMUL: 20,
                Shader.CONV2D: 20, Shader.POOL2D: 16, Shader.SOFTMAX: 4, Shader.NORM: 6,
                Shader.REDUCE: 4, Shader.RESIZE: 9}


class Unary(enum.IntEnum):
    """shaders/activation.glsl: unary operators and fused activations."""

    NONE = 0
    RELU = 1
    CLAMP = 2
    GELU = 3
    GELU_TANH = 4
    SIGMOID = 5
    TANH = 6
    SILU = 7
    HARDSWISH = 8
    HARDSIGMOID = 9
    NEG = 10
    ABS = 11
    SQRT = 12
    RSQRT = 13
    EXP = 14
    LOG = 15
    AFFINE = 16  # x * a + b
    LEAKY_RELU = 17
    POW = 18
    SQUARE = 19
    SIN = 20
    COS = 21
    ERF = 22
    RECIPROCAL = 23


class Binary(enum.IntEnum):
    ADD = 0
    SUB = 1
    MUL = 2
    DIV = 3
    MAXIMUM = 4
    MINIMUM = 5
    POW = 6
    WHERE = 7


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", float(value)))[0]


@dataclass
class _Tensor:
    kind: TensorKind
    shape: tuple[int, ...]
    a: int = 0
    b: int = 0
    dtype: Optional[torch.dtype] = None  # None: the writer's


@dataclass
class _Op:
    shader: Shader
    handle: int
    ids: tuple[int, ...]
    params: tuple[int, ...]


@dataclass
class BlobWriter:
    """Collects tensors, ops and constants; serialize() writes the blob.

    Inputs and outputs must be added first (add_io), in DelegateCall order.
    `debug_handle_map` maps each op's debug handle to the FX node names it runs.
    `dtype` is every tensor's (constants are converted to it); `flags` the
    header's (FLOAT16_COMPUTE).
    """

    dtype: torch.dtype = torch.float32
    flags: int = 0

    tensors: list[_Tensor] = field(default_factory=list)
    ops: list[_Op] = field(default_factory=list)
    data: bytearray = field(default_factory=bytearray)
    num_inputs: int = 0
    num_outputs: int = 0
    debug_handle_map: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def add_io(self, kind: TensorKind, shape: Sequence[int],
               dtype: Optional[torch.dtype] = None) -> int:
        assert not self.ops and all(t.kind in (TensorKind.INPUT, TensorKind.OUTPUT)
                                    for t in self.tensors), "inputs and outputs come first"
        if kind == TensorKind.INPUT:
            assert self.num_outputs == 0, "inputs before outputs"
            self.num_inputs += 1
        else:
            self.num_outputs += 1
        return self._add(_Tensor(kind, tuple(shape), dtype=dtype))

    def add_internal(self, shape: Sequence[int]) -> int:
        return self._add(_Tensor(TensorKind.INTERNAL, tuple(shape)))

    def add_alias(self, base: int, shape: Sequence[int]) -> int:
        numel = _numel(shape)
        assert numel == _numel(self.tensors[base].shape), "an alias keeps the element count"
        return self._add(_Tensor(TensorKind.ALIAS, tuple(shape), base))

    def add_constant(self, value: torch.Tensor) -> int:
        value = value.detach().to(self.dtype).contiguous()
        while len(self.data) % 16:
            self.data.append(0)
        offset = len(self.data)
        raw = value.view(torch.int16).numpy().tobytes() if value.dtype == torch.float16 else \
            value.numpy().tobytes()
        self.data += raw
        return self._add(_Tensor(TensorKind.CONSTANT, tuple(value.shape), offset, len(raw)))

    def shape(self, tensor: int) -> tuple[int, ...]:
        return self.tensors[tensor].shape

    def add_op(self, shader: Shader, ids: Sequence[Optional[int]], params: Sequence[int],
               handle: int) -> None:
        params = [int(p) & 0xFFFFFFFF for p in params]
        assert len(params) == PARAM_COUNTS[shader], (shader, len(params))
        ids = tuple(NO_TENSOR if i is None else i for i in ids)
        self.ops.append(_Op(shader, handle, ids, tuple(params)))

    def serialize(self) -> bytes:
        records = bytearray()
        for t in self.tensors:
            dtype = DTYPE_CODES[t.dtype or self.dtype]
            dims = list(t.shape) + [0] * (MAX_DIMS - len(t.shape))
            records += struct.pack("<8I2Q2I", int(t.kind), len(t.shape), *dims, t.a, t.b, dtype, 0)
        for op in self.ops:
            ids = list(op.ids) + [NO_TENSOR] * (4 - len(op.ids))
            params = list(op.params) + [0] * (MAX_PARAMS - len(op.params))
            records += struct.pack("<3I4II32I", int(op.shader), op.handle, len(op.ids), *ids,
                                   len(op.params), *params)
        data_offset = HEADER_BYTES + len(records)
        data_offset += -data_offset % 16
        header = MAGIC + struct.pack("<5IQ2I", VERSION, len(self.tensors), self.num_inputs,
                                     self.num_outputs, len(self.ops), data_offset, self.flags, 0)
        body = header + records
        body += b"\0" * (data_offset - len(body))
        return bytes(body + self.data)

    def _add(self, tensor: _Tensor) -> int:
        assert len(tensor.shape) <= MAX_DIMS and _numel(tensor.shape) <= MAX_ELEMENTS
        self.tensors.append(tensor)
        return len(self.tensors) - 1


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n
