"""Export a model to a .pte file.

MODEL is a built-in model name (see `torchedge export --list`) or
`path/to/file.py:factory`, where factory() returns (module, example_inputs)
or (module, example_inputs, dynamic_shapes). example_inputs is a tuple for
`forward`, or a dict {method name: tuple} to export several methods.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import torch

import torchedge
from torchedge import models
from torchedge.cli import program_summary
from torchedge.cli.text_format import size


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", help="built-in model name or path/to/file.py:factory")
    parser.add_argument("output", nargs="?", help="the .pte file to write")
    parser.add_argument("--list", action="store_true", help="list the built-in models and exit")
    parser.add_argument("--no-stacktrace", action="store_true",
                        help="leave per-instruction source frames out of the file")
    parser.add_argument("--etrecord", metavar="FILE",
                        help="also write an ETRecord (instruction -> module path, source line; "
                             "read by `torchedge inspect --etdump ... --etrecord FILE`)")


def _load_factory(reference: str) -> tuple[torch.nn.Module, Any, Any]:
    path_text, _, name = reference.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(f"torchedge_user_model_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))  # the file's own imports
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise ValueError(f"{path} has no callable '{name}'")
    result = factory()
    if not isinstance(result, tuple) or len(result) not in (2, 3):
        raise ValueError(f"{reference} must return (module, example_inputs[, dynamic_shapes])")
    model, inputs = result[0], result[1]
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"{reference} returned {type(model).__name__}, not a torch.nn.Module")
    return model.eval(), inputs, result[2] if len(result) == 3 else None


def _resolve(model: str) -> tuple[torch.nn.Module, Any, Any, list[str]]:
    """(module, example inputs, dynamic shapes, methods) of MODEL."""
    if ":" in model and model.rpartition(":")[0].endswith(".py"):
        module, inputs, shapes = _load_factory(model)
        if isinstance(inputs, dict):
            return module, inputs, shapes, list(inputs)
        return module, inputs if isinstance(inputs, tuple) else (inputs,), shapes, ["forward"]
    spec = models.get(model)  # KeyError lists the available names
    return spec.module, spec.lower_inputs(), None, list(spec.methods)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name, description in models.available().items():
            print(f"{name:24} {description}")
        return 0
    if not args.model or not args.output:
        raise ValueError("usage: torchedge export MODEL OUT.pte (or --list)")
    start = time.perf_counter()
    module, inputs, shapes, methods = _resolve(args.model)
    pte = torchedge.lower(module, inputs, dynamic_shapes=shapes, methods=methods,
                          include_stacktrace=not args.no_stacktrace, etrecord=args.etrecord)
    pte.save(args.output)
    if args.etrecord:
        print(f"wrote {args.etrecord}")
    elapsed = time.perf_counter() - start
    print(f"wrote {args.output}: {size(len(pte))} in {elapsed:.1f} s")
    summary = program_summary.summarize(pte.buffer)
    for method in summary.methods:
        plan = pte.memory_plan.get(method.name)
        bound = f" (lower bound {size(plan.lower_bound_bytes)})" if plan is not None else ""
        print(f"  {method.name}: {method.instructions} instructions, "
              f"{len(method.operators)} operators, planned {size(method.planned_bytes)}{bound}")
        for use in method.operators:
            if use.status != "supported":
                print(f"    warning: {use.name}: {use.status}")
    return 0
