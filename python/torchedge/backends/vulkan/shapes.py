"""Shapes and strides of the Vulkan delegate's tensors (all contiguous)."""

from __future__ import annotations

from typing import Any, Sequence

from torchedge.backends.vulkan.blob_writer import MAX_DIMS


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= int(size)
    return strides


def pad6(values: Sequence[int], fill: int) -> list[int]:
    return [fill] * (MAX_DIMS - len(values)) + [int(v) for v in values]


def broadcast_strides(shape: Sequence[int], out_shape: Sequence[int]) -> list[int]:
    """Strides that read a `shape` tensor at every index of `out_shape`."""
    shape = [1] * (len(out_shape) - len(shape)) + list(shape)
    strides = contiguous_strides(shape)
    return [0 if s == 1 else st for s, st in zip(shape, strides)]


def shape_of(node: Any) -> tuple[int, ...]:
    """The static shape of an FX node's value."""
    return tuple(int(d) for d in node.meta["val"].shape)
