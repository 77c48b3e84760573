"""An ETDump's runs as a Chrome-trace JSON timeline (chrome://tracing, ui.perfetto.dev).

One process per method; thread 0 holds each run ("Method::execute") and its
instructions ("aten::convolution.out" with the module path and source line
in `args`), with what delegates reported about their own work nested
inside their DELEGATE_CALL: stages ("XNNPACK_INVOKE") and nodes timed on
their own (named by their FX operator, with the module path and source
line). Nodes a delegate ran together in one stage (the XNNPACK delegate's
whole subgraph in one invoke) share its interval, so they are listed in
that stage's `args` ("nodes") instead of drawn as slices. A counter track
shows the planned-arena bytes live at each instruction of the first run.
Timestamps are microseconds from the first recorded event.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence, Union

from torchedge.devtools.arena import arena_usage
from torchedge.devtools.delegate_events import delegate_events, shared_events
from torchedge.devtools.etdump import ETDump, microseconds as _us


def chrome_trace(dump: ETDump, rows: Sequence[Any],
                 delegate_rows: Sequence[Any] = ()) -> dict[str, Any]:
    """`rows`: the Inspector's InstructionRows (operator, module path, source);
    `delegate_rows`: its DelegateEventRows (what delegated nodes are)."""
    unit = dump.time_unit
    nodes = {(r.method, r.instruction, r.delegate_debug_handle): r
             for r in delegate_rows if r.is_node}
    shared = shared_events(delegate_events(dump))
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
        stage_nodes, listed = _shared_nodes_by_stage(run, shared, nodes)
        for e in run.profile_events:
            if id(e) in listed:
                continue  # listed in the args of the stage it ran in
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
            elif e.instruction_id >= 0:  # a delegate's own event, nested in its call
                record["args"] = {"instruction": e.instruction_id,
                                  "delegate_debug_id": e.delegate_debug_id_str
                                  if e.delegate_debug_id_str else e.delegate_debug_id_int}
                node = nodes.get((run.name, e.instruction_id, e.delegate_debug_id_int))
                if node is not None:
                    record["name"] = node.operator
                    record["args"].update({"delegate_event": e.name, "module": node.module_path,
                                           "source": node.source, "nodes": node.nodes})
                ran = stage_nodes.get(id(e))
                if ran:
                    record["args"]["nodes"] = ran
            elif e.delegate_debug_id_str:
                record["args"] = {"of": e.delegate_debug_id_str}
            events.append(record)
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def _shared_nodes_by_stage(run, shared: set[int],
                           nodes: dict) -> tuple[dict[int, list[str]], set[int]]:
    """id of a stage event -> the shared nodes that ran in it (same call,
    same interval), each as "handle operator module"; and the ids of the
    node events so listed."""
    stages = {(e.instruction_id, e.start, e.end): e for e in run.profile_events
              if e.instruction_id >= 0 and e.delegate_debug_id_int < 0
              and not e.name.endswith("_CALL")}
    out: dict[int, list[str]] = {}
    listed: set[int] = set()
    for e in run.profile_events:
        if id(e) not in shared:
            continue
        stage = stages.get((e.instruction_id, e.start, e.end))
        if stage is None:
            continue
        row = nodes.get((run.name, e.instruction_id, e.delegate_debug_id_int))
        what = " ".join(str(x) for x in (e.delegate_debug_id_int, row.operator if row else e.name,
                                         row.module_path if row else None) if x is not None)
        out.setdefault(id(stage), []).append(what)
        listed.add(id(e))
    return out, listed


def write_chrome_trace(trace: dict[str, Any], path: Union[str, os.PathLike]) -> None:
    with open(os.fspath(path), "w") as f:
        json.dump(trace, f)
