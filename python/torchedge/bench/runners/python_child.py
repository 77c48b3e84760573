"""Python-hosted configurations: a script under peers/ run by its interpreter.

The script prints its timings as one `BENCH_RESULT {json}` line (see
peers/timing_loop.py) and writes its outputs to an .npz.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from torchedge.bench.child_process import ChildRun
from torchedge.bench.configs import Config
from torchedge.bench.environment import Environment

RESULT_PREFIX = "BENCH_RESULT "  # peers/timing_loop.py writes it


class InterpreterMissing(Exception):
    pass


def parse_result_line(stdout: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if not lines:
        raise RuntimeError(f"the child printed no result line (stdout tail: {stdout[-500:]!r})")
    return json.loads(lines[-1][len(RESULT_PREFIX):])


def interpreter(env: Environment, config: Config) -> str:
    if config.interpreter == "product":
        return env.product_python
    if env.peers_python is None:
        raise InterpreterMissing(env.peers_missing_reason)
    return env.peers_python


def command(env: Environment, config: Config, artifact: str, input_files: list[str], threads: int,
            plan: Any, outputs: str) -> list[str]:
    return [interpreter(env, config), str(env.peer_script(config.runner)),
            "--artifact", artifact, "--inputs", *input_files, "--threads", str(threads),
            "--iterations", str(plan.iterations), "--warmup", str(plan.warmup),
            "--warmup-seconds", str(plan.warmup_seconds),
            "--min-iterations", str(plan.min_iterations), "--max-seconds", str(plan.max_seconds),
            "--outputs", outputs + ".npz", *config.child_args]


def collect(run: ChildRun, outputs: str, reference: list[np.ndarray]) -> tuple[dict[str, Any], list[np.ndarray]]:
    result = parse_result_line(run.stdout)
    with np.load(outputs + ".npz") as saved:
        arrays = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    return result, arrays
