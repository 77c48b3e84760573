"""One measurement: one configuration, one model, one thread count, one child process.

The child loads the model (timed), warms up, times up to `iterations`
calls and writes its outputs; the parent records the child's peak RSS
(wait4), the machine's load average when it started, and how far the
outputs are from eager PyTorch's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np

from torchedge.bench.artifacts import ModelArtifacts
from torchedge.bench.child_process import run_child, thread_environment
from torchedge.bench.configs import Config
from torchedge.bench.environment import Environment
from torchedge.bench.runners import runner_for
from torchedge.bench.runners.python_child import InterpreterMissing


@dataclass(frozen=True)
class Plan:
    iterations: int = 20        # timed runs per measurement (pooled over rounds)
    warmup: int = 3             # untimed runs first (at least one)
    # ... and for at least this long: a freshly started process runs its first ~0.2 s
    # slower (MobileNetV2 at 2 threads: 8-18 ms for ~15 runs, then 7.1-7.5), and each
    # round starts a new process; the peers' Python children had seconds of imports first.
    warmup_seconds: float = 1.0
    min_iterations: int = 5     # a slow configuration still gets this many
    max_seconds: float = 120.0  # timing budget per measurement, past min_iterations
    timeout_s: float = 1800.0   # a child still running then is killed and reported

    def capped_for(self, estimate_ms: Optional[float]) -> "Plan":
        """This plan with iterations cut to fit max_seconds, given a latency estimate."""
        if not estimate_ms or self.max_seconds <= 0:
            return self
        fits = int(self.max_seconds * 1e3 / estimate_ms)
        return replace(self, iterations=max(self.min_iterations, min(self.iterations, fits)))


def measure_once(config: Config, art: ModelArtifacts, threads: int, plan: Plan, env: Environment,
                 estimate_ms: Optional[float] = None) -> dict[str, Any]:
    base = {"model": art.model, "config": config.name, "threads": threads,
            "precision": config.precision}
    if config.artifact in art.problems:
        status, reason = art.problems[config.artifact]
        return {**base, "status": status, "reason": reason}
    if config.artifact not in art.files:
        return {**base, "status": "unavailable", "reason": f"no {config.artifact} artifact was made"}
    plan = plan.capped_for(estimate_ms) if config.runner == "torchedge_cli" else plan
    runner = runner_for(config)
    scratch = tempfile.mkdtemp(prefix="bench-out-")
    try:
        outputs = os.path.join(scratch, "out")
        try:
            argv = runner.command(env, config, art.files[config.artifact], art.input_files, threads,
                                  plan, outputs)
        except InterpreterMissing as e:
            return {**base, "status": "unavailable", "reason": str(e)}
        load_average = os.getloadavg()[0]
        run = run_child(argv, plan.timeout_s, env=thread_environment(threads))
        failure = run.failure()
        if failure:
            return {**base, "status": "failed", "reason": failure, "command": run.argv}
        timing, arrays = runner.collect(run, outputs, art.reference)
    except Exception as e:  # an unreadable child result is a failed measurement, not a crash
        return {**base, "status": "failed", "reason": f"{type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # The child's own VmHWM; wait4's figure also counts the parent it was forked
    # from (see child_process.py), so it is only the fallback where /proc is missing.
    own_rss = timing.pop("peak_rss_bytes", -1)
    rss, rss_source = (own_rss, "VmHWM") if own_rss and own_rss > 0 else (run.peak_rss_bytes, "wait4")
    return {**base, "status": "ok", **timing, "peak_rss_bytes": rss, "rss_source": rss_source,
            "wall_s": run.wall_s, "load_average": load_average,
            "accuracy": compare_outputs(arrays, art.reference, config.tolerance)}


def compare_outputs(outputs: list[np.ndarray], reference: list[np.ndarray],
                    tolerance: float) -> dict[str, Any]:
    """max|out - ref| per output, relative to max|ref|; `ok` when all are within tolerance."""
    if len(outputs) != len(reference):
        return {"ok": False, "reason": f"{len(outputs)} outputs; eager has {len(reference)}"}
    worst_abs, worst_rel = 0.0, 0.0
    for i, (out, ref) in enumerate(zip(outputs, reference)):
        if out.shape != ref.shape:
            return {"ok": False, "reason": f"output {i} has shape {list(out.shape)}; "
                                           f"eager's is {list(ref.shape)}"}
        if ref.size == 0:
            continue
        diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
        if not np.isfinite(diff).all():
            return {"ok": False, "reason": f"output {i} has non-finite differences"}
        scale = max(float(np.abs(ref.astype(np.float64)).max()), 1e-30)
        worst_abs = max(worst_abs, float(diff.max()))
        worst_rel = max(worst_rel, float(diff.max()) / scale)
    return {"ok": worst_rel <= tolerance, "max_abs_err": worst_abs, "max_rel_err": worst_rel,
            "tolerance": tolerance}
