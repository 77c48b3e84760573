"""From per-round measurements to one result per (model, configuration, threads),
and the ratio of the best torchedge configuration to each peer.

Rounds pool their timed runs: the median is over every timed run of every
round. Load time is the median over rounds, peak RSS the largest, accuracy
the worst. A configuration that failed in any round is reported failed.
"""

from __future__ import annotations

import statistics
from typing import Any, Optional

from torchedge.bench.artifacts import ModelArtifacts
from torchedge.bench.configs import RATIO_PEERS, Config

# Targets: the best torchedge configuration's median latency / the peer's at
# most this (float against the float peers and eager; torchedge int8 no
# slower than either peer's int8, static or dynamic).
RATIO_TARGETS = {"onnxruntime": 1.0, "executorch-xnnpack": 1.0, "eager": 0.5,
                 "onnxruntime-int8": 1.0, "executorch-xnnpack-int8": 1.0,
                 "onnxruntime-int8-dynamic": 1.0, "executorch-xnnpack-int8-dynamic": 1.0}

# Models whose target against a peer differs from RATIO_TARGETS: the audio
# models' against eager is 0.7 (their 1-d convolutions and long-sequence
# attention are what eager's oneDNN does best).
MODEL_RATIO_TARGETS = {"hf_wav2vec2": {"eager": 0.7}, "hf_whisper_encoder": {"eager": 0.7}}


def ratio_target(model: str, peer: str) -> Optional[float]:
    """The largest torchedge / peer latency ratio that meets `model`'s target."""
    return MODEL_RATIO_TARGETS.get(model, {}).get(peer, RATIO_TARGETS.get(peer))


# The target for int8 against float in torchedge: best int8
# configuration at least this many times faster than the best float one.
INT8_SPEEDUP_TARGET = 1.8


def combine(config: Config, threads: int, art: Optional[ModelArtifacts],
            rounds: list[dict[str, Any]]) -> dict[str, Any]:
    first = rounds[0]
    base = {k: first[k] for k in ("model", "config", "threads", "precision")}
    bad = [r for r in rounds if r["status"] != "ok"]
    if bad:
        return {**base, "status": bad[0]["status"], "reason": bad[0]["reason"]}
    latencies = [x for r in rounds for x in r["latencies_ms"]]
    ordered = sorted(latencies)
    median = statistics.median(latencies)
    result = {
        **base,
        "status": "ok",
        "runtime": config.runtime,
        "rounds": len(rounds),
        "iterations": len(latencies),
        "median_ms": median,
        "min_ms": ordered[0],
        "p90_ms": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "latencies_ms": latencies,
        "load_ms": statistics.median(r["load_ms"] for r in rounds),
        "import_ms": _median_or_none([r.get("import_ms") for r in rounds]),
        "peak_rss_bytes": max(r["peak_rss_bytes"] for r in rounds),
        "threads_effective": first.get("threads_effective"),
        "runtime_version": first.get("runtime_version"),
        "load_average": [r["load_average"] for r in rounds],
        "accuracy": max((r["accuracy"] for r in rounds),
                        key=lambda a: (not a["ok"], a.get("max_rel_err", 0.0))),
        "host": config.host,
    }
    if not config.threads_apply and threads > 1:
        result["note"] = "single-threaded runtime: the thread count does not apply"
    if art is not None:
        result["file_bytes"] = art.file_bytes(config.artifact)
        if art.flops:
            result["gflops_per_s"] = art.flops / (median * 1e-3) / 1e9
    return result


def _median_or_none(values: list[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def ratios(results: list[dict[str, Any]], configs: list[Config]) -> list[dict[str, Any]]:
    """Per model, thread count and precision: best torchedge / each peer."""
    family = {c.name: c.family for c in configs}
    ok = [r for r in results if r["status"] == "ok"]
    keys = sorted({(r["model"], r["threads"], r["precision"]) for r in results},
                  key=lambda k: ([r["model"] for r in results].index(k[0]), k[1], k[2]))
    table = []
    for model, threads, precision in keys:
        group = [r for r in ok if (r["model"], r["threads"], r["precision"]) == (model, threads, precision)]
        ours = [r for r in group if family.get(r["config"]) == "torchedge" and r["accuracy"]["ok"]]
        best = min(ours, key=lambda r: r["median_ms"]) if ours else None
        row: dict[str, Any] = {"model": model, "threads": threads, "precision": precision,
                               "torchedge_best": best["config"] if best else None,
                               "torchedge_ms": best["median_ms"] if best else None, "peers": {}}
        for peer in RATIO_PEERS:
            match = [r for r in group if r["config"] == peer]
            if not match:
                continue
            entry = {"peer_ms": match[0]["median_ms"], "target": ratio_target(model, peer)}
            if best:
                entry["ratio"] = best["median_ms"] / match[0]["median_ms"]
                entry["meets_target"] = entry["target"] is None or entry["ratio"] <= entry["target"]
            row["peers"][peer] = entry
        table.append(row)
    return table


def int8_speedups(results: list[dict[str, Any]], table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model and thread count with both precisions measured: the best
    torchedge float configuration's latency / the best int8 one's (from
    `ratios`' rows), by medians and by minimums."""
    by_key = {(r["model"], r["config"], r["threads"]): r for r in results if r["status"] == "ok"}
    best = {(row["model"], row["threads"], row["precision"]): row["torchedge_best"]
            for row in table if row["torchedge_best"]}
    speedups = []
    for (model, threads, precision), int8_config in best.items():
        float_config = best.get((model, threads, "fp32"))
        if precision != "int8" or float_config is None:
            continue
        f = by_key[(model, float_config, threads)]
        q = by_key[(model, int8_config, threads)]
        speedup = f["median_ms"] / q["median_ms"]
        speedups.append({"model": model, "threads": threads,
                         "float_config": float_config, "float_ms": f["median_ms"],
                         "float_min_ms": f["min_ms"], "int8_config": int8_config,
                         "int8_ms": q["median_ms"], "int8_min_ms": q["min_ms"],
                         "speedup": speedup, "speedup_of_minimums": f["min_ms"] / q["min_ms"],
                         "meets_target": speedup >= INT8_SPEEDUP_TARGET})
    return speedups
