"""List the portable operators and the dtypes proven for each.

Reads kernels/portable/operators.toml (see docs/operators.md). --dtype keeps
the operators proven for that dtype; --group one kernel group.
"""

from __future__ import annotations

import argparse

from torchedge import operators


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dtype", help="only operators proven for this dtype (e.g. float16)")
    parser.add_argument("--group", help="only this kernel group (elementwise, nn, shape, ...)")


def run(args: argparse.Namespace) -> int:
    listing = operators.entries()
    if args.dtype:
        dtype = operators.dtype_name(args.dtype)  # ValueError names the valid ones
        listing = tuple(e for e in listing if e.supports(dtype))
    if args.group:
        groups = {e.group for e in operators.entries()}
        if args.group not in groups:
            raise ValueError(f"unknown group '{args.group}'; groups: {', '.join(sorted(groups))}")
        listing = tuple(e for e in listing if e.group == args.group)
    width = max((len(e.name) for e in listing), default=0)
    for entry in listing:
        note = f"  ({entry.notes})" if entry.notes else ""
        print(f"{entry.name:{width}}  {entry.group:12} {' '.join(entry.dtypes) or '-'}{note}")
    pairs = sum(len(e.dtypes) for e in listing)
    print(f"{len(listing)} operators, {pairs} (operator, dtype) pairs")
    return 0
