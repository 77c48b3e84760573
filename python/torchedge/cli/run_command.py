"""Run a .pte file in the torchedge runtime and time it.

Inputs come from --input files (one per method input, in order: .pt holds a
tensor saved with torch.save, .npy a NumPy array) or are generated from the
method's input metadata like torchedge_run does: floats uniform in [-1, 1),
integers in [0, 4), bools random (seeded). Prints each output's dtype,
shape and summary statistics, and the latency (min / median) of
--iterations runs after one warm-up run.

--etdump FILE records the load and every instruction of the timed runs and
writes an ETDump (read it with `torchedge inspect --etdump FILE`);
--debug-buffer-size BYTES also captures every instruction's output in one
extra run before them (block "<method>:intermediates", out of the timings).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from torchedge.cli.text_format import size, tensor_summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the .pte file")
    parser.add_argument("--method", default="forward", help="method to run (default: forward)")
    parser.add_argument("--iterations", type=int, default=10, help="timed runs (default: 10)")
    parser.add_argument("--input", action="append", default=[], metavar="FILE",
                        help="an input (.pt or .npy), once per method input, in order")
    parser.add_argument("--seed", type=int, default=0, help="seed of generated inputs")
    parser.add_argument("--etdump", metavar="FILE", help="write an ETDump of the timed runs")
    parser.add_argument("--debug-buffer-size", type=int, default=0, metavar="BYTES",
                        help="with --etdump: capture every instruction's output (one extra run)")


def _generated(info: dict, generator: torch.Generator) -> torch.Tensor:
    from torchedge.runtime import _WIRE_TO_DTYPE

    dtype = _WIRE_TO_DTYPE.get(info["dtype"])
    if dtype is None:
        raise ValueError(f"cannot generate an input of scalar type {info['dtype']}")
    shape = tuple(info["sizes"])
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=generator) * 2 - 1).to(dtype)
    return torch.randint(0, 4, shape, generator=generator).to(dtype)


def _loaded(path: str) -> torch.Tensor:
    if Path(path).suffix == ".npy":
        import numpy

        return torch.from_numpy(numpy.load(path))
    value = torch.load(path, weights_only=True)
    if not isinstance(value, torch.Tensor):
        raise ValueError(f"{path} holds a {type(value).__name__}, not a tensor")
    return value


def _inputs(meta: dict, files: list[str], seed: int) -> list[Any]:
    infos = meta["inputs"]
    if len(files) > len(infos):
        raise ValueError(f"{len(files)} --input files but method '{meta['name']}' takes {len(infos)} inputs")
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for i, info in enumerate(infos):
        if i < len(files):
            inputs.append(_loaded(files[i]))
        elif info is None:
            raise ValueError(f"input {i} of '{meta['name']}' is not a tensor; pass it with --input")
        else:
            inputs.append(_generated(info, generator))
    return inputs


def run(args: argparse.Namespace) -> int:
    from torchedge import runtime

    if args.iterations < 1:
        raise ValueError("--iterations must be at least 1")
    if args.debug_buffer_size and not args.etdump:
        raise ValueError("--debug-buffer-size needs --etdump")
    tracer = None
    if args.etdump:
        program = runtime.load(args.file, etdump=True, debug_buffer_size=args.debug_buffer_size)
        tracer = program._tracer
        tracer.set_profiling(False)
        tracer.set_capture_intermediates(False)
    else:
        program = runtime.load(args.file)
    method = program.method(args.method)
    meta = method.meta
    inputs = _inputs(meta, args.input, args.seed)
    if tracer is not None and args.debug_buffer_size > 0:
        # The capture run: a block of its own, kept out of the timings.
        tracer.set_profiling(True)
        tracer.set_capture_intermediates(True)
        tracer.set_block_name(f"{args.method}:intermediates")
        method(*inputs)
        tracer.set_block_name(None)
        tracer.set_capture_intermediates(False)
        tracer.set_profiling(False)
    outputs = method(*inputs)  # warm-up (loads the method)
    if tracer is not None:
        tracer.set_profiling(True)
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        outputs = method(*inputs)
        times.append(time.perf_counter() - start)
    leaves = [t for t in torch.utils._pytree.tree_leaves(outputs)]
    print(f"{args.file} method '{args.method}': {len(inputs)} inputs, {len(leaves)} outputs")
    for i, x in enumerate(inputs):
        print(f"  input {i}: {tensor_summary(x) if isinstance(x, torch.Tensor) else repr(x)}")
    for i, y in enumerate(leaves):
        print(f"  output {i}: {tensor_summary(y) if isinstance(y, torch.Tensor) else repr(y)}")
    planned = sum(meta["planned_buffer_sizes"])  # the runtime's list omits reserved buffer 0
    print(f"planned memory: {size(planned)}")
    print(f"latency over {args.iterations} runs: min {min(times) * 1e3:.3f} ms, "
          f"median {statistics.median(times) * 1e3:.3f} ms")
    if args.etdump:
        program.write_etdump(args.etdump)
        print(f"ETDump written to {args.etdump}")
    return 0
