"""`make demo`: export built-in models, run them in the C++ runtime, compare with eager.

    python -m torchedge.demo                      # the default models
    python -m torchedge.demo --model small_cnn    # any built-in model by name
    python -m torchedge.demo --all
    python -m torchedge.demo --model minilm       # real MiniLM sentence embeddings

For each model and method: writes out/<model>.pte, runs it through the
`torchedge_run` CLI and through the Python bindings, and prints the output
summary, max |difference| against eager PyTorch, latency, file size and the
planned memory (arena versus the lower bound of simultaneously live bytes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
import warnings
from pathlib import Path

import torch

import torchedge
from torchedge import models

DEFAULT_MODELS = ("small_cnn", "transformer_block", "mlp")
REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "torchedge_run"


def _flat(value) -> list[torch.Tensor]:
    return [t for t in torch.utils._pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def _max_diff(reference, actual) -> float:
    pairs = zip(_flat(reference), _flat(actual))
    return max(((a.double() - b.double()).abs().max().item() if a.numel() else 0.0)
               for a, b in pairs)


def _summary(t: torch.Tensor) -> str:
    shape = "x".join(str(s) for s in t.shape) or "scalar"
    if t.dtype.is_floating_point:
        return f"{str(t.dtype).replace('torch.', '')}[{shape}] mean={t.float().mean():+.4f}"
    return f"{str(t.dtype).replace('torch.', '')}[{shape}] sum={int(t.long().sum())}"


def _run_cli(path: Path, inputs: tuple, method: str, workdir: Path,
             like: list[torch.Tensor]) -> tuple[str, list[torch.Tensor]]:
    """Runs the C++ CLI on saved inputs; returns its latency line and outputs
    (read back from its --save-outputs files, shaped like `like`)."""
    args = [str(CLI), str(path), "--method", method, "--iterations", "20",
            "--save-outputs", str(workdir / f"{path.stem}.{method}.out")]
    for i, x in enumerate(inputs):
        file = workdir / f"{path.stem}.{method}.in{i}.bin"
        file.write_bytes(x.contiguous().numpy().tobytes())
        args += ["--input", str(file)]
    result = subprocess.run(args, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"torchedge_run failed: {result.stderr.strip()}")
    latency = next(line for line in result.stdout.splitlines() if line.startswith("latency"))
    outputs = []
    for i, t in enumerate(like):
        data = (workdir / f"{path.stem}.{method}.out{i}.bin").read_bytes()
        flat = torch.frombuffer(bytearray(data), dtype=t.dtype) if data else torch.empty(0, dtype=t.dtype)
        outputs.append(flat.reshape(t.shape))
    return latency.replace("latency over 20 runs: ", ""), outputs


def demo_model(name: str, outdir: Path, iterations: int) -> list[dict]:
    spec = models.get(name)
    pte = torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods))
    path = outdir / f"{name}.pte"
    pte.save(path)
    program = torchedge.runtime.load(path)
    rows = []
    for method in spec.methods:
        inputs = spec.inputs(method)
        with torch.no_grad():
            reference = getattr(spec.module, method)(*inputs)
        actual = program.run_method(method, inputs)
        times = []
        for _ in range(iterations):
            start = time.perf_counter()
            program.run_method(method, inputs)
            times.append((time.perf_counter() - start) * 1e3)
        cli_line, cli_outputs = _run_cli(path, inputs, method, outdir, _flat(actual))
        report = pte.memory_plan[method]
        rows.append({
            "model": name, "method": method,
            "outputs": ", ".join(_summary(t) for t in _flat(actual)),
            "max_abs_diff": _max_diff(reference, actual),
            "cli_max_abs_diff": _max_diff(reference, cli_outputs),
            "python_median_ms": statistics.median(times),
            "cli": cli_line,
            "file_bytes": path.stat().st_size,
            "arena_bytes": report.arena_bytes,
            "lower_bound_bytes": report.lower_bound_bytes,
        })
    return rows


def main() -> None:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="built-in model name (repeatable)")
    parser.add_argument("--all", action="store_true", help="every built-in model")
    parser.add_argument("--out", default=str(REPO / "out"), help="where .pte files go")
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    if args.model == ["minilm"]:  # text -> embeddings, not a zoo model (torchedge.embedding.demo)
        import sys

        from torchedge.embedding import demo as embedding_demo

        sys.argv = [sys.argv[0], "--out", args.out]
        embedding_demo.main()
        return
    names = list(models.available()) if args.all else (args.model or list(DEFAULT_MODELS))
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    print(f"torchedge demo: {len(names)} model(s) -> {outdir}\n")
    for name in names:
        for row in demo_model(name, outdir, args.iterations):
            print(f"== {row['model']}.{row['method']}")
            print(f"   outputs      {row['outputs']}")
            print(f"   max |diff|   {row['max_abs_diff']:.3g} (Python bindings), "
                  f"{row['cli_max_abs_diff']:.3g} (CLI) versus eager PyTorch")
            print(f"   latency      python bindings median {row['python_median_ms']:.3f} ms; "
                  f"CLI {row['cli']}")
            print(f"   file         {row['file_bytes'] / 1024:.1f} KiB")
            print(f"   memory plan  arena {row['arena_bytes']} B, lower bound "
                  f"{row['lower_bound_bytes']} B")
    print("\nmodels available:", ", ".join(models.available()))


if __name__ == "__main__":
    main()
