"""Prints docs/vulkan.md's zoo tables: delegation, graph breaks and parity of
every zoo model on the Vulkan delegate (tests/backends/vulkan_zoo.py runs
each one, on lavapipe unless the environment picks a driver).

    .venv/bin/python scripts/vulkan_zoo_report.py [model ...]
    .venv/bin/python scripts/vulkan_zoo_report.py --float16 [model ...]

--float16 prints the float16 tables instead: each model exported in
float16 (`.half()`), and the float32 model lowered with force_fp16.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "backends"))

from vulkan_zoo import (run_zoo_model, run_zoo_model_float16, use_lavapipe_unless_chosen,  # noqa: E402
                        vulkan_unavailable_reason)


def _e(value) -> str:
    return "n/a" if value is None else f"{value:.2e}"


def float16_tables(names: list[str]) -> None:
    from torchedge import _C

    print(f"float16 features: {_C.vulkan_float16_features()}\n")
    for force in (False, True):
        title = "force_fp16 (float32 model, float16 on the device)" if force else \
            "float16 model (.half(), float16 inputs)"
        print(f"{title}\n")
        print("| model | delegated nodes | Vulkan partitions | kept on CPU | max abs vs eager fp32 | "
              "max rel vs eager fp32 | max rel vs eager fp16 | eager fp16 vs eager fp32 (max rel) | "
              "torchedge CPU fp16 vs eager fp32 (max rel) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name in names:
            r = run_zoo_model_float16(name, force_fp16=force, cpu_reference=not force)
            kept = Counter(op.replace("aten.", "") for op, _ in r.kept)
            kept_text = ", ".join(f"{op} x{n}" for op, n in sorted(kept.items())) or "none (full)"
            print(f"| {name} | {r.nodes - len(r.kept)} / {r.nodes} | {r.delegates} | {kept_text} | "
                  f"{r.max_abs:.2e} | {r.max_rel:.2e} | {_e(r.max_rel_fp16)} | "
                  f"{_e(r.eager_fp16_rel)} | {_e(r.cpu_fp16_rel)} |", flush=True)
        print()


def main(names: list[str]) -> int:
    use_lavapipe_unless_chosen()
    reason = vulkan_unavailable_reason()
    if reason:
        print(reason)
        return 1
    from torchedge import _C
    from torchedge.models.zoo_common import ZOO_MODELS

    print(f"device: {_C.vulkan_device()}\n")
    if names and names[0] == "--float16":
        float16_tables(names[1:] or ZOO_MODELS)
        return 0
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
