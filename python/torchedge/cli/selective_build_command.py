"""Write the op list of a selective build: the operators and dtypes programs use.

    torchedge selective-build model1.pte [model2.pte ...] -o ops.yaml
    torchedge selective-build --op aten::add.out:float32,int64 --op aten::relu.out -o ops.yaml

Then build with only those kernels and dtypes:
    cmake -S . -B build-selective -DTORCHEDGE_SELECTED_OPS=$PWD/ops.yaml
(docs/selective-build.md). --op adds an operator by hand, with its dtypes
after the last ':' (none or 'all': every dtype); --include merges an
existing op list.
"""

from __future__ import annotations

import argparse
import sys

from torchedge.selective import op_list, ops_of_programs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("programs", nargs="*", help=".pte files whose kernel calls to keep")
    parser.add_argument("--op", action="append", default=[], metavar="NAME[:DTYPE,...]",
                        help="an operator to keep by hand (repeatable)")
    parser.add_argument("--include", action="append", default=[], metavar="OPS.yaml",
                        help="merge an existing op list (repeatable)")
    parser.add_argument("-o", "--output", help="where to write the op list (default: stdout)")


def run(args: argparse.Namespace) -> int:
    if not (args.programs or args.op or args.include):
        raise ValueError("nothing to select: give .pte files, --op or --include")
    ops = ops_of_programs(args.programs)
    for path in args.include:
        ops.merge(op_list.load(path))
    for spec in args.op:
        name, dtypes = op_list.parse_op_spec(spec)
        if "::" not in name:
            raise ValueError(f"--op {spec!r}: operator names look like 'aten::add.out'")
        ops.add(name, dtypes)
    sources = [f"program: {p}" for p in args.programs] + [f"op list: {p}" for p in args.include]
    sources += [f"--op {spec}" for spec in args.op]
    text = op_list.render(ops, ["torchedge selective-build"] + sources)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{len(ops.operators)} operators -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
