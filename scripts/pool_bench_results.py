"""Pools several `python -m torchedge.bench` runs into one ratio table.

    .venv/bin/python scripts/pool_bench_results.py out/run-a/results.json out/run-b/results.json ...

Each run's rounds interleave torchedge with its peers, so every run is a
fair comparison on its own; on a noisy shared host the runs still disagree.
This treats each run's result for a (model, configuration, threads) as one
more round of it and recombines them with the bench's own code
(`aggregate.combine`: the median over all their timed runs; `aggregate.ratios`:
best torchedge configuration / each peer against the issue targets), then
prints the bench's ratio table. Writes nothing.
"""

from __future__ import annotations

import collections
import json
import sys

from torchedge.bench.aggregate import combine, ratios
from torchedge.bench.configs import by_name
from torchedge.bench.report import ratio_table_text


def pooled_ratio_table(paths: list[str]) -> str:
    rounds = collections.defaultdict(list)  # (model, config, threads) -> results, run order
    for path in paths:
        with open(path) as f:
            for r in json.load(f)["results"]:
                rounds[(r["model"], r["config"], r["threads"])].append(r)
    configs = by_name(sorted({config for _, config, _ in rounds}))
    by_config = {c.name: c for c in configs}
    pooled = [combine(by_config[config], threads, None, results)
              for (_, config, threads), results in rounds.items()]
    return ratio_table_text({"ratios": ratios(pooled, configs)})


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(pooled_ratio_table(sys.argv[1:]))
