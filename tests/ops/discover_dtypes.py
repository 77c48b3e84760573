"""Tries every dtype of every op-table entry and prints what passes.

    .venv/bin/python tests/ops/discover_dtypes.py [--fails] [OP ...]
    .venv/bin/python tests/ops/discover_dtypes.py --update kernels/portable/operators.toml [OP ...]

For seeding and reviewing kernels/portable/operators.toml: per operator, the
dtypes whose samples match eager ("proven"), the samples eager itself
rejects, and each failing (dtype, case) with its error. With --update,
rewrites the listing for every registered kernel (in .inc order): the
operators run get the dtypes proven now, the others keep their listed
dtypes; notes already listed are kept.
Not a test: tests/ops/test_portable_ops.py proves what the listing claims.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from pathlib import Path

import harness
import op_table

from torchedge import _C

# Probe dtypes beyond the listing: load_method would refuse them otherwise.
_C.set_kernel_dtype_checks(False)

REPO = Path(__file__).resolve().parents[2]


def registered_by_group() -> list[tuple[str, str]]:
    """(kernel, group) for every registration line: the portable groups in
    kernel_list.inc order, then the scalar kernels of kernels/prim ("prim")."""
    kernels_dir = REPO / "kernels" / "portable"
    order = re.findall(r'#include "kernels/portable/(\w+)_kernels\.inc"',
                       (kernels_dir / "kernel_list.inc").read_text())
    rows = []
    for group in order:
        text = (kernels_dir / f"{group}_kernels.inc").read_text()
        rows += [(name, group) for name in re.findall(r'^TE_PORTABLE_KERNEL\("([^"]+)"', text, re.M)]
    prim = (REPO / "kernels" / "prim" / "prim_kernel_list.inc").read_text()
    rows += [(name, "prim") for name in re.findall(r'^TE_PRIM_KERNEL\("([^"]+)"', prim, re.M)]
    return rows


def toml_entry(name: str, group: str, dtypes: list[str], notes: str) -> str:
    lines = ["[[operator]]", f'name = "{name}"', f'group = "{group}"',
             "dtypes = [" + ", ".join(f'"{d}"' for d in dtypes) + "]"]
    if notes:
        lines.append(f"notes = {json.dumps(notes, ensure_ascii=False)}")  # a valid TOML basic string
    return "\n".join(lines) + "\n"


PRIM_NOTES = {
    "aten::copy_": "writes a mutable buffer back (kernels/prim); not run by the op-test harness",
}
DEFAULT_PRIM_NOTE = "scalar kernel on Int/Double/Bool values (kernels/prim); no tensor dtype"
HEADER = """\
# Every kernel linked into the torchedge runtime and the dtypes the op-test
# harness (tests/ops/test_portable_ops.py) proves against eager PyTorch.
# group: the kernels/portable/<group>_kernels.inc registering it ("prim":
# kernels/prim/prim_kernel_list.inc). Read by torchedge.operators, checked by
# tests/ops/test_operator_listing.py; docs/operators.md is generated from it
# (scripts/generate_operator_docs.py). Refresh dtypes with
#   .venv/bin/python tests/ops/discover_dtypes.py --update kernels/portable/operators.toml OP...
"""


def update_listing(path: Path, proven_by_op: dict[str, list[str]]) -> None:
    """Rewrites `path` for the registered kernels (see --update)."""
    from torchedge.operators import parse_listing

    old = {e.name: e for e in parse_listing(path.read_text(), str(path))} if path.exists() else {}
    blocks = []
    for name, group in registered_by_group():
        spec = op_table.OP_TABLE.get(name)
        if name in proven_by_op:
            dtypes = proven_by_op[name]
        else:
            dtypes = list(old[name].dtypes) if name in old else []
        if name in old and old[name].notes:
            notes = old[name].notes
        elif group == "prim":
            notes = PRIM_NOTES.get(name, DEFAULT_PRIM_NOTE)
        else:
            notes = spec.notes if spec else "no op-table entry: no dtype proven yet"
        blocks.append(toml_entry(name, group, dtypes, notes))
    path.write_text(HEADER + "\n" + "\n".join(blocks))
    print(f"wrote {path}", file=sys.stderr)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="kernel names (default: the whole table)")
    parser.add_argument("--fails", action="store_true", help="print only operators with failures")
    parser.add_argument("--update", type=Path, metavar="TOML",
                        help="rewrite this listing: every registered kernel, with the dtypes "
                             "proven now for the operators run, the listed ones for the others")
    parser.add_argument("--quick", action="store_true",
                        help="the test's sample selection instead of every sample")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    names = args.ops or list(op_table.OP_TABLE)
    start, pairs, exports, proven_by_op = time.time(), 0, 0, {}
    for name in names:
        t0 = time.time()
        report = harness.run_op(op_table.spec(name), exhaustive=not args.quick)
        exports += report.exports
        proven = [harness.dtype_name(d) for d in report.passing_dtypes()]
        proven_by_op[name] = proven
        pairs += len(proven)
        rejected = [f"{harness.dtype_name(o.dtype)}/{o.case}" for o in report.outcomes
                    if o.status == "eager-rejects"]
        if args.fails and not report.failures():
            continue
        print(f"{name}  [{time.time() - t0:.1f}s, {report.exports} exports]")
        print(f"  proven: {proven}")
        if rejected:
            print(f"  eager rejects: {' '.join(rejected)}")
        for o in report.failures():
            print(f"  FAIL {harness.dtype_name(o.dtype)}/{o.case}: {o.detail[:300]}")
    print(f"{len(names)} operators, {pairs} proven pairs, {exports} exports, "
          f"{time.time() - start:.0f}s", file=sys.stderr)
    if args.update:
        update_listing(args.update, proven_by_op)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
