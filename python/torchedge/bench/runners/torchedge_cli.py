"""torchedge configurations: build/torchedge_run --json, outputs via --save-outputs.

The CLI hosts nothing but the runtime, so its peak RSS is the runtime's own.
It times `--iterations` runs after `--warmup` calls (and `--warmup-ms` of them); the parent caps the
iteration count for slow models from an earlier estimate (the CLI has no
time budget of its own).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from torchedge.bench.child_process import ChildRun
from torchedge.bench.configs import Config
from torchedge.bench.environment import Environment


def command(env: Environment, config: Config, artifact: str, input_files: list[str], threads: int,
            plan: Any, outputs: str) -> list[str]:
    argv = [str(env.cli), artifact, "--json", "--threads", str(threads),
            "--iterations", str(plan.iterations), "--warmup", str(plan.warmup),
            "--warmup-ms", str(round(plan.warmup_seconds * 1e3)),
            "--save-outputs", outputs, *config.child_args]
    for path in input_files:
        argv += ["--input", path]
    return argv


def collect(run: ChildRun, outputs: str, reference: list[np.ndarray]) -> tuple[dict[str, Any], list[np.ndarray]]:
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"torchedge_run printed no JSON line (stdout: {run.stdout[-500:]!r})")
    result = json.loads(lines[-1])
    timing = {"load_ms": result["load_ms"], "latencies_ms": result["latencies_ms"],
              "threads_effective": result.get("threads"),
              "peak_rss_bytes": result.get("peak_rss_bytes", -1)}
    return timing, _read_outputs(outputs, reference)


def _read_outputs(prefix: str, reference: list[np.ndarray]) -> list[np.ndarray]:
    """Output i's raw bytes, read with the eager output's dtype and shape."""
    arrays = []
    for i, ref in enumerate(reference):
        path = Path(f"{prefix}{i}.bin")
        if not path.is_file():
            break
        data = np.fromfile(path, dtype=ref.dtype)
        arrays.append(data.reshape(ref.shape) if data.size == ref.size else data)
    return arrays
