"""The memory plan over time, from an ETDump's tensor lifetimes."""

from __future__ import annotations

from torchedge.devtools.etdump import MethodInfo


def arena_usage(info: MethodInfo) -> list[int]:
    """Bytes of planned arena memory live at each instruction, from the tensors'
    lifetimes: the union of the byte ranges of the tensors live there (views
    that share memory count once; method outputs stay live to the end)."""
    n = len(info.instructions)
    ranges: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    for t in info.tensors:
        if t.mem_id == 0 or t.nbytes == 0:
            continue
        last = n - 1 if t.is_output else t.last_instruction
        for i in range(max(t.first_instruction, 0), min(last, n - 1) + 1):
            ranges[i].append((t.mem_id, t.offset, t.offset + t.nbytes))
    live = []
    for spans in ranges:
        total, arena, end = 0, None, 0
        for mem_id, start, stop in sorted(spans):
            if mem_id != arena:
                arena, end = mem_id, 0
            if stop > end:
                total += stop - max(start, end)
                end = stop
        live.append(total)
    return live
