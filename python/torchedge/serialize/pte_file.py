"""The .pte container: flatbuffer + extended header + aligned data segments.

    offset 0   uint32 root table offset      (flatbuffer header, shifted by 32)
           4   "ET12"                        (file identifier)
           8   "eh00", uint32 32             (extended header: magic, length)
          16   uint64 program_size           (bytes of flatbuffer incl. both headers)
          24   uint64 segment_base_offset    (0 when there are no segments)
          32   uint64 segment_data_size      (segment_base_offset .. end of last segment)
          40   flatbuffer tables ...
               zero padding to segment_base_offset (a multiple of segment_alignment)
               segment 0, padding, segment 1, ...  (each start aligned to segment_alignment)

The extended header is inserted into a finished flatbuffer right after the
file identifier; all other flatbuffer offsets are relative, so only the root
offset in bytes [0, 4) moves. 32 is a multiple of every flatbuffer alignment
in our schema (at most 16), so the tables stay aligned.
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from typing import Optional, Sequence

from torchedge.serialize import schema as s
from torchedge.serialize.program_reader import program_from_flatbuffer
from torchedge.serialize.program_writer import FILE_IDENTIFIER, program_to_flatbuffer

DEFAULT_SEGMENT_ALIGNMENT = 128


def align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


@dataclass(frozen=True)
class ExtendedHeader:
    """The 32-byte "eh00" header at byte 8 of a .pte file."""

    program_size: int
    segment_base_offset: int
    segment_data_size: int

    MAGIC = b"eh00"
    LENGTH = 32
    OFFSET = 8
    _FORMAT = "<4sIQQQ"

    def to_bytes(self) -> bytes:
        return struct.pack(
            self._FORMAT, self.MAGIC, self.LENGTH,
            self.program_size, self.segment_base_offset, self.segment_data_size,
        )

    @classmethod
    def from_file(cls, data: bytes) -> Optional["ExtendedHeader"]:
        """The header of a .pte file, or None when it has none.

        Headers of 24 bytes (written before segment_data_size existed) read
        with segment_data_size = 0.
        """
        start = cls.OFFSET
        if len(data) < start + 8 or data[start : start + 2] != b"eh":
            return None
        (length,) = struct.unpack_from("<I", data, start + 4)
        if length < 24 or len(data) < start + length:
            raise ValueError(f"extended header length {length} does not fit the file")
        program_size, base = struct.unpack_from("<QQ", data, start + 8)
        data_size = struct.unpack_from("<Q", data, start + 24)[0] if length >= 32 else 0
        return cls(program_size, base, data_size)


@dataclass
class PteFile:
    """A decoded .pte file: the program and the bytes of each segment."""

    program: s.Program
    segments: list[bytes]
    header: Optional[ExtendedHeader]

    def constant_data(self, data_buffer_idx: int, nbytes: int) -> bytes:
        """The bytes of the constant tensor with `data_buffer_idx` (> 0)."""
        constant_segment = self.program.constant_segment
        if constant_segment is None or data_buffer_idx >= len(constant_segment.offsets):
            raise IndexError(f"no constant with data_buffer_idx {data_buffer_idx}")
        start = constant_segment.offsets[data_buffer_idx]
        return self.segments[constant_segment.segment_index][start : start + nbytes]


def segment_layout(sizes: Sequence[int], alignment: int) -> tuple[list[s.DataSegment], int]:
    """Offsets of segments of `sizes` bytes placed back to back at `alignment`.

    Returns the DataSegment list (offsets relative to the segment base) and
    the total segment data size, which has no trailing padding.
    """
    segments, end = [], 0
    for size in sizes:
        offset = align_up(end, alignment)
        segments.append(s.DataSegment(offset, size))
        end = offset + size
    return segments, end


def serialize_pte(
    program: s.Program,
    segment_data: Sequence[bytes] = (),
    segment_alignment: int = DEFAULT_SEGMENT_ALIGNMENT,
) -> bytes:
    """The bytes of a .pte file holding `program` and `segment_data`.

    `program.segments` is replaced by the layout of `segment_data`; every
    other index into segments (constant_segment, delegates) must already
    refer to positions in `segment_data`.
    """
    if segment_alignment <= 0 or segment_alignment & (segment_alignment - 1):
        raise ValueError(f"segment_alignment must be a power of two, got {segment_alignment}")
    segments, data_size = segment_layout([len(d) for d in segment_data], segment_alignment)
    flatbuffer = program_to_flatbuffer(dataclasses.replace(program, segments=segments))

    program_size = len(flatbuffer) + ExtendedHeader.LENGTH
    base = align_up(program_size, segment_alignment) if segment_data else 0
    header = ExtendedHeader(program_size, base, data_size if segment_data else 0)
    (root,) = struct.unpack_from("<I", flatbuffer, 0)

    out = bytearray()
    out += struct.pack("<I", root + ExtendedHeader.LENGTH)
    out += flatbuffer[4:8]
    out += header.to_bytes()
    out += flatbuffer[8:]
    for segment, data in zip(segments, segment_data):
        out += bytes(base + segment.offset - len(out))
        out += data
    return bytes(out)


def deserialize_pte(data: bytes) -> PteFile:
    """Decodes a .pte file written by torchedge or by upstream ExecuTorch."""
    if len(data) < 8 or data[4:8] != FILE_IDENTIFIER:
        raise ValueError(f"not a .pte file: identifier {bytes(data[4:8])!r}, expected b'ET12'")
    header = ExtendedHeader.from_file(data)
    program = program_from_flatbuffer(data)
    segments = []
    if any(segment.size for segment in program.segments):
        if header is None or header.segment_base_offset == 0:
            raise ValueError("program lists segments but the file has no segment base offset")
    if program.segments:
        # Upstream writes an empty segment 0, and no header, when every
        # constant is external (program-data separation).
        base = header.segment_base_offset if header is not None else 0
        for segment in program.segments:
            start = base + segment.offset
            if start + segment.size > len(data):
                raise ValueError(f"segment {segment} runs past the end of the file")
            segments.append(bytes(data[start : start + segment.size]))
    return PteFile(program, segments, header)
