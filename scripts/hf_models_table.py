"""The Hugging Face architectures table of docs/hf-models.md.

    .venv/bin/python scripts/hf_models_table.py [--names bert vit ...] [--iterations 20]

For every architecture of tests/hf/hf_catalog.py (tiny random-weight configs):
export, parity with eager (max |runtime - eager| / max |eager|) with the default
kernels and with the XNNPACK delegate, how many operator nodes the delegate
took, and the median forward time of eager PyTorch and of the runtime (default
kernels), both on one thread in this process, through Python (the runtime's
figure includes the bindings' input/output copies, which dominate for the
smallest models). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "hf"))

import hf_catalog  # noqa: E402
import torchedge  # noqa: E402
from torchedge.backends.xnnpack import XnnpackPartitioner  # noqa: E402


def _median_ms(run: Callable[[], object], iterations: int) -> float:
    run()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _error(reference: torch.Tensor, actual: torch.Tensor) -> float:
    return ((actual - reference).abs().max() / reference.abs().max()).item()


def row(name: str, iterations: int) -> str:
    arch = hf_catalog.ARCHITECTURES[name]
    module, inputs = hf_catalog.build(name)
    with torch.no_grad():
        reference = module(*inputs)
    try:
        edge = torchedge.to_edge(torch.export.export(module, inputs))
    except Exception as error:  # the table reports it
        return f"| {name} | {arch.family} | no: {type(error).__name__}: {str(error)[:80]} | | | | | |"
    program = torchedge.runtime.load(edge.to_pte().buffer)
    delegated = edge.to_backend(XnnpackPartitioner())
    report = delegated.delegation_report
    share = f"{len(report.delegated())}/{len(report.delegated()) + len(report.rejected())}"
    xnnpack = torchedge.runtime.load(delegated.to_pte().buffer)
    default_error = _error(reference, program.forward(*inputs))
    xnnpack_error = _error(reference, xnnpack.forward(*inputs))
    with torch.no_grad():
        eager_ms = _median_ms(lambda: module(*inputs), iterations)
    runtime_ms = _median_ms(lambda: program.forward(*inputs), iterations)
    shapes = " ".join("x".join(map(str, x.shape)) for x in inputs)
    return (f"| {name} | {arch.family} | yes | {default_error:.1e} | {xnnpack_error:.1e} | {share} | "
            f"{eager_ms:.2f} | {runtime_ms:.2f} ({runtime_ms / eager_ms:.2f}x) | {shapes} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", nargs="*", default=list(hf_catalog.ARCHITECTURES))
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torchedge.runtime.set_num_threads(1)
    print("| architecture | family | exports | parity (default) | parity (XNNPACK) | "
          "nodes delegated | eager ms | torchedge ms | inputs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.names:
        print(row(name, args.iterations), flush=True)


if __name__ == "__main__":
    main()
