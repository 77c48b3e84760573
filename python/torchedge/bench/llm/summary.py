"""From the samples of every round to the figures reported: median and
best per engine and thread count, torchedge / llama.cpp ratios, and decode
as a fraction of the memory-bandwidth ceiling.

Samples are kept per metric in a row dict:
    {"engine": "llama.cpp", "threads": 1, "status": "ok",
     "samples": {"pp128_tok_s": [...], "pp512_tok_s": [...], "tg128_tok_s": [...],
                 "ttft_ms": [...], "peak_rss_mb": [...]}, "file_mb": 93.8, ...}
"""

from __future__ import annotations

import statistics
from typing import Any, Optional

# metric -> True when higher is better
METRICS = {"pp128_tok_s": True, "pp512_tok_s": True, "tg128_tok_s": True,
           "ttft_ms": False, "peak_rss_mb": False}


def summarize_row(row: dict[str, Any]) -> dict[str, Any]:
    """The row with "median" and "best" (fastest, or smallest) for each
    metric that has samples."""
    medians, bests = {}, {}
    for metric, higher_is_better in METRICS.items():
        samples = row.get("samples", {}).get(metric) or []
        if not samples:
            continue
        medians[metric] = statistics.median(samples)
        bests[metric] = max(samples) if higher_is_better else min(samples)
    return {**row, "median": medians, "best": bests}


def ratios(rows: list[dict[str, Any]], threads: list[int], peer: str) -> list[dict[str, Any]]:
    """torchedge / `peer` per thread count and metric, of medians (and of
    bests). Above 1 is torchedge faster for tok/s, and larger for TTFT,
    peak RSS and file size."""
    by_key = {(r["engine"], r["threads"]): r for r in rows}
    out = []
    for t in threads:
        ours, theirs = by_key.get(("torchedge", t)), by_key.get((peer, t))
        if not ours or not theirs or ours.get("status") != "ok" or theirs.get("status") != "ok":
            continue
        entry: dict[str, Any] = {"peer": peer, "threads": t, "median": {}, "best": {}}
        for kind in ("median", "best"):
            for metric in METRICS:
                a, b = ours[kind].get(metric), theirs[kind].get(metric)
                if a is not None and b:
                    entry[kind][metric] = a / b
        if ours.get("file_mb") and theirs.get("file_mb"):
            entry["file_mb"] = ours["file_mb"] / theirs["file_mb"]
        out.append(entry)
    return out


def decode_ceiling(rows: list[dict[str, Any]], bandwidth: dict[str, dict]) -> list[dict[str, Any]]:
    """Per engine and thread count: weight bytes read per decoded token (the
    model file's size: the .pte's constants, the GGUF's tensors) times the
    median decode rate, against the measured read bandwidth at that thread
    count. 1.0 would be decode at the speed of memory."""
    out = []
    for r in rows:
        rate = r.get("median", {}).get("tg128_tok_s")
        measured: Optional[dict] = bandwidth.get(str(r["threads"]))
        if r.get("status") != "ok" or not rate or not r.get("weight_bytes"):
            continue
        achieved = r["weight_bytes"] * rate / 1e9
        entry = {"engine": r["engine"], "threads": r["threads"], "weight_bytes": r["weight_bytes"],
                 "ms_per_token": 1e3 / rate, "achieved_gb_s": achieved}
        if measured and measured.get("read_gb_s"):
            entry["bandwidth_gb_s"] = measured["read_gb_s"]
            entry["fraction_of_ceiling"] = achieved / measured["read_gb_s"]
            entry["ceiling_tok_s"] = measured["read_gb_s"] * 1e9 / r["weight_bytes"]
        out.append(entry)
    return out
