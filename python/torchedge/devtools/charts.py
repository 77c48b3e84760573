"""PNG charts of an Inspector: time per module, and planned memory over a run.

    inspector.plot_modules("modules.png")     # horizontal bars, us per run
    inspector.plot_arena("arena.png")         # bytes live in the planned arenas over one run

matplotlib is optional: it is imported when a chart is drawn, with the Agg
backend (no display needed), and an ImportError says how to install it.
"""

from __future__ import annotations

import os
from typing import Any, Sequence, Union

from torchedge.devtools.arena import arena_usage
from torchedge.devtools.etdump import ETDump, microseconds


def _pyplot():
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError("PNG charts need matplotlib: pip install matplotlib "
                          "(requirements.txt pins the tested version)") from error
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as pyplot

    return pyplot


def plot_modules(path: Union[str, os.PathLike], groups: Sequence[Any], runs: int, what: str,
                 method: str = "forward", top: int = 20) -> None:
    """Writes a PNG bar chart of instruction time per group (Inspector.grouped
    rows: key, total_us, share, largest first): the `top` largest, microseconds
    per run at the median over `runs` runs; `what` names the grouping."""
    runs = max(runs, 1)
    groups = list(groups)[:top][::-1]  # largest on top
    if not groups:
        raise ValueError(f"the ETDump holds no timed instructions of method '{method}'")
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(9, 0.35 * len(groups) + 1.5))
    try:
        values = [g.total_us / runs for g in groups]
        axes.barh(range(len(groups)), values, color="#4C72B0")
        axes.set_yticks(range(len(groups)))
        axes.set_yticklabels([g.key for g in groups], fontsize=8)
        for i, (g, v) in enumerate(zip(groups, values)):
            axes.text(v, i, f" {v:.0f} us ({100 * g.share:.1f}%)", va="center", fontsize=7)
        axes.set_xlabel("microseconds per run (median x count)")
        axes.set_title(f"'{method}': time per {what}")
        axes.set_xlim(0, max(values) * 1.25 or 1)
        figure.tight_layout()
        figure.savefig(os.fspath(path), format="png", dpi=100)
    finally:
        pyplot.close(figure)


def plot_arena(dump: ETDump, path: Union[str, os.PathLike], method: str = "forward") -> None:
    """Writes a PNG step chart of the bytes live in the planned arenas while
    one run of `method` executes (arena_usage over the instructions, placed
    at their start times in the fastest recorded run; at their index when
    no run was timed), with the planned arena size as a line."""
    info = dump.methods.get(method)
    if info is None:
        raise ValueError(f"the ETDump describes no method '{method}'")
    usage = arena_usage(info)
    if not usage:
        raise ValueError(f"method '{method}' has no instructions")
    starts, label = _instruction_starts_ms(dump, method, len(usage))
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(9, 4))
    try:
        mib = [u / (1 << 20) for u in usage]
        axes.step(starts, mib, where="post", color="#DD8452", label="live tensors")
        axes.fill_between(starts, mib, step="post", alpha=0.3, color="#DD8452")
        planned = sum(info.arenas.values()) / (1 << 20)
        axes.axhline(planned, color="#555555", linestyle="--", label=f"planned {planned:.2f} MiB")
        axes.set_xlabel(label)
        axes.set_ylabel("MiB")
        axes.set_ylim(0, max(planned, max(mib)) * 1.1 or 1)
        axes.set_title(f"'{method}': planned memory live over a run (peak {max(mib):.2f} MiB)")
        axes.legend(loc="upper right", fontsize=8)
        figure.tight_layout()
        figure.savefig(os.fspath(path), format="png", dpi=100)
    finally:
        pyplot.close(figure)


def _instruction_starts_ms(dump: ETDump, method: str, n: int) -> tuple[list[float], str]:
    """Each instruction's start in the fastest complete run (ms from its
    Method::execute start), or its index when no run has every instruction."""
    best = None
    for run in dump.runs_of(method):
        execute = [e for e in run.profile_events if e.name == "Method::execute"]
        starts = {e.instruction_id: e.start for e in run.profile_events if e.instruction_id >= 0}
        if len(execute) != 1 or any(i not in starts for i in range(n)):
            continue
        if best is None or execute[0].duration < best[0].duration:
            best = (execute[0], starts)
    if best is None:
        return [float(i) for i in range(n)], "instruction"
    execute, starts = best
    return ([microseconds(starts[i] - execute.start, dump.time_unit) / 1e3 for i in range(n)],
            "milliseconds into the run (each instruction at its start)")
