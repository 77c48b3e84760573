"""The values list of one ExecutionPlan, with literal deduplication."""

from __future__ import annotations

import struct
from typing import Hashable, Sequence

from torchedge.serialize import schema as s


def _double_key(value: float) -> bytes:
    return struct.pack("<d", value)  # tells 0.0 from -0.0, keeps NaN hashable


class ValueTable:
    """Appends values and returns their indices.

    Literal arguments (Null, Int, Double, Bool, String and lists) are shared:
    an equal literal asked for twice gets the same index. Values the runtime
    writes (tensors, plan inputs, SymInt results) are always fresh.
    """

    def __init__(self) -> None:
        self.values: list[s.KernelValue] = []
        self._literals: dict[Hashable, int] = {}

    def add(self, value: s.KernelValue) -> int:
        """A new value, never shared."""
        self.values.append(value)
        return len(self.values) - 1

    def _literal(self, key: Hashable, value: s.KernelValue) -> int:
        index = self._literals.get(key)
        if index is None:
            index = self._literals[key] = self.add(value)
        return index

    def null(self) -> int:
        return self._literal(("null",), s.Null())

    def int(self, value: int) -> int:
        return self._literal(("int", int(value)), s.Int(int(value)))

    def double(self, value: float) -> int:
        return self._literal(("double", _double_key(float(value))), s.Double(float(value)))

    def bool(self, value: bool) -> int:
        return self._literal(("bool", bool(value)), s.Bool(bool(value)))

    def string(self, value: str) -> int:
        return self._literal(("str", value), s.String(value))

    def int_list(self, item_indices: Sequence[int]) -> int:
        items = [int(i) for i in item_indices]
        return self._literal(("int_list", tuple(items)), s.IntList(items))

    def double_list(self, items: Sequence[float]) -> int:
        items = [float(x) for x in items]
        key = ("double_list", tuple(_double_key(x) for x in items))
        return self._literal(key, s.DoubleList(items))

    def bool_list(self, items: Sequence[bool]) -> int:
        items = [bool(x) for x in items]
        return self._literal(("bool_list", tuple(items)), s.BoolList(items))

    def tensor_list(self, tensor_indices: Sequence[int]) -> int:
        items = [int(i) for i in tensor_indices]
        return self._literal(("tensor_list", tuple(items)), s.TensorList(items))

    def optional_tensor_list(self, tensor_indices: Sequence[int]) -> int:
        items = [int(i) for i in tensor_indices]
        return self._literal(("optional_tensor_list", tuple(items)), s.OptionalTensorList(items))
