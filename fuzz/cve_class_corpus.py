"""Writes one hand-made program per upstream CVE class into
fuzz/regressions/<harness>/cve_<class>.pte (program and module harnesses),
taken from the malformed-program corpus (tests/malformed/cases.py), and
prints the error each produces when run the way the harnesses run it
(full verification, every method loaded, zero inputs of the declared shapes).

Only classes whose hostile value lives in the file are written: the
harnesses feed zero inputs, so segment ids out of range (a run-time input)
stay in tests/malformed alone. Run after a format change:

    .venv/bin/python fuzz/cve_class_corpus.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "malformed"))
sys.path.insert(0, str(ROOT / "tests"))

from cases import all_cases  # noqa: E402

from torchedge import runtime  # noqa: E402
from torchedge.runtime import TorchEdgeRuntimeError  # noqa: E402
from torchedge.serialize.pte_file import deserialize_pte, serialize_pte  # noqa: E402

# class file name -> the malformed case that carries it in the file. The
# int_ops cases divide by input b first (instructions 0 and 1), which zero
# inputs turn into a division by zero; WITHOUT_DIVISIONS drops those two
# instructions so a zero-input run reaches the slice and the gather.
CLASSES = {
    # upstream ExecuTorch, 2025
    "allocator_size_overflow": "input_sizes_product_overflows",
    "planned_offset_outside_arena": "intermediate_offset_past_its_arena",
    "copy_kernel_index_overflow": "strided_slice_step_huge",
    "kernel_wrong_argument_count": "kernel_0_one_argument_too_few",
    "dimension_count_past_limit": "input_17_dims",
    "list_item_overflow": "tensor_list_item_past_the_values",
    # TFLite
    "gather_negative_index": "gather_constant_index_negative",
    "strided_slice_endless_loop": "strided_slice_step_zero",
    "integer_division_by_zero": "integer_division_by_zero",  # b = 0 with zero inputs
}


WITHOUT_DIVISIONS = {"copy_kernel_index_overflow", "gather_negative_index",
                     "strided_slice_endless_loop"}


def without_divisions(data: bytes) -> bytes:
    pte = deserialize_pte(data)
    chain = pte.program.execution_plan[0].chains[0]
    chain.instructions = chain.instructions[2:]
    return serialize_pte(pte.program, pte.segments)


def error_of(data: bytes, inputs: tuple) -> str:
    """The error of a run with zero inputs of the case's shapes and dtypes."""
    try:
        program = runtime.load(data)
        program.forward(*(torch.zeros_like(x) for x in inputs))
    except TorchEdgeRuntimeError as e:
        return f"{e.code_name}: {e.message}"
    return "runs"


def main() -> None:
    warnings.filterwarnings("ignore")
    cases = {c.name: c for c in all_cases()}
    for cls, case_name in CLASSES.items():
        data, inputs = cases[case_name].make()
        if cls in WITHOUT_DIVISIONS:
            data = without_divisions(data)
        for harness in ("program", "module"):
            out = ROOT / "fuzz" / "regressions" / harness
            out.mkdir(parents=True, exist_ok=True)
            (out / f"cve_{cls}.pte").write_bytes(data)
        print(f"cve_{cls}.pte ({case_name}): {error_of(data, inputs)}")


if __name__ == "__main__":
    main()
