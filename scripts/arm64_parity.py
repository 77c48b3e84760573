"""Runs every .pte in a folder on the host torchedge_run and on the ARM64 one
(under qemu-aarch64) with the same seeded inputs and compares the outputs
(docs/arm64.md).

Float outputs pass when max |arm64 - host| <= rtol * max |host| (relative
to the tensor's peak: the two builds sum in different orders, so elements
near zero carry no relative meaning); integer and bool outputs must be
bit-exact. Prints one table row per model and method; exits 1 on any
mismatch or failed run.

    python scripts/arm64_parity.py --host build/torchedge_run \\
        --arm64 build-arm64/torchedge_run --emulator "qemu-aarch64 -L ..." build/test_models
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32,
           "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_,
           "float16": np.float16}
_OUTPUT = re.compile(r"^output (\d+): (\w+) \[([\d, ]*)\]", re.M)
_SCALAR = re.compile(r"^output (\d+): (int|float|bool) (\S+)$", re.M)


def run(cmd: list[str], prefix: Path, method: str, timeout: float) -> tuple[dict[int, np.ndarray], float]:
    """Runs one method once (seed 0) and reads back its tensor outputs."""
    start = time.monotonic()
    proc = subprocess.run(cmd + ["--method", method, "--seed", "0", "--warmup", "0",
                                 "--iterations", "1", "--save-outputs", str(prefix)],
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[-1:])} --method {method}: exit {proc.returncode}\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    outputs = {}
    for m in _OUTPUT.finditer(proc.stdout):
        index, dtype = int(m.group(1)), m.group(2)
        shape = [int(s) for s in m.group(3).split(",") if s.strip()]
        path = Path(f"{prefix}{index}.bin")
        if dtype not in _DTYPES or not path.exists():
            continue
        outputs[index] = np.fromfile(path, dtype=_DTYPES[dtype]).reshape(shape)
    for m in _SCALAR.finditer(proc.stdout):  # a constant method's int / float / bool
        kind = {"int": np.int64, "float": np.float64, "bool": np.int64}[m.group(2)]
        outputs[int(m.group(1))] = np.array([float(m.group(3))]).astype(kind)
    return outputs, seconds


def method_names(pte: Path) -> list[str]:
    try:
        import torchedge.runtime as rt
        return list(rt.load(str(pte)).method_names)
    except Exception:  # no bindings: the default method only
        return ["forward"]


def compare(host: np.ndarray, arm: np.ndarray, rtol: float) -> tuple[bool, str]:
    if host.shape != arm.shape or host.dtype != arm.dtype:
        return False, f"shape/dtype {arm.dtype}{list(arm.shape)} vs {host.dtype}{list(host.shape)}"
    if host.dtype.kind == "f":
        h, a = host.astype(np.float64), arm.astype(np.float64)
        if not np.array_equal(np.isnan(h), np.isnan(a)):
            return False, "NaN positions differ"
        finite = ~np.isnan(h)
        diff = float(np.max(np.abs(h[finite] - a[finite]), initial=0.0))
        peak = float(np.max(np.abs(h[finite]), initial=0.0))
        rel = diff / peak if peak > 0 else diff
        exact = "bit-exact" if np.array_equal(host.view(np.uint8), arm.view(np.uint8)) else f"rel {rel:.1e}"
        return rel <= rtol, exact
    same = np.array_equal(host, arm)
    return same, "bit-exact" if same else f"{int(np.sum(host != arm))} elements differ"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, help="folder of .pte files (make test-cpp writes build/test_models)")
    ap.add_argument("--host", type=Path, required=True, help="host torchedge_run")
    ap.add_argument("--arm64", type=Path, required=True, help="ARM64 torchedge_run")
    ap.add_argument("--emulator", required=True, help="command that runs an ARM64 binary")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per ARM64 run")
    ap.add_argument("--exclude", default="", help="comma-separated model names to skip")
    ap.add_argument("--max-mb", type=float, default=None,
                    help="skip .pte files larger than this (emulated time grows with the model)")
    args = ap.parse_args()

    skip = {s for s in args.exclude.split(",") if s}
    models = sorted(p for p in args.models.glob("*.pte") if p.stem not in skip)
    if args.max_mb is not None:
        large = [p for p in models if p.stat().st_size > args.max_mb * 1e6]
        models = [p for p in models if p not in large]
        if large:
            print(f"arm64_parity: skipping {len(large)} models over {args.max_mb:g} MB: "
                  f"{', '.join(p.stem for p in large)}")
    if not models:
        print(f"arm64_parity: no .pte files in {args.models}", file=sys.stderr)
        return 1
    emulator = shlex.split(args.emulator)
    failures = 0
    print(f"{'model':28} {'method':20} {'output':>6}  {'dtype':8} {'result':14} {'arm64 s':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for pte in models:
            for method in method_names(pte):
                try:
                    host, _ = run([str(args.host), str(pte)], Path(tmp) / "host", method, args.timeout)
                    arm, seconds = run(emulator + [str(args.arm64), str(pte)], Path(tmp) / "arm",
                                       method, args.timeout)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print(f"{pte.stem:28} {method:20} FAILED: {e}")
                    failures += 1
                    continue
                if set(host) != set(arm) or not host:
                    print(f"{pte.stem:28} {method:20} FAILED: outputs {sorted(arm)} vs {sorted(host)}")
                    failures += 1
                    continue
                for i in sorted(host):
                    ok, detail = compare(host[i], arm[i], args.rtol)
                    failures += not ok
                    print(f"{pte.stem:28} {method:20} {i:>6}  {str(host[i].dtype):8} "
                          f"{detail + ('' if ok else ' FAIL'):14} {seconds:8.1f}")
    print(f"arm64_parity: {len(models)} models, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
