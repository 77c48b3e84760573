"""Generates the registration of a selective build from an op list.

    python scripts/generate_selected_kernels.py --ops ops.yaml --out DIR \
        [--libraries portable,prim,quantized]

CMake runs it at configure time (cmake/selective_build.cmake). It writes into DIR:
  register_selected_kernels.cpp  register_selected_kernels(): the selected
                                 kernels (explicit table, no static initializers)
                                 and their dtype masks for load_method's check
  selected_kernels.cmake         TORCHEDGE_SELECTED_SOURCES (the op files that
                                 define those kernels, plus each used library's
                                 support/), TORCHEDGE_SELECTED_LIBRARIES and
                                 TORCHEDGE_SELECTED_DTYPES (the compile-time
                                 dtype set, dtype_dispatch.h)
Libraries are searched in the order given; a later one's kernel replaces an
earlier one's of the same name (cortex_m's int8 kernels over quantized's).
An operator no library implements fails the generation, naming it.
Files are rewritten only when their text changes (no needless rebuilds).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_op_list_module():
    # By path: the torchedge package imports torch; the build needs only this file.
    path = ROOT / "python" / "torchedge" / "selective" / "op_list.py"
    spec = importlib.util.spec_from_file_location("torchedge_op_list", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


op_list = _load_op_list_module()


@dataclass(frozen=True)
class Library:
    name: str
    list_file: str        # the X-macro list of (kernel name, C++ function)
    macro: str            # its macro name
    namespace: str        # the C++ namespace of the functions
    op_glob: str          # files that define kernels
    support_glob: str     # shared code compiled whenever the library is used
    dtypes_file: str = "" # TE_KERNEL_DTYPES table (proven dtypes), if any
    requires: tuple[str, ...] = ()  # libraries whose support/ its kernels use


LIBRARIES = {
    "portable": Library("portable", "kernels/portable/kernel_list.inc", "TE_PORTABLE_KERNEL",
                        "native", "kernels/portable/op_*.cpp", "kernels/portable/support/*.cpp",
                        "kernels/portable/kernel_dtypes.inc"),
    "prim": Library("prim", "kernels/prim/prim_kernel_list.inc", "TE_PRIM_KERNEL", "prim",
                    "kernels/prim/op_*.cpp", "kernels/prim/scalar_operands.cpp"),
    "quantized": Library("quantized", "kernels/quantized/quantized_kernels.inc",
                         "TE_QUANTIZED_KERNEL", "native", "kernels/quantized/op_*.cpp",
                         "kernels/quantized/support/*.cpp"),
    "cortex_m": Library("cortex_m", "kernels/cortex_m/cortex_m_kernels.inc", "TE_CORTEX_M_KERNEL",
                        "cortex_m", "kernels/cortex_m/op_*.cpp", "kernels/cortex_m/support/*.cpp",
                        requires=("quantized",)),
}


def read_list(path: Path, macro: str) -> list[tuple[str, str]]:
    """(kernel name, function) pairs of an X-macro list, following #includes."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        include = re.match(r'\s*#include\s+"([^"]+)"', line)
        if include:
            pairs += read_list(ROOT / include.group(1), macro)
            continue
        entry = re.match(rf'\s*{macro}\("([^"]+)",\s*(\w+)\)', line)
        if entry:
            pairs.append((entry.group(1), entry.group(2)))
    return pairs


def read_dtype_masks(path: Path) -> dict[str, int]:
    masks = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = re.match(r'\s*TE_KERNEL_DTYPES\("([^"]+)",\s*(0x[0-9a-fA-F]+)u?\)', line)
        if entry:
            masks[entry.group(1)] = int(entry.group(2), 16)
    return masks


def defining_files(library: Library) -> dict[str, Path]:
    """C++ function -> the op file that defines it."""
    found = {}
    for path in sorted(ROOT.glob(library.op_glob)):
        for match in re.finditer(r"^Error (\w+)\(KernelContext", path.read_text(encoding="utf-8"), re.M):
            found[match.group(1)] = path
    return found


@dataclass
class Selected:
    name: str
    library: Library
    function: str
    dtype_mask: int | None   # None: every dtype the kernel has


def select(ops, libraries: list[Library]) -> list[Selected]:
    available: dict[str, tuple[Library, str]] = {}
    for library in libraries:
        list_path = ROOT / library.list_file
        if list_path.exists():
            for name, function in read_list(list_path, library.macro):
                available[name] = (library, function)
    chosen, missing = [], []
    for name in sorted(ops.operators):
        if name not in available:
            missing.append(name)
            continue
        library, function = available[name]
        chosen.append(Selected(name, library, function, ops.dtype_mask(name)))
    if missing:
        raise SystemExit(f"selective build: no kernel library ({', '.join(l.name for l in libraries)}) "
                         f"implements {', '.join(missing)}")
    return chosen


def render_registration(chosen: list[Selected]) -> str:
    lines = ["// Generated by scripts/generate_selected_kernels.py; do not edit.",
             "// The selective build's explicit kernel table (kernels/selective).",
             '#include "kernels/selective/register_selected_kernels.h"', "",
             '#include "runtime/core/error_message.h"',
             '#include "runtime/kernel/kernel_registry.h"', "", "namespace torchedge {"]
    for c in chosen:
        lines.append(f"namespace {c.library.namespace} {{ Error {c.function}(KernelContext&, Span<EValue*>); }}")
    proven = {}
    for c in chosen:
        if c.library.dtypes_file:
            proven.update(read_dtype_masks(ROOT / c.library.dtypes_file))
    lines += ["", "Error register_selected_kernels() {"]
    if chosen:
        lines.append("  static const Kernel kKernels[] = {")
        lines += [f'      {{"{c.name}", {c.library.namespace}::{c.function}}},' for c in chosen]
        lines.append("  };")
        lines.append("  TE_RETURN_IF_ERROR(register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])}));")
    masks = []
    for c in chosen:
        mask = c.dtype_mask
        if c.name in proven:
            mask = proven[c.name] if mask is None else mask & proven[c.name]
        if mask is not None:
            masks.append((c.name, mask))
    if masks:
        lines.append("  // Only the selected dtypes: load_method rejects any other, naming the operator.")
        lines.append("  static const KernelDtypes kDtypes[] = {")
        lines += [f'      {{"{name}", 0x{mask:x}u}},' for name, mask in masks]
        lines.append("  };")
        lines.append("  return register_kernel_dtypes({kDtypes, sizeof(kDtypes) / sizeof(kDtypes[0])});")
    else:
        lines.append("  return Error::Ok;")
    lines += ["}", "", "}  // namespace torchedge", ""]
    return "\n".join(lines)


def render_cmake(chosen: list[Selected], libraries: list[Library]) -> str:
    sources: list[Path] = []
    used = [l for l in libraries if any(c.library is l for c in chosen)]
    for library in list(used):
        used += [LIBRARIES[name] for name in library.requires if LIBRARIES[name] not in used]
    files = {l.name: defining_files(l) for l in used}
    for c in chosen:
        path = files[c.library.name].get(c.function)
        if path is not None and path not in sources:
            sources.append(path)
    for library in used:
        sources += sorted(ROOT.glob(library.support_glob))
    dtype_set = 0
    for c in chosen:
        dtype_set |= 0xFFFFFFFF if c.dtype_mask is None else c.dtype_mask
    lines = ["# Generated by scripts/generate_selected_kernels.py; do not edit.",
             f"set(TORCHEDGE_SELECTED_LIBRARIES {' '.join(l.name for l in used)})",
             f"set(TORCHEDGE_SELECTED_DTYPES 0x{dtype_set:x}u)",
             "set(TORCHEDGE_SELECTED_SOURCES"]
    lines += [f"  {p.as_posix()}" for p in sources]
    lines += [")", ""]
    return "\n".join(lines)


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", required=True, help="op list (torchedge selective-build)")
    parser.add_argument("--out", required=True, help="directory for the generated files")
    parser.add_argument("--libraries", default="portable,prim,quantized",
                        help="kernel libraries, lowest priority first")
    args = parser.parse_args(argv)
    names = [n for n in args.libraries.split(",") if n]
    unknown = [n for n in names if n not in LIBRARIES]
    if unknown:
        raise SystemExit(f"unknown kernel libraries {unknown}; known: {', '.join(LIBRARIES)}")
    libraries = [LIBRARIES[n] for n in names]
    try:
        ops = op_list.load(args.ops)
    except (OSError, ValueError) as error:
        raise SystemExit(f"selective build: {error}")
    chosen = select(ops, libraries)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_if_changed(out / "register_selected_kernels.cpp", render_registration(chosen))
    write_if_changed(out / "selected_kernels.cmake", render_cmake(chosen, libraries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
