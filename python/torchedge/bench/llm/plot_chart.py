"""Child: draw out/bench-llm/chart.png from results.json (needs matplotlib;
run under .venv-peers/bin/python).

    plot_chart.py --results results.json --out chart.png

Four panels: pp128, pp512 and tg128 tokens/s (higher is better) and peak
RSS (lower is better); in each, one group of bars per thread count, one bar
per engine at its median, a black tick at its best run. Engines that did not
run are labelled, not drawn.
"""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PANELS = (("pp128_tok_s", "prefill, 128-token prompt (tok/s)"),
          ("pp512_tok_s", "prefill, 512-token prompt (tok/s)"),
          ("tg128_tok_s", "decode, 128 tokens (tok/s)"),
          ("peak_rss_mb", "peak RSS (MB, lower is better)"))
ENGINES = ("torchedge", "llama.cpp", "upstream ExecuTorch")

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--results", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()

with open(args.results) as f:
    data = json.load(f)
threads = data["options"]["threads"]
rows = {(r["engine"], r["threads"]): r for r in data["rows"]}

fig, axes = plt.subplots(1, len(PANELS), figsize=(4.6 * len(PANELS), 4.2), squeeze=False)
width = 0.8 / len(ENGINES)
for ax, (metric, title) in zip(axes[0], PANELS):
    for k, engine in enumerate(ENGINES):
        for i, t in enumerate(threads):
            x = i + (k - (len(ENGINES) - 1) / 2) * width
            row = rows.get((engine, t), {})
            median = row.get("median", {}).get(metric)
            if row.get("status") != "ok" or median is None:
                ax.text(x, 0.02, "n/a", transform=ax.get_xaxis_transform(), ha="center", fontsize=8)
                continue
            ax.bar(x, median, width=width, color=f"C{k}", label=engine if i == 0 else None)
            ax.plot([x - width / 3, x + width / 3], [row["best"][metric]] * 2, color="black", lw=1)
            ax.text(x, median, f"{median:.0f}", ha="center", va="bottom", fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_xticks(range(len(threads)))
    ax.set_xticklabels([f"{t} thread{'s' if t > 1 else ''}" for t in threads])
    ax.grid(axis="y", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8)
fig.suptitle("bench-llm: SmolLM2-135M-Instruct (bars: median; ticks: best run)", fontsize=11)
fig.tight_layout()
fig.savefig(args.out, dpi=110)
