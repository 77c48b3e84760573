"""The `torchedge` command line.

    torchedge export MODEL OUT.pte          MODEL: a built-in model name or path/to/file.py:factory
    torchedge run FILE.pte [--method M] [--iterations N] [--input FILE]...
    torchedge inspect FILE.pte [--json]
    torchedge ops [--dtype D] [--group G]
    torchedge selective-build FILE.pte... [--op NAME:DTYPES]... -o ops.yaml

Each subcommand lives in its own module (<name>_command.py) with
`add_arguments(parser)` and `run(args) -> int`. Errors print one line,
"torchedge <command>: error: ...", and exit 1; set TORCHEDGE_DEBUG=1 for the
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Optional, Sequence

from torchedge.cli import (export_command, inspect_command, ops_command, run_command,
                           selective_build_command)

_COMMANDS = {
    "export": export_command,
    "run": run_command,
    "inspect": inspect_command,
    "ops": ops_command,
    "selective-build": selective_build_command,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchedge",
        description="Export PyTorch models to .pte files and run them with the torchedge runtime.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in _COMMANDS.items():
        doc = (module.__doc__ or "").strip().splitlines()
        sub = commands.add_parser(name, help=doc[0] if doc else name,
                                  description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command line `argv` (default sys.argv[1:]); returns the exit code."""
    args = build_parser().parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    try:
        return _COMMANDS[args.command].run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `torchedge ops | head`
        sys.stderr.close()
        return 0
    except Exception as error:  # one line for the user; the traceback on request
        if os.environ.get("TORCHEDGE_DEBUG"):
            raise
        message = str(error) or type(error).__name__
        print(f"torchedge {args.command}: error: {message}", file=sys.stderr)
        return 1
