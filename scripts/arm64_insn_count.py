"""Guest instructions per inference of the ARM64 runtime under QEMU, per kernel
level, against the XNNPACK delegate (docs/benchmarks.md, "ARM64 instruction counts").

QEMU cannot time ARM code, so speed is compared by executed instructions:
the plugin tools/qemu_insn_count (built into build-arm64 by `make build-arm64`)
counts what runs between the markers torchedge_run puts around each timed
call (extension/runner/insn_markers.h), here one call after one warm-up call,
on one thread. Models (seeded random weights, small inputs so the emulation
finishes in minutes): MobileNetV2 and ResNet-18 at 1x3xSxS (--image, default
112), the BERT-style encoder (MiniLM-L6 sizes) at 1 x --tokens (default 32);
each float32 and static int8 (PT2E, torchedge's fused int8 ops), each also
with the XNNPACK delegate. Kernel levels: TORCHEDGE_ISA=scalar (the portable
micro-kernels of the optimized library), neon, dotprod, i8mm, on QEMU's `max`
core (which has them all).

    PYTHONPATH=python .venv/bin/python scripts/arm64_insn_count.py \\
        --arm64 build-arm64 --out build-arm64/insn_count [--markdown docs.md]

Prints the table (instructions per inference, in millions) and the two
ratios the ARM64 targets are stated in; writes counts.json beside the models.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import torch

MODELS = ("mobilenet_v2", "resnet18", "bert_minilm")
ISA_LEVELS = ("scalar", "neon", "dotprod", "i8mm")


@dataclass(frozen=True)
class Variant:
    """One exported program and the kernel levels it is counted at."""
    key: str              # file stem: <model>_<key>.pte
    precision: str        # "float32" | "int8" | "8da4w"
    delegate: bool        # XNNPACK
    levels: tuple[str, ...]
    models: tuple[str, ...] = MODELS  # the models it applies to


VARIANTS = (
    # float32 has no dot-product / i8mm kernels: neon is its top level.
    Variant("fp32", "float32", False, ("scalar", "neon")),
    # The delegate at the best level (XNNPACK picks its own kernels from cpuinfo).
    Variant("fp32_xnnpack", "float32", True, ("best",)),
    Variant("int8", "int8", False, ISA_LEVELS),
    Variant("int8_xnnpack", "int8", True, ("best",)),
    # 4-bit group-wise weights (group 32) with per-token int8 activations
    # (quantize_linear_weights(..., "8da4w"): torchedge::linear_8da4w_packed),
    # the other ops float32; linear layers only, so the encoder only.
    Variant("8da4w", "8da4w", False, ISA_LEVELS, ("bert_minilm",)),
    # PT2E's dynamic int8 flow (per-tensor activations quantized at run time:
    # torchedge::linear_dynamic_int8_packed), likewise linear layers only.
    Variant("int8_dynamic", "int8 dynamic", False, ISA_LEVELS, ("bert_minilm",)),
)


def model_inputs(name: str, image: int, tokens: int) -> tuple[torch.nn.Module, tuple]:
    import torchedge.models as models  # noqa: F401  (fills the registry)
    from torchedge.models.registry import get

    spec = get(name)
    gen = torch.Generator().manual_seed(0)
    if name == "bert_minilm":
        ids = torch.randint(0, 30522, (1, tokens), generator=gen)
        types = torch.zeros(1, tokens, dtype=torch.long)
        types[:, tokens // 2:] = 1
        return spec.module, (ids, types, torch.ones(1, tokens, dtype=torch.long))
    return spec.module, (torch.randn(1, 3, image, image, generator=gen),)


def lowerers() -> dict[str, Callable[[torch.nn.Module, tuple], object]]:
    from torchedge.bench import torchedge_lowering as tl

    def lower_8da4w(module: torch.nn.Module, inputs: tuple) -> object:
        import copy

        from torchedge.quantization.linear_quantization import quantize_linear_weights

        return tl.lower_portable(quantize_linear_weights(copy.deepcopy(module), "8da4w",
                                                         group_size=32), inputs)

    return {"fp32": tl.lower_portable,
            "8da4w": lower_8da4w,
            "int8_dynamic": tl.lower_int8_dynamic,
            "fp32_xnnpack": lambda m, x: tl.lower_xnnpack(m, x)[0],
            "int8": lambda m, x: tl.lower_int8(m, x)[0],
            "int8_xnnpack": lambda m, x: tl.lower_int8_xnnpack(m, x)[0]}


def export(out: Path, names: list[str], image: int, tokens: int, log: Callable[[str], None]) -> None:
    """Writes <model>_<variant>.pte and <model>_input<i>.npy (skipped when present)."""
    lower = lowerers()
    for name in names:
        module, inputs = model_inputs(name, image, tokens)
        for i, x in enumerate(inputs):
            np.save(out / f"{name}_input{i}.npy", x.numpy())
        for v in VARIANTS:
            path = out / f"{name}_{v.key}.pte"
            if name not in v.models or path.exists():
                continue
            start = time.monotonic()
            lower[v.key](module, inputs).save(str(path))
            log(f"exported {path.name} ({time.monotonic() - start:.0f} s)")


def emulator(arm64: Path) -> list[str]:
    libdir = Path(".arm64-sysroot/usr/lib/aarch64-linux-gnu").resolve()
    return ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-E",
            f"LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:{libdir}"]


def count(arm64: Path, pte: Path, inputs: list[Path], isa: str, timeout: float) -> int:
    """Instructions of one inference (after one warm-up) at kernel level `isa`."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "count.txt"
        cmd = emulator(arm64) + ["-plugin", f"{arm64 / 'qemu_insn_count.so'},outfile={result}",
                                 str(arm64 / "torchedge_run"), str(pte), "--threads", "1",
                                 "--warmup", "1", "--iterations", "1"]
        for x in inputs:
            cmd += ["--input", str(x)]
        env = dict(os.environ, QEMU_CPU="max")
        env.pop("TORCHEDGE_ISA", None)
        if isa != "best":  # "best": what best_arm_isa() detects
            env["TORCHEDGE_ISA"] = isa
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
        fields = dict(f.split("=") for f in result.read_text().split()[1:])
    if int(fields["regions"]) != 1:
        raise RuntimeError(f"{pte.name}: {fields['regions']} counted regions, expected 1")
    return int(fields["marked"])


def measure(arm64: Path, out: Path, names: list[str], timeout: float,
            log: Callable[[str], None]) -> dict[str, dict[str, int]]:
    """{model: {"<variant>/<isa>": instructions}}."""
    counts: dict[str, dict[str, int]] = {}
    for name in names:
        inputs = sorted(out.glob(f"{name}_input*.npy"))
        counts[name] = {}
        for v in VARIANTS:
            for isa in v.levels if name in v.models else ():
                start = time.monotonic()
                n = count(arm64, out / f"{name}_{v.key}.pte", inputs, isa, timeout)
                counts[name][f"{v.key}/{isa}"] = n
                log(f"{name} {v.key} {isa}: {n / 1e6:.1f} M instructions "
                    f"({time.monotonic() - start:.0f} s)")
    return counts


def _m(n: Optional[int]) -> str:
    return "-" if n is None else f"{n / 1e6:,.1f}"


def table(counts: dict[str, dict[str, int]]) -> str:
    """Markdown: one row per model and precision; millions of instructions.
    "ours / XNNPACK": float32 at NEON, int8 at dot-product (each precision's
    top level) over the delegate's count; the last column: float32 at NEON
    over the quantized program (int8, 8da4w, int8 dynamic) at dot-product."""
    rows = ["| model | precision | scalar | NEON | dot-product | i8mm | XNNPACK | "
            "ours / XNNPACK | fp32 NEON / quantized dot-product |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, c in counts.items():
        for v in (VARIANTS[0], VARIANTS[2], VARIANTS[4], VARIANTS[5]):
            key = v.key
            if name not in v.models or f"{key}/{v.levels[0]}" not in c:
                continue
            xnn = c.get(f"{key}_xnnpack/best")
            neon = c.get(f"{key}/neon")
            best = c.get(f"{key}/dotprod")
            ours = best if v.precision != "float32" else neon
            ratio = f"{ours / xnn:.2f}x" if ours and xnn else "-"
            gain = (f"{c['fp32/neon'] / best:.2f}x"
                    if v.precision != "float32" and best and c.get("fp32/neon") else "")
            rows.append(f"| {name} | {v.precision} | {_m(c.get(key + '/scalar'))} | {_m(neon)} | "
                        f"{_m(best)} | {_m(c.get(key + '/i8mm'))} | {_m(xnn)} | {ratio} | {gain} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arm64", type=Path, default=Path("build-arm64"),
                   help="the ARM64 build folder (torchedge_run, qemu_insn_count.so)")
    p.add_argument("--out", type=Path, default=Path("build-arm64/insn_count"),
                   help="where the exported models, inputs and counts.json go")
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--image", type=int, default=112, help="image side of the CNN inputs")
    p.add_argument("--tokens", type=int, default=32, help="sequence length of the encoder input")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per emulated run")
    p.add_argument("--report", action="store_true",
                   help="only print the table of the counts.json in --out (no runs)")
    args = p.parse_args(argv)
    if args.report:
        print(table(json.loads((args.out / "counts.json").read_text())["counts"]))
        return 0
    for needed in (args.arm64 / "torchedge_run", args.arm64 / "qemu_insn_count.so"):
        if not needed.exists():
            print(f"arm64_insn_count: {needed} is missing (make build-arm64)", file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    export(args.out, args.models, args.image, args.tokens, log)
    counts = measure(args.arm64.resolve(), args.out.resolve(), args.models, args.timeout, log)
    (args.out / "counts.json").write_text(json.dumps(
        {"image": args.image, "tokens": args.tokens, "counts": counts}, indent=1))
    print(table(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
