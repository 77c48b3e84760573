"""The benchmark run: prepare each model's artifacts, measure every configuration
at every thread count in interleaved rounds, aggregate, and write the reports.

Interleaving: for one model and thread count, round 1 runs the
configurations in table order and round 2 in reverse order (and so on), each
round timing iterations/rounds calls, so slow drifts of the machine's load
fall on every configuration alike and the ratios hold on a noisy machine.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import shutil
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional

from torchedge.bench.aggregate import combine, ratios
from torchedge.bench.artifacts import ModelArtifacts, prepare_model
from torchedge.bench.configs import Config, by_name
from torchedge.bench.environment import REPO, Environment
from torchedge.bench.measure import Plan, measure_once

DEFAULT_MODELS = ["small_cnn", "transformer_block", "mobilenet_v2", "resnet18", "resnet50",
                  "vit_tiny", "bert_minilm"]


@dataclass
class BenchOptions:
    models: list[str] = field(default_factory=lambda: list(DEFAULT_MODELS))
    configs: list[str] = field(default_factory=list)  # empty: all
    threads: list[int] = field(default_factory=lambda: [1, 2])
    rounds: int = 2
    plan: Plan = field(default_factory=Plan)
    out_dir: Path = REPO / "out" / "bench"
    cli: Optional[str] = None
    peers_python: Optional[str] = None
    chart: bool = True


def run(options: BenchOptions, log: Callable[[str], None] = print) -> dict[str, Any]:
    env = Environment.discover(options.cli, options.peers_python)
    if not env.cli.is_file():
        raise FileNotFoundError(f"{env.cli} does not exist: build it first (make build)")
    configs = by_name(options.configs)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    built_cli = env.cli
    env = _pin_cli(env, options.out_dir)
    round_plan = replace(options.plan,
                         iterations=max(1, math.ceil(options.plan.iterations / options.rounds)))
    data: dict[str, Any] = {
        "schema": 1,
        "created": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": {**env.describe(), "cli_copied_from": str(built_cli)},
        "options": {**asdict(options), "out_dir": str(options.out_dir),
                    "plan": asdict(options.plan), "round_plan": asdict(round_plan)},
        "configs": [asdict(c) for c in configs],
        "models": {},
        "results": [],
    }
    for model in options.models:
        log(f"{model}: preparing artifacts")
        try:
            art: Optional[ModelArtifacts] = prepare_model(
                model, options.out_dir / "artifacts", {c.artifact for c in configs}, env, log)
            data["models"][model] = art.summary()
        except Exception as e:  # one model failing to export must not end the run
            art = None
            data["models"][model] = {"error": f"{type(e).__name__}: {e}"}
        for threads in options.threads:
            data["results"] += _measure_model(model, art, configs, threads, options.rounds,
                                              round_plan, env, data["models"][model], log)
    data["ratios"] = ratios(data["results"], configs)
    data["host"]["load_average_at_end"] = list(os.getloadavg())
    return data


def _pin_cli(env: Environment, out_dir: Path) -> Environment:
    """A copy of the CLI for this run: a rebuild of build/ during a long run
    (others share the checkout) must not change the program being measured."""
    pinned = out_dir / "bin" / env.cli.name
    pinned.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(env.cli, pinned)
    for tool in ("fma_peak", "int8_mac_peak"):  # the host's measured peaks sit beside the CLI
        path = env.cli.parent / tool
        if path.exists():
            shutil.copy2(path, pinned.parent / tool)
    return replace(env, cli=pinned)


def _measure_model(model: str, art: Optional[ModelArtifacts], configs: list[Config], threads: int,
                   rounds: int, plan: Plan, env: Environment, summary: dict[str, Any],
                   log: Callable[[str], None]) -> list[dict[str, Any]]:
    per_config: dict[str, list[dict[str, Any]]] = {c.name: [] for c in configs}
    for r in range(rounds):
        order = configs if r % 2 == 0 else list(reversed(configs))
        for config in order:
            done = per_config[config.name]
            if done and done[-1]["status"] != "ok":
                continue  # failed or unavailable: once is enough
            if art is None:
                done.append({"model": model, "config": config.name, "threads": threads,
                             "precision": config.precision, "status": "failed",
                             "reason": f"preparing the model failed: {summary.get('error')}"})
                continue
            estimate = _estimate_ms(done)
            m = measure_once(config, art, threads, plan, env, estimate)
            done.append(m)
            log(f"  {model} {config.name} x{threads} round {r + 1}: " + (
                f"median {_median(m['latencies_ms']):.2f} ms over {len(m['latencies_ms'])} runs"
                if m["status"] == "ok" else f"{m['status']}: {m['reason'].splitlines()[0][:160]}"))
    return [combine(c, threads, art, per_config[c.name]) for c in configs]


def _estimate_ms(done: list[dict[str, Any]]) -> Optional[float]:
    ok = [x for d in done if d["status"] == "ok" for x in d["latencies_ms"]]
    return _median(ok) if ok else None


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def write_outputs(data: dict[str, Any], out_dir: Path, env_peers_python: Optional[str],
                  chart: bool, log: Callable[[str], None] = print) -> dict[str, Path]:
    """results.json, results.md and (where matplotlib is installed) chart.png."""
    from torchedge.bench.report import markdown_report
    from torchedge.bench.child_process import run_child

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "markdown": out_dir / "results.md"}
    paths["json"].write_text(json.dumps(data, indent=1, default=str))
    paths["markdown"].write_text(markdown_report(data))
    if chart:
        python = env_peers_python or sys.executable
        chart_path = out_dir / "chart.png"
        run = run_child([python, str(Environment.peer_script("plot_chart.py")),
                         "--results", str(paths["json"]), "--out", str(chart_path)], timeout_s=300)
        if run.failure():
            log(f"chart not drawn ({python} needs matplotlib): {run.failure()}")
        else:
            paths["chart"] = chart_path
    return paths
