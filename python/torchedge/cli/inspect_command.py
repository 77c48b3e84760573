"""Describe a .pte file without running it.

Methods with their inputs and outputs (dtype, shape), the operators each
calls with the dtypes it calls them with and their status in the portable
operator listing (kernels/portable/operators.toml), planned memory per
method, constants (count and bytes), delegates, segments and the file size.

With --etdump (a trace from `torchedge run --etdump` or `torchedge_run
--etdump`) and optionally --etrecord (from to_pte(etrecord=...)), prints the
Inspector summary instead: the slowest instructions with their module path
and source line, then the time per module and per operator
(torchedge.devtools, docs/devtools.md); --csv and --chrome-trace save the
rows and a timeline, --png PREFIX the charts PREFIX_modules.png (time per
module) and PREFIX_arena.png (planned memory over a run; needs matplotlib).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from torchedge.cli.program_summary import summarize
from torchedge.cli.text_format import size


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="the .pte file (not needed with --etdump)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--etdump", help="an ETDump file: print its Inspector summary")
    parser.add_argument("--etrecord", help="the ETRecord of the program the ETDump ran")
    parser.add_argument("--top", type=int, default=20, help="rows per table (default 20)")
    parser.add_argument("--csv", metavar="FILE", help="with --etdump: write the rows as CSV")
    parser.add_argument("--chrome-trace", metavar="FILE",
                        help="with --etdump: write a Chrome-trace / Perfetto JSON timeline")
    parser.add_argument("--png", metavar="PREFIX",
                        help="with --etdump: write PREFIX_modules.png and PREFIX_arena.png "
                             "(needs matplotlib)")
    parser.add_argument("--method", default="forward", help="with --png: the method to chart")


def _inspect_etdump(args: argparse.Namespace) -> int:
    from torchedge.devtools import Inspector

    inspector = Inspector(etdump=args.etdump, etrecord=args.etrecord)
    inspector.print_summary(top=args.top)
    if args.csv:
        inspector.to_csv(args.csv)
        print(f"rows written to {args.csv}")
    if args.chrome_trace:
        inspector.to_chrome_trace(args.chrome_trace)
        print(f"timeline written to {args.chrome_trace}")
    if args.png:
        for kind, draw in (("modules", inspector.plot_modules), ("arena", inspector.plot_arena)):
            path = f"{args.png}_{kind}.png"
            draw(path, method=args.method)
            print(f"chart written to {path}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.etdump:
        return _inspect_etdump(args)
    if args.etrecord or args.csv or args.chrome_trace or args.png:
        raise ValueError("--etrecord, --csv, --chrome-trace and --png need --etdump")
    if not args.file:
        raise ValueError("give a .pte file, or --etdump FILE")
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
