"""Describe a .pte file without running it.

Methods with their inputs and outputs (dtype, shape), the operators each
calls with the dtypes it calls them with and their status in the portable
operator listing (kernels/portable/operators.toml), planned memory per
method, constants (count and bytes), delegates, segments and the file size.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from torchedge.cli.program_summary import summarize
from torchedge.cli.text_format import size


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the .pte file")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    summary = summarize(path.read_bytes())
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
        return 0
    print(f"{path}: {size(summary.file_bytes)} (program {size(summary.program_bytes)}, "
          f"{len(summary.segments)} segment(s))")
    print(f"constants: {summary.constants} tensors, {size(summary.constant_bytes)}")
    for segment in summary.segments:
        print(f"segment {segment['index']}: {segment['role']}, offset {segment['offset']}, "
              f"{size(segment['size'])}")
    for method in summary.methods:
        print(f"\nmethod '{method.name}': {method.instructions} instructions, "
              f"planned memory {size(method.planned_bytes)} in {len(method.planned_buffers)} arena(s)")
        for kind, values in (("input", method.inputs), ("output", method.outputs)):
            for i, value in enumerate(values):
                print(f"  {kind} {i}: {value.describe()}")
        if method.delegates:
            print(f"  delegates: {', '.join(method.delegates)}")
        print(f"  operators ({len(method.operators)}):")
        width = max((len(u.name) for u in method.operators), default=0)
        for use in method.operators:
            dtypes = ",".join(use.dtypes) or "-"
            print(f"    {use.name:{width}}  x{use.calls:<3} {dtypes:18} {use.status}")
    return 0
