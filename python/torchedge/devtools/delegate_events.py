"""What delegates report about their own nodes, joined with the ETRecord.

While a DelegateCall runs under a tracer, a backend may log events of its
own (EventTracer::log_delegate_event): one per delegated node with the
delegate debug handle its preprocess assigned (`delegate_debug_id_int`
>= 0), and stages of its work (debug id -1, e.g. "XNNPACK_INVOKE"). The
ETRecord's delegate section maps each handle to the FX node(s), module
path and source line.

Granularity is the backend's: the test backend times every node on its
own; the XNNPACK delegate runs its whole subgraph in one
xnn_invoke_runtime and reports every node with that call's interval.
Nodes of one call that share an identical interval are marked `shared`:
their time is the stage's, not theirs, and is not summed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from torchedge.devtools.etdump import ETDump, ProfileEvent, microseconds as _us

if TYPE_CHECKING:
    from torchedge.devtools.etrecord import ETRecord


@dataclass
class DelegateEventRow:
    method: str
    instruction: int              # the DelegateCall's debug handle (instruction index)
    delegate_debug_handle: int    # -1: a stage of the delegate's work, not a node
    name: str                     # what the delegate called it ("conv2d", "XNNPACK_INVOKE")
    operator: str                 # the FX node's target (ETRecord), else `name`
    module_path: Optional[str]
    source: Optional[str]         # "file:line"
    nodes: str                    # FX node name(s) the handle stands for
    count: int
    min_us: float
    median_us: float
    max_us: float
    total_us: float
    shared: bool                  # timed together with other nodes (interval not its own)

    @property
    def is_node(self) -> bool:
        return self.delegate_debug_handle >= 0


def delegate_events(dump: ETDump) -> list[tuple[str, ProfileEvent]]:
    """(method, event) for every delegate-reported event of the methods' runs."""
    out = []
    for run in dump.runs:
        if run.name not in dump.methods:
            continue  # "load", or a capture block such as "forward:intermediates"
        for e in run.profile_events:
            if e.instruction_id >= 0 and not e.name.endswith("_CALL"):
                out.append((run.name, e))
    return out


def shared_events(events: list[tuple[str, ProfileEvent]]) -> set[int]:
    """ids of node events whose exact interval another node of the same call
    also has (the delegate timed them together)."""
    intervals = Counter((m, e.instruction_id, e.start, e.end) for m, e in events
                        if e.delegate_debug_id_int >= 0)
    return {id(e) for m, e in events if e.delegate_debug_id_int >= 0
            and intervals[(m, e.instruction_id, e.start, e.end)] > 1}


def delegate_rows(dump: ETDump, etrecord: Optional["ETRecord"]) -> list[DelegateEventRow]:
    """One row per (method, instruction, delegate debug handle or stage name),
    in execution order of the first run."""
    events = delegate_events(dump)
    shared = shared_events(events)
    grouped: dict[tuple[str, int, int, str], list[ProfileEvent]] = {}
    for method, e in events:
        name = e.name if e.delegate_debug_id_int < 0 else ""  # a node's name may vary per call
        grouped.setdefault((method, e.instruction_id, e.delegate_debug_id_int, name), []).append(e)
    rows = []
    for (method, instruction, handle, _), group in grouped.items():
        times = [_us(e.duration, dump.time_unit) for e in group]
        facts = _facts(etrecord, method, instruction, handle)
        rows.append(DelegateEventRow(
            method, instruction, handle, group[0].name, facts.get("target") or group[0].name,
            facts.get("module_path"), _source(facts.get("source")),
            ",".join(facts.get("nodes") or []), len(times), min(times),
            statistics.median(times), max(times), sum(times),
            any(id(e) in shared for e in group)))
    return rows


def _facts(etrecord, method: str, instruction: int, handle: int) -> dict[str, Any]:
    if etrecord is None or handle < 0:
        return {}
    return etrecord.delegate_node(method, instruction, handle) or {}


def _source(source: Optional[dict]) -> Optional[str]:
    return f"{source['file']}:{source['line']}" if source else None
