"""Inspector: an ETDump's timings joined with an ETRecord's source facts.

    inspector = Inspector(etdump="out.etdump", etrecord="model.etrecord")
    inspector.print_summary()                 # slowest instructions, then per module / operator
    inspector.rows                            # one InstructionRow per instruction that ran
    inspector.delegate_rows                   # what delegates reported inside their calls
    inspector.to_dataframe()                  # pandas, when installed
    inspector.to_csv("profile.csv")
    inspector.to_chrome_trace("trace.json")   # chrome://tracing or ui.perfetto.dev
    inspector.plot_modules("modules.png")     # PNG charts (matplotlib)
    inspector.plot_arena("arena.png")

An instruction's ETDump events carry its index (the debug handle); the
ETRecord maps it to the FX node, module path and source line. Without an
ETRecord the rows still name the operator and, when the .pte recorded it,
the source line (the ETDump copies both from the program).

Delegates report their own nodes with delegate debug handles, which the
ETRecord's delegate sections map to FX nodes (delegate_events.py); the
summary lists them under their DELEGATE_CALL.
"""

from __future__ import annotations

import csv
import io
import os
import statistics
import sys
from dataclasses import asdict, dataclass, fields
from typing import IO, Any, Optional, Union

from torchedge.devtools.arena import arena_usage
from torchedge.devtools.delegate_events import DelegateEventRow, delegate_rows
from torchedge.devtools.etdump import ETDump, ProfileEvent, microseconds as _us, parse_etdump
from torchedge.devtools.etrecord import ETRecord, load_etrecord


@dataclass
class InstructionRow:
    method: str
    debug_handle: int             # instruction index
    kind: str                     # kernel, delegate, move, jump, free
    operator: str
    module_path: Optional[str]
    source: Optional[str]         # "file:line"
    nodes: str                    # FX node name(s)
    count: int                    # times it ran (over all recorded runs)
    min_us: float
    median_us: float
    max_us: float
    total_us: float               # sum over every call
    # median x count: the total without outliers (a preempted call on a busy
    # machine), what shares, sorting and the per-module sums use
    typical_us: float
    share: float                  # typical_us / the method's sum of typical_us


@dataclass
class GroupRow:
    key: str
    count: int
    total_us: float               # sum of the rows' typical_us
    share: float


class Inspector:
    def __init__(self, etdump: Union[str, os.PathLike, bytes, ETDump],
                 etrecord: Union[str, os.PathLike, ETRecord, None] = None) -> None:
        self.etdump = etdump if isinstance(etdump, ETDump) else parse_etdump(etdump)
        if etrecord is None or isinstance(etrecord, ETRecord):
            self.etrecord = etrecord
        else:
            self.etrecord = load_etrecord(etrecord)
        self.rows = self._instruction_rows()
        self.delegate_rows: list[DelegateEventRow] = delegate_rows(self.etdump, self.etrecord)

    # -- rows ---------------------------------------------------------------------

    def _facts(self, method: str, index: int) -> dict[str, Any]:
        facts: dict[str, Any] = {"kind": "", "operator": "", "module_path": None, "source": None,
                                 "nodes": ""}
        info = self.etdump.methods.get(method)
        if info is not None and index < len(info.instructions):
            ins = info.instructions[index]
            facts["kind"] = ins.kind
            facts["operator"] = ins.name or ins.kind
            if ins.source_file:
                facts["source"] = f"{ins.source_file}:{ins.source_line}"
        record = self.etrecord.instruction(method, index) if self.etrecord else None
        if record is not None:
            facts["kind"] = facts["kind"] or record["kind"]
            facts["operator"] = facts["operator"] or record.get("operator") or record["kind"]
            facts["module_path"] = record.get("module_path")
            facts["nodes"] = ",".join(record.get("nodes") or [])
            source = record.get("source")
            if source:
                facts["source"] = f"{source['file']}:{source['line']}"
        return facts

    def instruction_events(self) -> dict[tuple[str, int], list[ProfileEvent]]:
        """(method, instruction) -> its timed events over every run of a method
        (blocks named otherwise, such as "forward:intermediates", are left out)."""
        events: dict[tuple[str, int], list[ProfileEvent]] = {}
        for run in self.etdump.runs:
            if run.name not in self.etdump.methods:
                continue
            for e in run.profile_events:
                if e.instruction_id >= 0 and e.name.endswith("_CALL"):
                    events.setdefault((run.name, e.instruction_id), []).append(e)
        return events

    def _instruction_rows(self) -> list[InstructionRow]:
        unit = self.etdump.time_unit
        grouped = self.instruction_events()
        rows = []
        for (method, index), events in sorted(grouped.items()):
            times = [_us(e.duration, unit) for e in events]
            facts = self._facts(method, index)
            median = statistics.median(times)
            rows.append(InstructionRow(
                method, index, facts["kind"], facts["operator"], facts["module_path"],
                facts["source"], facts["nodes"], len(times), min(times), median, max(times),
                sum(times), median * len(times), 0.0))
        totals: dict[str, float] = {}
        for r in rows:
            totals[r.method] = totals.get(r.method, 0.0) + r.typical_us
        for r in rows:
            r.share = r.typical_us / totals[r.method] if totals[r.method] else 0.0
        return rows

    def run_times_us(self, method: str = "forward") -> list[float]:
        """Each recorded run's Method::execute time."""
        unit = self.etdump.time_unit
        return [_us(e.duration, unit) for run in self.etdump.runs_of(method)
                for e in run.profile_events if e.name == "Method::execute"]

    def grouped(self, by: str = "module_path", method: Optional[str] = None,
                depth: Optional[int] = None) -> list[GroupRow]:
        """Instruction time (typical_us) summed per module path ("module_path"),
        "operator" or "source"; `depth` keeps the first components of module
        paths ("features.17.block.2" at depth 2: "features.17")."""
        sums: dict[str, list[float]] = {}
        rows = [r for r in self.rows if method is None or r.method == method]
        for r in rows:
            key = getattr(r, by) or "(unknown)"
            if by == "module_path" and depth is not None and key != "(unknown)":
                key = ".".join(key.split(".")[:depth])
            entry = sums.setdefault(key, [0, 0.0])
            entry[0] += r.count
            entry[1] += r.typical_us
        total = sum(v[1] for v in sums.values()) or 1.0
        out = [GroupRow(k, int(v[0]), v[1], v[1] / total) for k, v in sums.items()]
        return sorted(out, key=lambda g: -g.total_us)

    # -- views ----------------------------------------------------------------------

    def to_dataframe(self):
        """The rows as a pandas DataFrame (ImportError without pandas)."""
        import pandas

        return pandas.DataFrame([asdict(r) for r in self.rows])

    def to_csv(self, path: Union[str, os.PathLike, None] = None) -> str:
        """Writes the rows as CSV to `path` (if given); returns the text."""
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow([f.name for f in fields(InstructionRow)])
        for r in self.rows:
            writer.writerow([getattr(r, f.name) for f in fields(InstructionRow)])
        text = buffer.getvalue()
        if path is not None:
            with open(os.fspath(path), "w", newline="") as f:
                f.write(text)
        return text

    def to_chrome_trace(self, path: Union[str, os.PathLike, None] = None) -> dict:
        """The runs as a Chrome-trace / Perfetto timeline (written to `path` if given)."""
        from torchedge.devtools.chrome_trace import chrome_trace, write_chrome_trace

        trace = chrome_trace(self.etdump, self.rows, self.delegate_rows)
        if path is not None:
            write_chrome_trace(trace, path)
        return trace

    def plot_modules(self, path: Union[str, os.PathLike], method: str = "forward",
                     depth: int = 2, top: int = 20) -> None:
        """Writes a PNG bar chart of the time per module (charts.plot_modules;
        needs matplotlib)."""
        from torchedge.devtools.charts import plot_modules

        groups = self.grouped("module_path", method, depth)
        what = f"module (first {depth} path components)"
        if all(g.key == "(unknown)" for g in groups):  # no ETRecord names modules
            groups, what = self.grouped("operator", method), "operator"
        plot_modules(path, groups, len(self.run_times_us(method)), what, method, top)

    def plot_arena(self, path: Union[str, os.PathLike], method: str = "forward") -> None:
        """Writes a PNG chart of the planned memory live over a run
        (charts.plot_arena; needs matplotlib)."""
        from torchedge.devtools.charts import plot_arena

        plot_arena(self.etdump, path, method)

    def print_summary(self, top: int = 20, file: Optional[IO[str]] = None) -> None:
        out = file or sys.stdout
        dump = self.etdump
        methods = sorted({r.method for r in self.rows})
        loads = [e for run in dump.runs if run.name == "load" for e in run.profile_events
                 if e.name == "Program::load_method"]
        for e in loads:
            print(f"load_method('{e.method}'): "
                  f"{_us(e.duration, dump.time_unit) / 1e3:.3f} ms", file=out)
        if dump.dropped_events or dump.dropped_debug_events:
            print(f"WARNING: incomplete ETDump: {dump.dropped_events} events and "
                  f"{dump.dropped_debug_events} intermediates were dropped (buffer full)", file=out)
        for method in methods:
            rows = [r for r in self.rows if r.method == method]
            runs = self.run_times_us(method)
            total = sum(r.typical_us for r in rows)
            print(f"\nmethod '{method}': {len(rows)} instructions ran, {len(runs)} runs", file=out)
            if runs:
                print(f"  run time: min {min(runs) / 1e3:.3f} ms, median "
                      f"{statistics.median(runs) / 1e3:.3f} ms, max {max(runs) / 1e3:.3f} ms",
                      file=out)
            info = dump.methods.get(method)
            if info is not None and info.arenas:
                print(f"  planned arenas: {sum(info.arenas.values())} bytes, peak live "
                      f"{max(arena_usage(info), default=0)} bytes", file=out)
            print(f"  slowest instructions (of {total / 1e3 / max(len(runs), 1):.3f} ms of "
                  "instruction time per run at the median; times per call):", file=out)
            print(f"  {'#':>4} {'operator':34} {'count':>5} {'min us':>9} {'median':>9} "
                  f"{'max':>9} {'share':>6}  module / source", file=out)
            for r in sorted(rows, key=lambda r: -r.typical_us)[:top]:
                where = " ".join(x for x in (r.module_path, r.source and _short(r.source)) if x)
                print(f"  {r.debug_handle:>4} {r.operator[:34]:34} {r.count:>5} {r.min_us:>9.1f} "
                      f"{r.median_us:>9.1f} {r.max_us:>9.1f} {100 * r.share:>5.1f}%  {where}",
                      file=out)
            self._print_delegates(method, out)
            for by, title, depth in (("module_path", "per module (2 levels)", 2),
                                     ("operator", "per operator", None)):
                groups = self.grouped(by, method, depth)
                if by == "module_path" and all(g.key == "(unknown)" for g in groups):
                    continue  # no ETRecord: module paths unknown
                print(f"  {title}:", file=out)
                for g in groups[:top]:
                    print(f"    {g.total_us / max(len(runs), 1):10.1f} us/run "
                          f"{100 * g.share:5.1f}%  x{g.count:<5} {g.key}", file=out)


    def _print_delegates(self, method: str, out: IO[str]) -> None:
        """Each DELEGATE_CALL's own events: its stages, then its nodes."""
        calls = [r for r in self.rows if r.method == method and r.kind == "delegate"]
        for call in calls:
            rows = [d for d in self.delegate_rows
                    if d.method == method and d.instruction == call.debug_handle]
            if not rows:
                continue
            print(f"  delegate call {call.debug_handle} ({call.operator}, median "
                  f"{call.median_us:.1f} us): {sum(r.is_node for r in rows)} nodes reported",
                  file=out)
            print(f"    {'handle':>6} {'name':24} {'operator':34} {'median us':>9}  module / source",
                  file=out)
            for r in sorted(rows, key=lambda r: (r.is_node, r.delegate_debug_handle)):
                handle = str(r.delegate_debug_handle) if r.is_node else "stage"
                time = "  (shared)" if r.shared else f"{r.median_us:>9.1f} "
                where = " ".join(x for x in (r.module_path, r.source and _short(r.source)) if x)
                print(f"    {handle:>6} {r.name[:24]:24} {r.operator[:34]:34} {time} {where}",
                      file=out)
            if any(r.shared for r in rows):
                print("    (shared): the delegate ran these nodes in one call; their time is "
                      "that stage's", file=out)


def _short(source: str) -> str:
    path, _, line = source.rpartition(":")
    return f"{os.path.basename(path)}:{line}"
