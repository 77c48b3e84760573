"""The Cortex-M firmware's flash, RAM and execution cost, as a Markdown table.

    python scripts/cortex_m_report.py build-cortex-m [--models ds_cnn_kws_fp32 ...]

Per firmware image (targets/cortex_m, built by `make build-cortex-m`):
  flash      .text + .ARM.exidx + .data (what the image stores: runtime,
             kernels, the program's const array; arm-none-eabi-size -A)
  program    of which the embedded .pte
  RAM used   planned arenas + method allocator (used) + kernel scratch (peak)
             + stack high-water mark (painted at reset), as the firmware
             reports them (NAME.stats.json, scripts/run_firmware.py)
  RAM static .data + .bss + the reserved stack (what the image claims)
  instructions  executed between the marker calls around execute()
             (targets/cortex_m/qemu_plugin/insn_count.c, built here with the
             host's cc), and SysTick time under -icount shift=0 (one
             instruction per virtual ns; SysTick at the board's 20 MHz).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("ds_cnn_kws_fp32", "ds_cnn_kws_int8", "tiny_mlp_fp32", "tiny_mlp_int8")


def sections(elf: Path) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-size", "-A", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+(\d+)\s+\d+", out, re.M)}


def symbol(elf: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise SystemExit(f"{elf}: no symbol {name}")


def build_plugin(work: Path) -> Path:
    plugin = work / "libinsn_count.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", f"-I{ROOT}", "-o", str(plugin),
                    str(ROOT / "targets/cortex_m/qemu_plugin/insn_count.c")], check=True)
    return plugin


def count_instructions(elf: Path, plugin: Path, work: Path) -> int:
    log = work / f"{elf.stem}.insn.txt"
    begin, end = symbol(elf, "torchedge_marker_begin"), symbol(elf, "torchedge_marker_end")
    subprocess.run(["qemu-system-arm", "-M", "mps2-an505", "-nographic", "-icount", "shift=0",
                    "-semihosting-config", "enable=on,target=native",
                    "-plugin", f"{plugin},begin={begin:#x},end={end:#x}", "-d", "plugin",
                    "-D", str(log), "-kernel", str(elf)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=True)
    match = re.search(r"insn_count (\d+)", log.read_text())
    if not match:
        raise SystemExit(f"{elf}: the plugin saw no markers: {log.read_text()}")
    return int(match.group(1))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", help="the firmware build directory (build-cortex-m)")
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    args = parser.parse_args(argv)
    build = Path(args.build)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        plugin = build_plugin(Path(tmp))
        for name in args.models:
            elf = build / f"{name}.elf"
            s = sections(elf)
            stats = json.loads((build / f"{name}.stats.json").read_text())
            st = {k: int(v) for k, v in stats.items() if v.isdigit()}
            flash = s.get(".text", 0) + s.get(".ARM.exidx", 0) + s.get(".data", 0)
            used = st["arena_bytes"] + st["method_allocator_used"] + st["temp_peak"] + st["stack_high_water"]
            static = s.get(".data", 0) + s.get(".bss", 0) + s.get(".stack", 0)
            insns = count_instructions(elf, plugin, Path(tmp))
            rows.append((name, flash, st["program_bytes"], used, st, static, insns,
                         st["systick_cycles"] / 20e3))
    print("| firmware | flash | of which program | RAM used (arenas + method alloc + scratch + stack) "
          "| RAM static | instructions in execute() | SysTick ms (-icount shift=0) |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for name, flash, program, used, st, static, insns, ms in rows:
        print(f"| {name} | {flash / 1024:.1f} KiB | {program / 1024:.1f} KiB | {used / 1024:.1f} KiB "
              f"({st['arena_bytes']} + {st['method_allocator_used']} + {st['temp_peak']} + "
              f"{st['stack_high_water']}) | {static / 1024:.1f} KiB | {insns:,} | {ms:.2f} |")
    counts = {r[0]: r[6] for r in rows}
    for model in sorted({n.rsplit("_", 1)[0] for n in counts}):
        if f"{model}_fp32" in counts and f"{model}_int8" in counts:
            print(f"\n{model}: float32 / int8 executed instructions = "
                  f"{counts[f'{model}_fp32'] / counts[f'{model}_int8']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
