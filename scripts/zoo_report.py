"""The model zoo table: export, runtime parity, portable latency, memory, size.

    .venv/bin/python scripts/zoo_report.py                    # every zoo model
    .venv/bin/python scripts/zoo_report.py --models resnet18 vit_tiny --json zoo.json

For each model of torchedge.models.zoo_common.ZOO_MODELS: lowers it with
torchedge.lower (timed), lists the operators the program calls that the
runtime has no kernel for, runs it through torchedge.runtime on the example
inputs and compares with eager (max |runtime - eager| / max(1, max |eager|),
pass at 1e-4), times the runtime (median of --runs runs after one warm-up;
3 for models whose warm-up takes over a second) and eager PyTorch for
reference, and reports the planned arena against its lower bound and the file
size. Prints a Markdown table, then per model the missing operators and errors.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Optional

import torch

import torchedge
from torchedge import models
from torchedge.models.zoo_common import PARITY_TOLERANCE, ZOO_MODELS, parity_error

SLOW_WARMUP_S = 1.0   # models slower than this get 3 timed runs


@dataclass
class ZooRow:
    model: str
    parameters: int = 0
    export_ok: bool = False
    export_s: Optional[float] = None
    file_bytes: Optional[int] = None
    arena_bytes: Optional[int] = None
    lower_bound_bytes: Optional[int] = None
    operators: list[str] = field(default_factory=list)
    missing_kernels: list[str] = field(default_factory=list)
    parity: Optional[float] = None     # max relative difference; None when it did not run
    runtime_ms: Optional[float] = None  # median portable latency
    runs: int = 0
    eager_ms: Optional[float] = None
    error: Optional[str] = None        # first failure: compiler or runtime message

    @property
    def passed(self) -> bool:
        return self.parity is not None and self.parity <= PARITY_TOLERANCE


def _median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def evaluate(name: str, runs: int, registered: set[str]) -> ZooRow:
    """Lowers, runs and measures one zoo model; failures land in row.error."""
    row = ZooRow(name)
    spec = models.get(name)
    row.parameters = sum(p.numel() for p in spec.module.parameters())
    inputs = spec.inputs()
    start = time.perf_counter()
    try:
        pte = torchedge.lower(spec.module, spec.lower_inputs())
    except Exception as e:  # noqa: BLE001 - the report shows every compiler failure
        row.export_s = time.perf_counter() - start
        row.error = f"export: {type(e).__name__}: {e}"
        return row
    row.export_s = time.perf_counter() - start
    row.export_ok = True
    row.file_bytes = len(pte.buffer)
    plan = pte.memory_plan["forward"]
    row.arena_bytes, row.lower_bound_bytes = plan.arena_bytes, plan.lower_bound_bytes
    row.operators = sorted(set(pte.operators["forward"]))
    row.missing_kernels = [op for op in row.operators if op not in registered]

    with torch.no_grad():
        reference = spec.module(*inputs)
        row.eager_ms = _median_ms(lambda: spec.module(*inputs), 3)
    try:
        program = torchedge.runtime.load(pte.buffer)
        start = time.perf_counter()
        actual = program.forward(*inputs)   # warm-up: also loads the method
        warmup = time.perf_counter() - start
        row.parity = parity_error(reference, actual)
        row.runs = 3 if warmup > SLOW_WARMUP_S else runs
        row.runtime_ms = _median_ms(lambda: program.forward(*inputs), row.runs)
    except Exception as e:  # noqa: BLE001 - missing kernels and runtime errors are reported
        row.error = f"runtime: {type(e).__name__}: {e}"
    return row


def _mib(n: Optional[int]) -> str:
    return "-" if n is None else f"{n / 2**20:.1f} MiB"


def _status(row: ZooRow) -> str:
    if not row.export_ok:
        return "export error"
    if row.parity is None:
        missing = len(row.missing_kernels)
        if not missing:
            return "runtime error"
        return f"missing {missing} kernel{'s' if missing > 1 else ''}"
    return "pass" if row.passed else "parity FAIL"


def markdown(rows: list[ZooRow]) -> str:
    lines = [
        "| model | params | export | export s | status | parity (max rel diff) "
        "| portable ms (runs) | eager ms | arena | lower bound | file |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        parity = "-" if r.parity is None else f"{r.parity:.2e}"
        latency = "-" if r.runtime_ms is None else f"{r.runtime_ms:.1f} ({r.runs})"
        eager = "-" if r.eager_ms is None else f"{r.eager_ms:.1f}"
        lines.append(
            f"| {r.model} | {r.parameters / 1e6:.2f}M | {'yes' if r.export_ok else 'no'} "
            f"| {r.export_s:.1f} | {_status(r)} | {parity} | {latency} | {eager} "
            f"| {_mib(r.arena_bytes)} | {_mib(r.lower_bound_bytes)} | {_mib(r.file_bytes)} |")
    details = [f"- **{r.model}**: missing kernels: {', '.join(r.missing_kernels) or 'none'}"
               + (f"\n  - error: `{r.error.strip().splitlines()[0]}`"
                  + "".join(f"\n    {line}" for line in r.error.strip().splitlines()[1:])
                  if r.error else "")
               for r in rows if r.missing_kernels or r.error]
    if details:
        lines += ["", "Missing kernels and errors:", ""] + details
    missing = sorted({op for r in rows for op in r.missing_kernels})
    if missing:
        lines += ["", f"All missing kernels ({len(missing)}): {', '.join(missing)}"]
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=ZOO_MODELS, default=list(ZOO_MODELS))
    parser.add_argument("--runs", type=int, default=10,
                        help="timed runtime runs per model (3 for slow models)")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)  # eager reference on one thread, as the portable runtime runs
    registered = set(torchedge.runtime.registered_kernels())
    rows = []
    for name in args.models:
        rows.append(evaluate(name, args.runs, registered))
        print(f"{name}: {_status(rows[-1])}", file=sys.stderr, flush=True)
    print(markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) | {"passed": r.passed} for r in rows], f, indent=2)
    return 0 if all(r.passed for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
