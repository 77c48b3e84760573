"""Which constant tensors go to the .ptd, and the named entries they become.

With `to_pte(external_data=...)` a selected constant is emitted as a Tensor
value with no data in the program (`data_buffer_idx` 0, no allocation) and
`ExtraTensorInfo(fully_qualified_name=key, location=EXTERNAL)`; its bytes and
layout become the .ptd entry `key`. The key is the constant's name in the
ExportedProgram (`"encoder.layer.0.weight"`, or the name a to_pte rewrite
gave a transformed weight), shared by every method that reads the same
bytes under that name.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional, Union

from torchedge.serialize import schema as s
from torchedge.serialize.flat_tensor import NamedTensor, TensorLayout

# True (every constant), a collection of names, or a predicate over names.
ExternalSelection = Union[bool, Iterable[str], Callable[[str], bool]]


def selector(selection: ExternalSelection) -> Optional[Callable[[str], bool]]:
    """A predicate over constant names, or None when nothing goes out."""
    if selection is False or selection is None:
        return None
    if selection is True:
        return lambda name: True
    if callable(selection):
        return selection
    names = frozenset(selection)
    return names.__contains__ if names else None


class ExternalData:
    """The named entries of the .ptd, program-wide, in first-seen order."""

    def __init__(self, wants: Callable[[str], bool]) -> None:
        self.wants = wants
        self._entries: dict[str, NamedTensor] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, name: str, value: s.Tensor, data: bytes) -> str:
        """The key under which `data` (laid out as `value`) is stored.

        The same name with the same bytes and layout (a weight two methods
        share) is stored once; the same name with other bytes (two methods'
        different weights of one module path) gets a suffixed key.
        """
        layout = TensorLayout(int(value.scalar_type), tuple(value.sizes), tuple(value.dim_order))
        key, i = name, 1
        while key in self._entries:
            existing = self._entries[key]
            if existing.data == data and existing.layout == layout:
                return key
            i += 1
            key = f"{name}#{i}"
        self._entries[key] = NamedTensor(key, bytes(data), layout)
        return key

    def entries(self) -> list[NamedTensor]:
        return list(self._entries.values())


def external_value(value: s.Tensor, key: str) -> s.Tensor:
    """`value` marked as stored in the .ptd under `key`."""
    value.data_buffer_idx = 0
    value.extra_tensor_info = s.ExtraTensorInfo(
        fully_qualified_name=key, location=s.TensorDataLocation.EXTERNAL
    )
    return value
