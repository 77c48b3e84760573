"""The .pte container: flatbuffer round trip, extended header, segments."""

from __future__ import annotations

import dataclasses
import struct

import pytest
import torch

import torchedge
from torchedge.serialize import ExtendedHeader, deserialize_pte, serialize_pte
from torchedge.serialize import schema as s
from torchedge.serialize.program_reader import program_from_flatbuffer
from torchedge.serialize.program_writer import program_to_flatbuffer


def _every_table_program() -> s.Program:
    """A program using every table, union member and optional field once."""
    tensor = s.Tensor(
        s.ScalarType.FLOAT, [2, 3], [0, 1],
        allocation_info=s.AllocationDetails.at(1, (5 << 32) + 64),
        shape_dynamism=s.TensorShapeDynamism.DYNAMIC_BOUND,
        extra_tensor_info=s.ExtraTensorInfo(3, "layer.weight", s.TensorDataLocation.EXTERNAL),
    )
    values = [
        tensor, s.Null(), s.Int(-(2 ** 40)), s.Bool(True), s.Double(-0.0), s.String("tanh"),
        s.IntList([2, 2]), s.DoubleList([1.5, float("inf")]), s.BoolList([True, False]),
        s.TensorList([0]), s.OptionalTensorList([0, -1]),
        s.Tensor(s.ScalarType.BFLOAT16, [], [], data_buffer_idx=1),
    ]
    instructions = [
        s.KernelCall(0, [0, 1, 0]), s.DelegateCall(0, [0]), s.MoveCall(0, 1),
        s.JumpFalseCall(3, 0), s.FreeCall(1),
    ]
    frames = [s.FrameList([s.Frame("model.py", 7, "forward", "return x + 1")])] * len(instructions)
    plan = s.ExecutionPlan(
        name="forward",
        container_meta_type=s.ContainerMetadata("in-spec", "out-spec"),
        values=values,
        inputs=[0],
        outputs=[0],
        chains=[s.Chain([0], [0], instructions, frames)],
        operators=[s.Operator("aten::add", "out")],
        delegates=[s.BackendDelegate(
            "XnnpackBackend", s.BackendDelegateDataReference(s.DataLocation.SEGMENT, 1),
            [s.CompileSpec("threads", b"\x04")],
        )],
        non_const_buffer_sizes=[0, 1024],
        non_const_buffer_device=[s.NonConstBufferDevice(1)],
    )
    return s.Program(
        version=0,
        execution_plan=[plan, dataclasses.replace(plan, name="encode", non_const_buffer_device=None)],
        constant_buffer=[s.Buffer(b"legacy")],
        backend_delegate_data=[s.BackendDelegateInlineData(b"blob")],
        constant_segment=s.SubsegmentOffsets(0, [0, 16]),
        mutable_data_segments=[s.SubsegmentOffsets(1, [0])],
        named_data=[s.NamedData("key", 1)],
    )


def test_flatbuffer_round_trip_preserves_every_field():
    program = _every_table_program()
    assert program_from_flatbuffer(program_to_flatbuffer(program)) == program


def test_file_round_trip_with_segments():
    program = _every_table_program()
    segments = [bytes(range(20)), b"xyz"]
    data = serialize_pte(program, segments, segment_alignment=64)
    pte = deserialize_pte(data)
    assert pte.segments == segments
    assert pte.program == dataclasses.replace(
        program, segments=[s.DataSegment(0, 20), s.DataSegment(64, 3)]
    )


def test_header_fields():
    segments = [b"a" * 300, b"b" * 5]
    data = serialize_pte(_every_table_program(), segments, segment_alignment=128)
    root, ident = struct.unpack_from("<I4s", data, 0)
    magic, length, program_size, base, data_size = struct.unpack_from("<4sIQQQ", data, 8)
    assert ident == b"ET12" and magic == b"eh00" and length == 32
    assert program_size <= base and base % 128 == 0 and base - program_size < 128
    assert data_size == 384 + 5  # second segment at 384 (aligned), no trailing padding
    assert len(data) == base + data_size
    assert data[program_size:base] == bytes(base - program_size)
    assert data[base : base + 300] == b"a" * 300 and data[base + 384 :] == b"b" * 5
    # The root offset points past the inserted header at a table.
    assert 40 <= root < program_size
    assert ExtendedHeader.from_file(data) == ExtendedHeader(program_size, base, data_size)


def test_no_segments_means_zero_offsets():
    program = dataclasses.replace(_every_table_program(), constant_segment=s.SubsegmentOffsets(0, [0]))
    data = serialize_pte(program)
    header = ExtendedHeader.from_file(data)
    assert header == ExtendedHeader(len(data), 0, 0)
    assert deserialize_pte(data).segments == []


def test_rejects_other_files():
    with pytest.raises(ValueError, match="ET12"):
        deserialize_pte(b"\x00" * 64)
    with pytest.raises(ValueError, match="power of two"):
        serialize_pte(_every_table_program(), [b"x"], segment_alignment=100)


def test_lowered_model_round_trips_and_constants_are_aligned():
    model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3)).eval()
    pte = torchedge.lower(model, (torch.randn(2, 5),), segment_alignment=256)
    f = pte.inspect()
    assert f.header.segment_base_offset % 256 == 0
    assert f.program.version == 0 and f.program.constant_buffer == []
    assert f.program.backend_delegate_data == []
    offsets = f.program.constant_segment.offsets
    assert offsets[0] == 0 and all(o % 16 == 0 for o in offsets)
    # Every parameter reads back bit-exactly from its data_buffer_idx.
    plan = f.program.execution_plan[0]
    constants = [v for v in plan.values if isinstance(v, s.Tensor) and v.data_buffer_idx > 0]
    weights = {tuple(p.shape): p.detach() for p in model.parameters()}
    for value in constants:
        if tuple(value.sizes) in weights:
            expected = weights[tuple(value.sizes)].contiguous().numpy().tobytes()
            assert f.constant_data(value.data_buffer_idx, len(expected)) == expected
    # Re-serializing the decoded program reproduces the file byte for byte.
    assert serialize_pte(f.program, f.segments, 256) == pte.buffer


def test_save_is_atomic_and_overwrites(tmp_path):
    pte = torchedge.lower(torch.nn.ReLU(), (torch.randn(3),))
    path = tmp_path / "model.pte"
    path.write_bytes(b"old")
    pte.save(path)
    assert path.read_bytes() == pte.buffer
    assert [p.name for p in tmp_path.iterdir()] == ["model.pte"]
    with pytest.raises(IsADirectoryError):
        pte.save(tmp_path)
