"""Prints docs/vulkan.md's zoo tables: delegation, graph breaks and parity of
every zoo model on the Vulkan delegate (tests/backends/vulkan_zoo.py runs
each one, on lavapipe unless the environment picks a driver).

    .venv/bin/python scripts/vulkan_zoo_report.py [model ...]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "backends"))

from vulkan_zoo import run_zoo_model, use_lavapipe_unless_chosen, vulkan_unavailable_reason  # noqa: E402


def main(names: list[str]) -> int:
    use_lavapipe_unless_chosen()
    reason = vulkan_unavailable_reason()
    if reason:
        print(reason)
        return 1
    from torchedge import _C
    from torchedge.models.zoo_common import ZOO_MODELS

    print(f"device: {_C.vulkan_device()}\n")
    print("| model | input | delegated nodes | Vulkan partitions | graph breaks | kept on CPU "
          "| max abs error | max rel error | parity (zoo bound 1e-4) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names or ZOO_MODELS:
        r = run_zoo_model(name)
        kept = Counter(op.replace("aten.", "") for op, _ in r.kept)
        kept_text = ", ".join(f"{op} x{n}" for op, n in sorted(kept.items())) or "none (full)"
        shapes = " ".join("x".join(map(str, s)) for s in r.input_shapes)
        print(f"| {name} | {shapes} | {r.nodes - len(r.kept)} / {r.nodes} | {r.delegates} | "
              f"{r.graph_breaks} | {kept_text} | {r.max_abs:.2e} | {r.max_rel:.2e} | "
              f"{r.error:.2e} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
