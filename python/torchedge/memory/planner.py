"""Lifetime-based placement of tensors in one arena.

A tensor is live on the closed interval [first, last] of instruction
indices: written no earlier than `first`, read no later than `last`. Two
tensors whose intervals intersect must not share bytes; a kernel's outputs
never alias its inputs (they are live at the same instruction).

The planner is greedy: take tensors one at a time in some order and put
each at the lowest-waste gap among the already placed tensors it overlaps
in time (best fit), or on top. Two orders are tried (largest first, then
longest-lived first among equals; and definition order) and the smaller
arena wins. Sizes are rounded up to `alignment`, so every offset is aligned.

The lower bound is the peak, over instructions, of the summed (rounded)
sizes of the tensors live there: no placement can beat it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

DEFAULT_ALIGNMENT = 16


@dataclass(frozen=True)
class Lifetime:
    key: int      # caller's id for the tensor (its value index)
    size: int     # bytes
    first: int    # first instruction that touches it
    last: int     # last instruction that touches it (>= first)


@dataclass(frozen=True)
class ArenaPlan:
    offsets: dict[int, int]   # key -> byte offset in the arena
    arena_bytes: int
    lower_bound_bytes: int


def align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def lower_bound(lifetimes: Sequence[Lifetime], alignment: int = DEFAULT_ALIGNMENT) -> int:
    """Peak of simultaneously live bytes (each tensor rounded up to alignment)."""
    if not lifetimes:
        return 0
    end = max(t.last for t in lifetimes) + 2
    delta = np.zeros(end, dtype=np.int64)
    for t in lifetimes:
        size = align_up(t.size, alignment)
        delta[t.first] += size
        delta[t.last + 1] -= size
    return int(np.cumsum(delta).max())


def _place_greedy(lifetimes: Sequence[Lifetime], alignment: int) -> dict[int, int]:
    n = len(lifetimes)
    firsts = np.empty(n, dtype=np.int64)
    lasts = np.empty(n, dtype=np.int64)
    starts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    offsets: dict[int, int] = {}
    for placed, t in enumerate(lifetimes):
        size = align_up(t.size, alignment)
        live = (firsts[:placed] <= t.last) & (lasts[:placed] >= t.first)
        order = np.argsort(starts[:placed][live], kind="stable")
        busy_starts = starts[:placed][live][order]
        busy_ends = ends[:placed][live][order]
        best, best_waste, top = None, None, 0
        for busy_start, busy_end in zip(busy_starts.tolist(), busy_ends.tolist()):
            gap = busy_start - top
            if gap >= size and (best_waste is None or gap - size < best_waste):
                best, best_waste = top, gap - size
            top = max(top, busy_end)
        offset = top if best is None else best
        firsts[placed], lasts[placed] = t.first, t.last
        starts[placed], ends[placed] = offset, offset + size
        offsets[t.key] = offset
    return offsets


_ORDERS: tuple[Callable[[Lifetime], tuple], ...] = (
    lambda t: (-t.size, -(t.last - t.first), t.first, t.key),
    lambda t: (t.first, -t.size, t.key),
)


def plan_arena(lifetimes: Sequence[Lifetime], alignment: int = DEFAULT_ALIGNMENT) -> ArenaPlan:
    """Offsets for every tensor such that tensors live at the same time never overlap."""
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a power of two, got {alignment}")
    for t in lifetimes:
        if t.size < 0 or t.first < 0 or t.last < t.first:
            raise ValueError(f"invalid lifetime {t}")
    best: dict[int, int] = {}
    best_bytes = None
    for order in _ORDERS:
        offsets = _place_greedy(sorted(lifetimes, key=order), alignment)
        arena = max(
            (offsets[t.key] + align_up(t.size, alignment) for t in lifetimes), default=0
        )
        if best_bytes is None or arena < best_bytes:
            best, best_bytes = offsets, arena
    return ArenaPlan(best, best_bytes or 0, lower_bound(lifetimes, alignment))
