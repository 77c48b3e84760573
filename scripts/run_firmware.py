"""Runs one Cortex-M firmware image under QEMU and checks its output.

    python scripts/run_firmware.py build-cortex-m/NAME.elf --models-dir DIR --name NAME

qemu-system-arm -M mps2-an505 (Cortex-M33) with semihosting and
-icount shift=0 (one instruction per virtual nanosecond, so SysTick times
are deterministic). The firmware (targets/cortex_m/firmware_main.cpp)
prints its outputs as hex and a stats line; this script requires
  - int8 models: the output bit for bit equal to the host runtime's
    (DIR/NAME.host.bin; the int8 kernels' results do not depend on the ISA);
    float32: within 1e-5 of it (the host's SIMD kernels sum in another order),
  - and close to eager PyTorch's (DIR/NAME.eager.bin): float32 within
    atol 1e-4 + rtol 1e-4; int8 within 2 % of the reference's largest
    magnitude (the converted reference model computes in float, the
    kernels in exact int32 sums with one rounding; a shift of one output
    quantization step stays well inside),
  - the method allocator's pool (sized on the host by
    torchedge.memory.method_allocator) holds what load_method used, with at
    most 256 bytes to spare (the mirror counts one argument-list pointer
    more per call than the runtime keeps for calls whose out is dropped),
  - no heap request, and exit status 0.
Writes the stats as JSON next to the image (NAME.stats.json).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

QEMU = ["qemu-system-arm", "-M", "mps2-an505", "-nographic", "-icount", "shift=0",
        "-semihosting-config", "enable=on,target=native", "-kernel"]


def run(elf: Path, timeout: int, extra: list[str] = ()) -> tuple[int, str]:
    proc = subprocess.run([*QEMU[:-1], *extra, QEMU[-1], str(elf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    return proc.returncode, proc.stdout


def parse(text: str) -> tuple[list[tuple[str, int, bytes]], dict[str, str]]:
    outputs: list[tuple[str, int, bytes]] = []
    stats: dict[str, str] = {}
    chunks: list[str] = []
    for line in text.splitlines():
        if line.startswith("output "):
            if outputs:
                outputs[-1] = (*outputs[-1][:2], bytes.fromhex("".join(chunks)))
            _, _, dtype, numel = line.split()
            outputs.append((dtype, int(numel), b""))
            chunks = []
        elif line.startswith("hex "):
            chunks.append(line[4:].strip())
        elif line.startswith("stats "):
            stats = dict(item.split("=", 1) for item in line.split()[1:])
    if outputs:
        outputs[-1] = (*outputs[-1][:2], bytes.fromhex("".join(chunks)))
    return outputs, stats


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("elf")
    parser.add_argument("--models-dir", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--timeout", type=int, default=300)
    args = parser.parse_args(argv)
    elf, models = Path(args.elf), Path(args.models_dir)
    status, text = run(elf, args.timeout)
    outputs, stats = parse(text)
    failures = []
    if status != 0:
        failures.append(f"QEMU exited with {status}")
    if len(outputs) != 1 or outputs[0][0] != "float32":
        failures.append(f"expected one float32 output, found {[(d, n) for d, n, _ in outputs]}")
    else:
        got = np.frombuffer(outputs[0][2], dtype=np.float32)
        host = np.fromfile(models / f"{args.name}.host.bin", dtype=np.float32)
        eager = np.fromfile(models / f"{args.name}.eager.bin", dtype=np.float32)
        if got.shape != host.shape:
            failures.append(f"output has {got.size} values, the host runtime's {host.size}")
        elif "int8" in args.name and got.tobytes() != host.tobytes():
            failures.append(f"int8 output differs from the host runtime's "
                            f"(max |diff| {np.max(np.abs(got - host)):.3g})")
        elif np.max(np.abs(got - host)) > 1e-5 * max(1.0, float(np.max(np.abs(host)))):
            failures.append(f"float32 output differs from the host runtime's by "
                            f"{np.max(np.abs(got - host)):.3g} > 1e-5")
        stats["bit_equal_to_host"] = str(got.shape == host.shape and got.tobytes() == host.tobytes())
        if got.shape == eager.shape:
            err = float(np.max(np.abs(got - eager)))
            bound = (0.02 * float(np.max(np.abs(eager))) if "int8" in args.name
                     else 1e-4 + 1e-4 * float(np.max(np.abs(eager))))
            stats["max_abs_diff_vs_eager"] = f"{err:.3g}"
            if err > bound:
                failures.append(f"output differs from eager PyTorch by {err:.3g} > {bound:.3g}")
        else:
            failures.append(f"output has {got.size} values, eager {eager.size}")
    if stats.get("heap_requests", "0") != "0":
        failures.append(f"{stats['heap_requests']} heap requests")
    used, pool = (int(stats.get(k, -1)) for k in ("method_allocator_used", "method_allocator_bytes"))
    if not 0 <= used <= pool or pool - used > 256:
        failures.append(f"method allocator: {used} bytes used of a {pool}-byte pool sized from "
                        "the program (python/torchedge/memory/method_allocator.py)")
    elf.with_suffix(".stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    print(" ".join(f"{k}={v}" for k, v in stats.items()))
    if failures:
        print(text[-4000:])
        print(f"{args.name}: FAILED: " + "; ".join(failures))
        return 1
    print(f"{args.name}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
