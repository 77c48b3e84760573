"""File sizes with and without program-data separation (docs/program-data-separation.md).

    python scripts/ptd_size_report.py [--models mobilenet_v2 bert_minilm]

For each zoo model: the single .pte (to_pte()), then to_pte(external_data=True)'s
.pte and .ptd, with the same (default) options otherwise. Prints a Markdown table.
"""

from __future__ import annotations

import argparse

import torch

import torchedge
from torchedge import models


def sizes(name: str) -> tuple[int, int, int, int]:
    """(single .pte, split .pte, .ptd, number of .ptd entries) in bytes."""
    from torchedge.serialize.flat_tensor import deserialize_ptd

    spec = models.get(name)
    edge = torchedge.to_edge(torch.export.export(spec.module, spec.inputs("forward")))
    single = edge.to_pte()
    split = edge.to_pte(external_data=True)
    return len(single.buffer), len(split.buffer), len(split.data), \
        len(deserialize_ptd(split.data).entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["mobilenet_v2", "bert_minilm"])
    args = parser.parse_args()
    print("| model | .pte alone | split .pte | .ptd | .pte + .ptd | overhead | .ptd entries |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.models:
        single, pte, ptd, entries = sizes(name)
        total = pte + ptd
        print(f"| {name} | {single:,} | {pte:,} | {ptd:,} | {total:,} | "
              f"{total - single:+,} ({100 * (total - single) / single:+.2f} %) | {entries} |")


if __name__ == "__main__":
    main()
