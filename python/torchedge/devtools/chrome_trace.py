"""An ETDump's runs as a Chrome-trace JSON timeline (chrome://tracing, ui.perfetto.dev).

One process per method; thread 0 holds each run ("Method::execute") and its
instructions ("aten::convolution.out" with the module path and source line
in `args`), thread 1 what delegates reported about their own nodes, and a
counter track the planned-arena bytes live at each instruction of the
first run. Timestamps are microseconds from the first recorded event.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence, Union

from torchedge.devtools.arena import arena_usage
from torchedge.devtools.etdump import ETDump, microseconds as _us


def chrome_trace(dump: ETDump, rows: Sequence[Any]) -> dict[str, Any]:
    """`rows`: the Inspector's InstructionRows (operator, module path, source)."""
    unit = dump.time_unit
    starts = [e.start for run in dump.runs for e in run.profile_events]
    origin = min(starts) if starts else 0
    pids = {name: i for i, name in enumerate(dict.fromkeys(run.name for run in dump.runs))}
    facts = {(r.method, r.debug_handle): r for r in rows}
    events: list[dict[str, Any]] = []
    for name, pid in pids.items():
        events.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}})
    counted: set[str] = set()
    for run in dump.runs:
        pid = pids[run.name]
        usage = None
        info = dump.methods.get(run.name)
        if info is not None and run.name not in counted:
            usage = arena_usage(info)
            counted.add(run.name)
        for e in run.profile_events:
            ts = _us(e.start - origin, unit)
            record: dict[str, Any] = {"ph": "X", "pid": pid, "tid": 0, "ts": ts,
                                      "dur": _us(e.duration, unit), "name": e.name}
            row = facts.get((run.name, e.instruction_id))
            if e.name.endswith("_CALL") and e.instruction_id >= 0:
                record["name"] = row.operator if row else e.name
                record["args"] = {"instruction": e.instruction_id,
                                  "module": row.module_path if row else None,
                                  "source": row.source if row else None}
                if usage is not None and e.instruction_id < len(usage):
                    events.append({"ph": "C", "pid": pid, "ts": ts, "name": "arena bytes live",
                                   "args": {"bytes": usage[e.instruction_id]}})
            elif e.instruction_id >= 0:  # a delegate's own event
                record["tid"] = 1
                record["args"] = {"instruction": e.instruction_id,
                                  "delegate_debug_id": e.delegate_debug_id_str
                                  if e.delegate_debug_id_str else e.delegate_debug_id_int}
            elif e.delegate_debug_id_str:
                record["args"] = {"of": e.delegate_debug_id_str}
            events.append(record)
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def write_chrome_trace(trace: dict[str, Any], path: Union[str, os.PathLike]) -> None:
    with open(os.fspath(path), "w") as f:
        json.dump(trace, f)
