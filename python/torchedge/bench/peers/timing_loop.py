"""The measuring loop and result line shared by the Python-hosted children.

Standard library only (every child imports it beside its own runtime). A
child parses the common arguments, loads its artifact under `timed()`, then
calls `run_timed(call, ...)` and `emit(...)`:

    BENCH_RESULT {"load_ms": ..., "latencies_ms": [...], ...}

is printed as the last line on stdout; the parent parses that line. The
peak RSS it carries is this process image's own (Linux VmHWM, which starts
afresh at exec): the rusage the parent gets from wait4 would also count the
size of the parent it was forked from.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable

RESULT_PREFIX = "BENCH_RESULT "


def common_arguments(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--artifact", required=True, help="the model file this runtime loads")
    p.add_argument("--inputs", nargs="*", default=[], help=".npy files, one per model input, in order")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--warmup-seconds", type=float, default=0.0,
                   help="keep warming up until this long has passed as well")
    p.add_argument("--min-iterations", type=int, default=5,
                   help="never fewer timed runs than this, even past --max-seconds")
    p.add_argument("--max-seconds", type=float, default=0.0,
                   help="stop timing after this long once --min-iterations ran (0: no limit)")
    p.add_argument("--outputs", default="", help="write the outputs here (.npz) for the accuracy check")
    return p


def now_ms() -> float:
    return time.perf_counter() * 1e3


def run_timed(call: Callable[[], Any], iterations: int, warmup: int, min_iterations: int,
              max_seconds: float, warmup_seconds: float = 0.0) -> tuple[list[float], Any]:
    """(latencies in run order, last outputs): `warmup` untimed calls (at
    least one, and more until `warmup_seconds` have passed), then up to
    `iterations` timed ones."""
    start = now_ms()
    outputs = call()
    done = 1
    while done < warmup or now_ms() - start < warmup_seconds * 1e3:
        outputs = call()
        done += 1
    latencies: list[float] = []
    start = now_ms()
    for i in range(max(1, iterations)):
        if max_seconds > 0 and i >= min_iterations and now_ms() - start > max_seconds * 1e3:
            break
        t0 = now_ms()
        outputs = call()
        latencies.append(now_ms() - t0)
    return latencies, outputs


def peak_rss_bytes() -> int:
    """This process image's peak resident memory (VmHWM), or -1 where unknown."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def emit(**fields: Any) -> None:
    fields.setdefault("peak_rss_bytes", peak_rss_bytes())
    sys.stdout.write(RESULT_PREFIX + json.dumps(fields) + "\n")
    sys.stdout.flush()
