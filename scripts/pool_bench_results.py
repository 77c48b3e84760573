"""Pools several `python -m torchedge.bench` runs into one ratio table.

    python3 scripts/pool_bench_results.py out/run-a/results.json out/run-b/results.json ...

Each run's rounds interleave torchedge with its peers, so every run is a
fair comparison on its own; on a noisy shared host the runs still disagree.
This takes every configuration's latencies from all the given runs, and
prints, per model and thread count, the median of the pooled latencies of
torchedge-optimized and its ratio to each peer's pooled median (bold where
the issue's target is met: <= 1.0 against ONNX Runtime and
ExecuTorch-XNNPACK, <= 0.5 against eager). Standard library only.
"""

from __future__ import annotations

import collections
import json
import statistics
import sys

MODELS = ["resnet18", "resnet50", "mobilenet_v2", "vit_tiny", "bert_minilm"]
PEERS = [("onnxruntime", 1.0), ("executorch-xnnpack", 1.0), ("eager", 0.5)]


def main(paths: list[str]) -> None:
    latencies = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            for r in json.load(f)["results"]:
                if r.get("status") == "ok":
                    latencies[(r["model"], r["config"], r["threads"])] += r["latencies_ms"]
    print("| model | threads | torchedge | / ORT | / ET | / eager |")
    print("|---|---|---|---|---|---|")
    for model in MODELS:
        for threads in (1, 2):
            ours = latencies.get((model, "torchedge-optimized", threads))
            if not ours:
                continue
            te = statistics.median(ours)
            row = [model, str(threads), f"{te:.1f}"]
            for peer, target in PEERS:
                theirs = latencies.get((model, peer, threads))
                if not theirs:
                    row.append("-")
                    continue
                pm = statistics.median(theirs)
                ratio = f"{te / pm:.2f}"
                row.append((f"**{ratio}**" if te / pm <= target else ratio) + f" ({pm:.1f})")
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
