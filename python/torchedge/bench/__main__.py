"""Command line: python -m torchedge.bench [options] (make bench runs it with defaults)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Union

from torchedge.bench.configs import CONFIGS, OPTIONAL_CONFIGS
from torchedge.bench.measure import Plan
from torchedge.bench.report import int8_speedup_text, mac_rates_line, ratio_table_text
from torchedge.bench.suite import DEFAULT_MODELS, BenchOptions, run, write_outputs


def parse_args(argv: list[str]) -> Union[BenchOptions, str]:
    p = argparse.ArgumentParser(prog="python -m torchedge.bench", description=__doc__)
    p.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                   help=f"zoo models (default: {' '.join(DEFAULT_MODELS)})")
    p.add_argument("--configs", nargs="+", default=[],
                   help=f"configurations (default all: {' '.join(c.name for c in CONFIGS)}; "
                        f"by name only: {' '.join(c.name for c in OPTIONAL_CONFIGS)})")
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--iterations", type=int, default=20, help="timed runs per configuration (pooled over rounds)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs per round")
    p.add_argument("--warmup-seconds", type=float, default=1.0,
                   help="untimed runs per round continue at least this long")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds per configuration")
    p.add_argument("--min-iterations", type=int, default=5,
                   help="timed runs a slow configuration still gets past --max-seconds")
    p.add_argument("--max-seconds", type=float, default=120.0,
                   help="timing budget per configuration and round (0: none)")
    p.add_argument("--out", default=None, help="output folder (default out/bench)")
    p.add_argument("--cli", default=None, help="torchedge_run binary (default build/torchedge_run)")
    p.add_argument("--peers-python", default=None, help="interpreter of the peers (default .venv-peers/bin/python)")
    p.add_argument("--no-chart", action="store_true")
    p.add_argument("--report-only", metavar="RESULTS_JSON", default=None,
                   help="only rewrite results.md and chart.png (next to it) from an earlier results.json")
    a = p.parse_args(argv)
    if a.report_only:
        return a.report_only
    if min(a.threads) < 1 or a.iterations < 1 or a.rounds < 1:
        p.error("--threads, --iterations and --rounds must be at least 1")
    options = BenchOptions(models=a.models, configs=a.configs, threads=a.threads, rounds=a.rounds,
                           plan=Plan(iterations=a.iterations, warmup=a.warmup,
                                     warmup_seconds=a.warmup_seconds,
                                     min_iterations=min(a.min_iterations, a.iterations),
                                     max_seconds=a.max_seconds),
                           cli=a.cli, peers_python=a.peers_python, chart=not a.no_chart)
    if a.out:
        options.out_dir = Path(a.out)
    return options


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    start = time.monotonic()
    if isinstance(options, str):  # --report-only
        results = Path(options)
        data = json.loads(results.read_text())
        paths = write_outputs(data, results.parent, data["host"]["peers_python"], chart=True)
    else:
        data = run(options)
        paths = write_outputs(data, options.out_dir, data["host"]["peers_python"], options.chart)
    print()
    print("torchedge best / peer, median latency (lower is better):")
    print(ratio_table_text(data))
    speedups = int8_speedup_text(data)
    if speedups:
        print()
        print("torchedge int8 against float (float / int8 median latency):")
        print(speedups)
        print(mac_rates_line(data["host"]))
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    print(f"benchmark took {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
