"""Constant tensor data shared by all methods of a program."""

from __future__ import annotations

import hashlib

from torchedge.memory.planner import align_up


class ConstantTable:
    """Distinct constant payloads, in first-seen order.

    Payloads are deduplicated by content (length + SHA-256, confirmed by
    comparison), so a weight used by two methods is stored once. Index 0 is
    reserved (it means "no data"); the first payload gets index 1.
    """

    def __init__(self, alignment: int = 16) -> None:
        self.alignment = alignment
        self._payloads: list[bytes] = []
        self._index: dict[tuple[int, bytes], int] = {}

    def __len__(self) -> int:
        return len(self._payloads)

    def add(self, data: bytes) -> int:
        """The data_buffer_idx (>= 1) of `data`."""
        key = (len(data), hashlib.sha256(data).digest())
        index = self._index.get(key)
        if index is not None and self._payloads[index - 1] == data:
            return index
        self._payloads.append(bytes(data))
        self._index[key] = len(self._payloads)
        return len(self._payloads)

    def segment(self) -> tuple[bytes, list[int]]:
        """(segment bytes, offsets) with offsets[0] = 0 reserved and
        offsets[k] the aligned start of payload k."""
        out = bytearray()
        offsets = [0]
        for payload in self._payloads:
            out += bytes(align_up(len(out), self.alignment) - len(out))
            offsets.append(len(out))
            out += payload
        return bytes(out), offsets
