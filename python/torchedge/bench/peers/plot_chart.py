"""Child: draw out/bench/chart.png from results.json (needs matplotlib; .venv-peers).

    plot_chart.py --results results.json --out chart.png

One panel per model: median latency per configuration, one bar per thread
count, log scale (the portable kernels and the delegates are orders of
magnitude apart). Configurations that did not run are labelled, not drawn.
"""

import argparse
import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--results", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

with open(args.results) as f:
    data = json.load(f)
models = data["options"]["models"]
configs = [c["name"] for c in data["configs"]]
threads = data["options"]["threads"]
rows = {(r["model"], r["config"], r["threads"]): r for r in data["results"]}

columns = min(3, len(models))
panel_rows = math.ceil(len(models) / columns)
fig, axes = plt.subplots(panel_rows, columns, figsize=(max(7.0, 5.5 * columns), 4.2 * panel_rows), squeeze=False)
width = 0.8 / max(1, len(threads))
for index, model in enumerate(models):
    ax = axes[index // columns][index % columns]
    for k, t in enumerate(threads):
        xs, heights = [], []
        for c, config in enumerate(configs):
            r = rows.get((model, config, t))
            if r and r["status"] == "ok":
                xs.append(c + (k - (len(threads) - 1) / 2) * width)
                heights.append(r["median_ms"])
        ax.bar(xs, heights, width=width, label=f"{t} thread{'s' if t > 1 else ''}")
    for c, config in enumerate(configs):
        if not any(rows.get((model, config, t), {}).get("status") == "ok" for t in threads):
            ax.text(c, 0.02, "n/a", transform=ax.get_xaxis_transform(), ha="center", fontsize=8)
    ax.set_yscale("log")
    ax.set_title(model)
    ax.set_ylabel("median latency (ms, log)")
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels(configs, rotation=30, ha="right", fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
for index in range(len(models), panel_rows * columns):
    axes[index // columns][index % columns].axis("off")
fig.suptitle("torchedge bench: median latency per configuration (lower is better)", fontsize=11)
fig.tight_layout()
fig.savefig(args.out, dpi=110)
