"""The .ptd container (program-data separation), FlatTensor layout.

    offset 0   uint32 root table offset      (flatbuffer header, shifted by 48)
           4   "FT01"                        (file identifier)
           8   "FH01", uint32 40             (header: magic, length)
          16   uint64 flatbuffer_offset      (48: the header padded to 16)
          24   uint64 flatbuffer_size        (bytes of the flatbuffer before the header went in)
          32   uint64 segment_base_offset    (a multiple of segment_alignment)
          40   uint64 segment_data_size      (segment_base_offset .. end of last segment)
          48   8 bytes of zero padding (the header is padded to 48 bytes)
          56   flatbuffer tables (FlatTensor, schema/flat_tensor.fbs) ...
               zero padding to segment_base_offset
               segment 0, padding, segment 1, ...  (each start aligned to segment_alignment)

Each distinct payload is one segment; entries with equal bytes share it.
The layout is upstream ExecuTorch's, so upstream's runtime reads these files
and torchedge reads upstream's. The flatbuffer is written and read with the
plain flatbuffers API (four small tables), without generated code.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Optional, Sequence

import flatbuffers
import numpy as np
from flatbuffers.table import Table

FILE_IDENTIFIER = b"FT01"
HEADER_MAGIC = b"FH01"
HEADER_LENGTH = 40
HEADER_OFFSET = 8
PADDED_HEADER_LENGTH = 48
FLAT_TENSOR_VERSION = 0
DEFAULT_SEGMENT_ALIGNMENT = 128


def _align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


@dataclass(frozen=True)
class TensorLayout:
    scalar_type: int  # ET12 ScalarType number (float32 = 6)
    sizes: tuple[int, ...]
    dim_order: tuple[int, ...]


@dataclass(frozen=True)
class NamedTensor:
    """One entry: its bytes and, for tensors, how to read them."""

    key: str
    data: bytes
    layout: Optional[TensorLayout] = None


@dataclass
class PtdFile:
    """A decoded .ptd: entries by key, in file order."""

    entries: dict[str, NamedTensor] = field(default_factory=dict)
    version: int = FLAT_TENSOR_VERSION


# -- writing -------------------------------------------------------------------


def _segments(entries: Sequence[NamedTensor]) -> tuple[list[bytes], list[int]]:
    """Distinct payloads (first-seen order) and each entry's segment index."""
    payloads: list[bytes] = []
    by_digest: dict[tuple[int, bytes], int] = {}
    indices = []
    for entry in entries:
        digest = (len(entry.data), hashlib.sha256(entry.data).digest())
        index = by_digest.get(digest)
        if index is None or payloads[index] != entry.data:
            index = len(payloads)
            payloads.append(bytes(entry.data))
            by_digest[digest] = index
        indices.append(index)
    return payloads, indices


def _layout(b: flatbuffers.Builder, layout: TensorLayout) -> int:
    sizes = b.CreateNumpyVector(np.asarray(layout.sizes, dtype=np.int32))
    order = b.CreateNumpyVector(np.asarray(layout.dim_order, dtype=np.uint8))
    b.StartObject(3)
    b.PrependUOffsetTRelativeSlot(2, order, 0)
    b.PrependUOffsetTRelativeSlot(1, sizes, 0)
    b.PrependInt8Slot(0, layout.scalar_type, 0)
    return b.EndObject()


def _vector(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def _flatbuffer(entries: Sequence[NamedTensor], indices: list[int],
                segments: list[tuple[int, int]]) -> bytes:
    b = flatbuffers.Builder(1024)
    named = []
    for entry, index in zip(entries, indices):
        key = b.CreateString(entry.key)
        layout = _layout(b, entry.layout) if entry.layout is not None else None
        b.StartObject(3)
        if layout is not None:
            b.PrependUOffsetTRelativeSlot(2, layout, 0)
        b.PrependUint32Slot(1, index, 0)
        b.PrependUOffsetTRelativeSlot(0, key, 0)
        named.append(b.EndObject())
    tables = []
    for offset, size in segments:
        b.StartObject(2)
        b.PrependUint64Slot(1, size, 0)
        b.PrependUint64Slot(0, offset, 0)
        tables.append(b.EndObject())
    segment_vector, named_vector = _vector(b, tables), _vector(b, named)
    b.StartObject(3)
    b.PrependUOffsetTRelativeSlot(2, named_vector, 0)
    b.PrependUOffsetTRelativeSlot(1, segment_vector, 0)
    b.PrependUint32Slot(0, FLAT_TENSOR_VERSION, 0)
    b.Finish(b.EndObject(), file_identifier=FILE_IDENTIFIER)
    return bytes(b.Output())


def serialize_ptd(entries: Sequence[NamedTensor],
                  segment_alignment: int = DEFAULT_SEGMENT_ALIGNMENT) -> bytes:
    """The bytes of a .ptd file holding `entries` (keys must be unique)."""
    if segment_alignment <= 0 or segment_alignment & (segment_alignment - 1):
        raise ValueError(f"segment_alignment must be a power of two, got {segment_alignment}")
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate keys in external data")
    payloads, indices = _segments(entries)
    segments, end = [], 0
    for payload in payloads:
        offset = _align_up(end, segment_alignment)
        segments.append((offset, len(payload)))
        end = offset + len(payload)
    flatbuffer = _flatbuffer(entries, indices, segments)
    base = _align_up(len(flatbuffer) + PADDED_HEADER_LENGTH, segment_alignment)
    (root,) = struct.unpack_from("<I", flatbuffer, 0)
    header = struct.pack("<4sIQQQQ", HEADER_MAGIC, HEADER_LENGTH, PADDED_HEADER_LENGTH,
                         len(flatbuffer), base, end)
    out = bytearray(struct.pack("<I", root + PADDED_HEADER_LENGTH))
    out += flatbuffer[4:8] + header + bytes(PADDED_HEADER_LENGTH - len(header))
    out += flatbuffer[8:]
    out += bytes(base - len(out))  # to the segment base even without segments, as upstream
    for (offset, _), payload in zip(segments, payloads):
        out += bytes(base + offset - len(out))
        out += payload
    return bytes(out)


# -- reading -------------------------------------------------------------------


def _table(buf: bytes, table: Table, slot: int) -> Optional[Table]:
    o = table.Offset(4 + 2 * slot)
    return Table(buf, table.Indirect(o + table.Pos)) if o else None


def _tables(buf: bytes, table: Table, slot: int) -> list[Table]:
    o = table.Offset(4 + 2 * slot)
    if not o:
        return []
    start = table.Vector(o)
    return [Table(buf, table.Indirect(start + 4 * i)) for i in range(table.VectorLen(o))]


def _scalar(table: Table, slot: int, kind: type, default: int = 0) -> int:
    o = table.Offset(4 + 2 * slot)
    return table.Get(kind, o + table.Pos) if o else default


def _numbers(table: Table, slot: int, dtype: type) -> tuple[int, ...]:
    o = table.Offset(4 + 2 * slot)
    if not o:
        return ()
    return tuple(int(v) for v in table.GetVectorAsNumpy(dtype, o))


def _read_layout(buf: bytes, entry: Table) -> Optional[TensorLayout]:
    layout = _table(buf, entry, 2)
    if layout is None:
        return None
    scalar_type = _scalar(layout, 0, flatbuffers.number_types.Int8Flags)
    return TensorLayout(scalar_type, _numbers(layout, 1, flatbuffers.number_types.Int32Flags),
                        _numbers(layout, 2, flatbuffers.number_types.Uint8Flags))


def deserialize_ptd(data: bytes) -> PtdFile:
    """Decodes a .ptd written by torchedge or upstream ExecuTorch; ValueError
    when the identifier, header or offsets are wrong."""
    if len(data) < HEADER_OFFSET + HEADER_LENGTH or data[4:8] != FILE_IDENTIFIER:
        raise ValueError(f"not a .ptd file: identifier {bytes(data[4:8])!r}, expected b'FT01'")
    magic, length, fb_offset, fb_size, base, size = struct.unpack_from("<4sIQQQQ", data, 8)
    if magic != HEADER_MAGIC or length < HEADER_LENGTH:
        raise ValueError(f"bad .ptd header: magic {magic!r}, length {length}")
    if fb_offset + fb_size > len(data) or base < fb_offset + fb_size or base + size > len(data):
        raise ValueError(".ptd header offsets lie outside the file (truncated file?)")
    buf = bytes(data[: fb_offset + fb_size])
    root = Table(buf, flatbuffers.encode.Get(flatbuffers.packer.uoffset, buf, 0))
    segments = [(_scalar(t, 0, flatbuffers.number_types.Uint64Flags),
                 _scalar(t, 1, flatbuffers.number_types.Uint64Flags)) for t in _tables(buf, root, 1)]
    out = PtdFile(version=_scalar(root, 0, flatbuffers.number_types.Uint32Flags))
    for entry in _tables(buf, root, 2):
        key = entry.String(entry.Offset(4) + entry.Pos).decode()
        offset, length = segments[_scalar(entry, 1, flatbuffers.number_types.Uint32Flags)]
        if offset + length > size:
            raise ValueError(f"segment of '{key}' runs past the segment data")
        payload = bytes(data[base + offset : base + offset + length])
        out.entries[key] = NamedTensor(key, payload, _read_layout(buf, entry))
    return out
