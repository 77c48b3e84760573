"""Numeric debugger tables of docs/devtools.md (torchedge.devtools.compare_intermediates).

    .venv/bin/python scripts/numeric_debug_report.py              # both parts (~1-2 minutes)
    .venv/bin/python scripts/numeric_debug_report.py --part quantized --top 10 --all

1. quantized: the zoo's ResNet-18 (seeded random weights, 1x3x224x224), static
   int8 PT2E (calibrated on --calibration random images), lowered with an
   ETRecord; every instruction of one run against the quantized reference
   (the edge program in the ETRecord) and against the float model; the
   layers that lose the most SQNR against float first.
2. injected: the float ResNet-18 with one instruction's clamp bound patched in
   the serialized program (a convolution in stages.2 that ends in a ReLU gets
   output_max = 0.25: the runtime clips there and nowhere else); the
   debugger must name that instruction as the first divergence.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
import warnings

import torch

import torchedge
from torchedge import models
from torchedge.devtools import compare_intermediates, load_etrecord


def quantized_resnet18(folder: str, calibration: int, top: int, show_all: bool) -> None:
    from torchedge import quantization as tq

    spec = models.get("resnet18")
    model, (x,) = spec.module, spec.inputs()
    torch.manual_seed(1)
    batches = [(torch.randn_like(x),) for _ in range(calibration)]
    start = time.time()
    converted = tq.quantize_pt2e(copy.deepcopy(model), (x,), batches)
    pte = torchedge.to_edge(converted).to_pte(etrecord=os.path.join(folder, "q.etrecord"))
    print(f"quantized and lowered in {time.time() - start:.1f} s")
    start = time.time()
    result = compare_intermediates(model, pte, (x,), etrecord=os.path.join(folder, "q.etrecord"))
    print(f"compared in {time.time() - start:.1f} s\n")
    print(f"== int8 static ResNet-18: the {top} instructions that lose the most SQNR against "
          "float (column 'lost': the SQNR of their inputs minus theirs) ==")
    print(result.table(result.worst(top, by="float_sqnr_drop_db")))
    if show_all:
        print("\n== every instruction, in order ==")
        print(result)


def _patch_output_max(buffer: bytes, instruction: int, value: float) -> bytes:
    """The program with instruction `instruction`'s `output_max` argument
    replaced by a new Double `value` (a value of its own, shared by no other
    instruction)."""
    from torchedge.serialize import deserialize_pte, serialize_pte
    from torchedge.serialize import schema as s

    pte = deserialize_pte(buffer)
    plan = pte.program.execution_plan[0]
    call = plan.chains[0].instructions[instruction]
    operator = plan.operators[call.op_index]
    name, overload = operator.name.split("::"), operator.overload
    schema = getattr(getattr(getattr(torch.ops, name[0]), name[1]), overload)._schema
    position = [a.name for a in schema.arguments].index("output_max")
    plan.values.append(s.Double(value))
    call.args[position] = len(plan.values) - 1
    return serialize_pte(pte.program, pte.segments)


def injected_bug(folder: str) -> None:
    spec = models.get("resnet18")
    model, (x,) = spec.module, spec.inputs()
    etrecord = os.path.join(folder, "f.etrecord")
    pte = torchedge.to_edge(torch.export.export(model, (x,))).to_pte(etrecord=etrecord)
    records = load_etrecord(etrecord).methods["forward"]
    victim = next(r for r in records if (r["module_path"] or "").startswith("stages.2")
                  and r["operator"].startswith("torchedge::conv2d") and "relu" in r["nodes"][0])
    broken = _patch_output_max(pte.buffer, victim["debug_handle"], 0.25)
    print(f"\n== float ResNet-18, instruction {victim['debug_handle']} ({victim['operator']}, "
          f"{victim['module_path']}, node {victim['nodes'][0]}) patched: output_max = 0.25 ==")
    result = compare_intermediates(model, broken, (x,), etrecord=etrecord)
    print(result)
    first = result.first_divergence
    verdict = "names the patched instruction" if first is not None and \
        first.debug_handle == victim["debug_handle"] else "MISSED the patched instruction"
    print(f"\nverdict: the debugger {verdict}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("quantized", "injected", "both"), default="both")
    parser.add_argument("--top", type=int, default=12, help="rows of the worst-layer table")
    parser.add_argument("--calibration", type=int, default=8, help="calibration images")
    parser.add_argument("--all", action="store_true", help="also print every quantized row")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        if args.part in ("quantized", "both"):
            quantized_resnet18(folder, args.calibration, args.top, args.all)
        if args.part in ("injected", "both"):
            injected_bug(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
