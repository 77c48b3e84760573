"""The "TEX1" blob: what XnnpackBackend.preprocess hands the runtime.

Read by backends/xnnpack/blob_reader.cpp (facts in blob_format.h). All
integers little-endian; u32 unless noted. Float parameters are stored as
their IEEE-754 float32 bits in u32 slots.

    header, 32 bytes:
        "TEX1"            magic
        version           3 (the runtime still reads 2: no debug handles,
                          and 1: no datatype field either)
        num_values
        num_inputs        values [0, num_inputs) are the delegate's inputs,
                          in DelegateCall order
        num_outputs       values [num_inputs, num_inputs + num_outputs) are
                          its outputs, in order
        num_nodes
        u64 data_offset   where the data section starts (16-aligned)

    value record:
        kind              0 internal, 1 input, 2 output, 3 constant
        datatype          0 float32, 1 qint8, 2 qcint8, 3 qcint32
        qint8 only:       f32 scale, i32 zero point (in [-128, 127])
        rank, dims[rank]  XNNPACK's dims (NHWC for spatial activations),
                          1 <= rank <= 6, every dim >= 1
        qcint8/qcint32:   channel dim, then dims[channel dim] f32 scales
                          (per-channel weights / int32 biases; constants)
        inputs/outputs:   boundary (0: the tensor's contiguous data is the
                          value; 1: the tensor is NCHW and the value NHWC,
                          converted by the runtime), then the runtime
                          tensor's rank and sizes (same element count)
        constants:        u64 offset into the data section; numel elements
                          (float32, int8 or int32 as the datatype says)

    node record (in execution order):
        opcode, num_ids, num_params, debug_handle (version 3), ids[num_ids]
        (inputs..., output; 0xFFFFFFFF for an absent bias), params[num_params]

    The debug handle is what the runtime reports the node's events with
    (EventTracer::log_delegate_event); every node lowered from the same FX
    node(s) carries the same handle, and BlobWriter.debug_handle_map says
    which FX nodes each handle stands for.

    data section: constants, each 16-aligned, weights already in
    XNNPACK's layout (OHWI convolution and transposed-convolution filters,
    [1, H, W, C*M] depthwise filters, [out, in] fully-connected filters).

The opcodes and their parameters are listed in OpCode below and in
blob_format.h; bump VERSION on any change either side must know about.
"""

from __future__ import annotations

import enum
import math
import struct
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import torch

MAGIC = b"TEX1"
VERSION = 3
MAX_DIMS = 6
NO_VALUE = 0xFFFFFFFF

Param = Union[int, float]  # int -> u32, float -> float32 bits


class ValueKind(enum.IntEnum):
    INTERNAL = 0
    INPUT = 1
    OUTPUT = 2
    CONSTANT = 3


class DataType(enum.IntEnum):
    FLOAT32 = 0
    QINT8 = 1    # per-tensor scale and zero point (activations)
    QCINT8 = 2   # per-channel scales, zero point 0 (weights)
    QCINT32 = 3  # per-channel scales (int32 biases: input scale * weight scale)


@dataclass(frozen=True)
class QParams:
    """Per-tensor int8 quantization: real = (q - zero_point) * scale."""

    scale: float
    zero_point: int


class Boundary(enum.IntEnum):
    DIRECT = 0
    NCHW_TO_NHWC = 1


class OpCode(enum.IntEnum):
    """Node kinds; parameters as in blob_format.h."""

    CONV2D = 1             # pad t r b l, kernel h w, stride h w, dilation h w, groups, gic, goc, min, max
    DEPTHWISE_CONV2D = 2   # pad t r b l, kernel h w, stride h w, dilation h w, multiplier, channels, min, max
    FULLY_CONNECTED = 3    # min, max
    ADD = 4                # min, max
    SUBTRACT = 5           # min, max
    MULTIPLY = 6           # min, max
    DIVIDE = 7             # min, max
    MAXIMUM = 8
    MINIMUM = 9
    CLAMP = 10             # min, max
    HARDSWISH = 11
    SIGMOID = 12
    SOFTMAX = 13
    ABS = 14
    NEGATE = 15
    FLOOR = 16
    CEILING = 17
    SQUARE_ROOT = 18
    SQUARE = 19
    BANKERS_ROUNDING = 20
    ELU = 21               # alpha
    LEAKY_RELU = 22        # negative slope
    GLOBAL_AVG_POOL2D = 23  # min, max
    MAX_POOL2D = 24        # pad t r b l, pool h w, stride h w, dilation h w, min, max
    AVG_POOL2D = 25        # pad t r b l, pool h w, stride h w, min, max
    CONSTANT_PAD = 26      # value, pre[rank], post[rank]
    RESHAPE = 27
    RESIZE_BILINEAR2D = 28  # align_corners
    DECONV2D = 29          # pad t r b l, adjustment h w, kernel h w, upsampling h w, dilation h w,
                           # groups, gic, goc, min, max
    CONVERT = 30           # float32 -> qint8 or qint8 -> float32


@dataclass
class _Value:
    kind: ValueKind
    dims: tuple[int, ...]
    boundary: Boundary = Boundary.DIRECT
    tensor_dims: tuple[int, ...] = ()
    data: bytes = b""
    dtype: DataType = DataType.FLOAT32
    qparams: Optional[QParams] = None          # QINT8
    channel_dim: int = 0                       # QCINT8 / QCINT32
    channel_scales: tuple[float, ...] = ()


@dataclass
class _Node:
    op: OpCode
    ids: tuple[int, ...]
    params: tuple[Param, ...]
    debug_handle: int = 0


@dataclass
class BlobWriter:
    """Collects values and nodes; inputs must be added first, then outputs."""

    values: list[_Value] = field(default_factory=list)
    nodes: list[_Node] = field(default_factory=list)
    # debug handle -> FX node names; nodes added after begin_step(names)
    # carry that step's handle (handle 0 until the first step)
    debug_handle_map: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _step: int = -1
    _step_names: tuple[str, ...] = ()

    def begin_step(self, fx_names: Sequence[str]) -> None:
        """Nodes added from now on were lowered from the FX nodes `fx_names`.

        A step that adds no node gets no handle, so handles number the
        steps that run something: 0, 1, 2, ... in execution order."""
        self._step_names = tuple(fx_names)
        self._step = -1

    def add_external(self, kind: ValueKind, dims: Sequence[int], boundary: Boundary,
                     tensor_dims: Sequence[int], qparams: Optional[QParams] = None) -> int:
        assert kind in (ValueKind.INPUT, ValueKind.OUTPUT)
        order = [v.kind for v in self.values]
        if kind == ValueKind.INPUT and any(k != ValueKind.INPUT for k in order):
            raise ValueError("inputs must be added before any other value")
        if kind == ValueKind.OUTPUT and any(k not in (ValueKind.INPUT, ValueKind.OUTPUT) for k in order):
            raise ValueError("outputs must be added right after the inputs")
        return self._add(_Value(kind, _dims(dims), boundary, _dims(tensor_dims),
                                 **_quant_fields(qparams)))

    def add_internal(self, dims: Sequence[int], qparams: Optional[QParams] = None) -> int:
        """A value XNNPACK keeps in its workspace: float32, or qint8 with `qparams`."""
        return self._add(_Value(ValueKind.INTERNAL, _dims(dims), **_quant_fields(qparams)))

    def add_channelwise_constant(self, tensor: torch.Tensor, channel_dim: int,
                                 scales: Sequence[float]) -> int:
        """int8 weights (qcint8) or int32 biases (qcint32), scales per `channel_dim` entry."""
        dtype = {torch.int8: DataType.QCINT8, torch.int32: DataType.QCINT32}[tensor.dtype]
        dims = _dims(tensor.shape)
        scales = tuple(float(s) for s in scales)
        if len(scales) != dims[channel_dim] or not all(s > 0 and math.isfinite(s) for s in scales):
            raise ValueError(f"{len(scales)} channel scales for dims {list(dims)} along "
                             f"{channel_dim}; each must be finite and > 0")
        return self._add(_Value(ValueKind.CONSTANT, dims, data=tensor.contiguous().numpy().tobytes(),
                                dtype=dtype, channel_dim=channel_dim, channel_scales=scales))

    def qparams(self, value: int) -> Optional[QParams]:
        return self.values[value].qparams

    def add_constant(self, tensor: torch.Tensor) -> int:
        data = tensor.detach().to(torch.float32).contiguous()
        dims = tuple(data.shape) or (1,)
        return self._add(_Value(ValueKind.CONSTANT, _dims(dims), data=data.numpy().tobytes()))

    def add_node(self, op: OpCode, ids: Sequence[int], params: Sequence[Param] = ()) -> None:
        if self._step < 0:
            self._step = len(self.debug_handle_map)
            self.debug_handle_map[self._step] = self._step_names
        self.nodes.append(_Node(op, tuple(ids), tuple(params), self._step))

    def dims(self, value: int) -> tuple[int, ...]:
        return self.values[value].dims

    def serialize(self) -> bytes:
        head = bytearray(32)
        data = bytearray()
        for v in self.values:
            head += _u32s(int(v.kind), int(v.dtype))
            if v.dtype == DataType.QINT8:
                head += struct.pack("<fi", v.qparams.scale, v.qparams.zero_point)
            head += _u32s(len(v.dims), *v.dims)
            if v.dtype in (DataType.QCINT8, DataType.QCINT32):
                head += _u32s(v.channel_dim) + struct.pack(f"<{len(v.channel_scales)}f", *v.channel_scales)
            if v.kind in (ValueKind.INPUT, ValueKind.OUTPUT):
                head += _u32s(int(v.boundary), len(v.tensor_dims), *v.tensor_dims)
            elif v.kind == ValueKind.CONSTANT:
                data += bytes(-len(data) % 16)
                head += struct.pack("<Q", len(data))
                data += v.data
        for n in self.nodes:
            head += _u32s(int(n.op), len(n.ids), len(n.params), n.debug_handle, *n.ids)
            head += b"".join(struct.pack("<f", p) if isinstance(p, float) else struct.pack("<I", p)
                             for p in n.params)
        head += bytes(-len(head) % 16)
        inputs = sum(v.kind == ValueKind.INPUT for v in self.values)
        outputs = sum(v.kind == ValueKind.OUTPUT for v in self.values)
        head[0:32] = MAGIC + struct.pack("<5IQ", VERSION, len(self.values), inputs, outputs,
                                         len(self.nodes), len(head))
        return bytes(head + data)

    def _add(self, value: _Value) -> int:
        self.values.append(value)
        return len(self.values) - 1


def _quant_fields(qparams: Optional[QParams]) -> dict:
    if qparams is None:
        return {}
    scale = struct.unpack("<f", struct.pack("<f", qparams.scale))[0]
    if not (math.isfinite(scale) and scale > 0) or not -128 <= qparams.zero_point <= 127:
        raise ValueError(f"bad int8 quantization parameters {qparams}")
    return {"dtype": DataType.QINT8, "qparams": qparams}


def _dims(dims: Sequence[int]) -> tuple[int, ...]:
    out = tuple(int(d) for d in dims)
    if not 1 <= len(out) <= MAX_DIMS or any(d < 1 for d in out):
        raise ValueError(f"XNNPACK values need 1..{MAX_DIMS} dims, each >= 1; got {list(out)}")
    return out


def _u32s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)
