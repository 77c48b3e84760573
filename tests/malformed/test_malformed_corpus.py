"""The malformed-program corpus (cases.py): every case loads, loads each
method and runs forward, and must fail with exactly its error code and a
message holding its fragment — never crash, never hang, never pass. A case
whose code is "" is a well-formed oddity that must run.

Upstream ExecuTorch's 2025 CVE classes and TFLite's hostile-input classes
each have cases here: an allocator size overflow (arena_of_4_EiB,
*_sizes_product_overflows), a planned offset outside its arena
(*_offset_past_its_arena, *_ends_past_its_arena), an index overflow in a copy
kernel (gather_index_huge, strided_slice_step_huge), a kernel called with the
wrong number of arguments (kernel_*_one_argument_too_few/_many), a dimension
count past the limit (*_17_dims), a list item overflow (*_list_item_*);
negative gather indices (gather_*_negative*), segment ids out of range
(segment_id_*), a strided slice that never ends (strided_slice_step_zero /
_negative) and integer division by zero (integer_*_by_zero).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import all_cases  # noqa: E402

from torchedge import runtime  # noqa: E402
from torchedge.runtime import TorchEdgeRuntimeError  # noqa: E402

CASES = all_cases()


def test_the_corpus_is_large_and_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
    assert len(CASES) >= 150


def _run(data: bytes, inputs: tuple) -> None:
    program = runtime.load(data)
    for name in program.method_names:
        program.method(name).meta  # loads nothing, but must not crash
    program.planned_bytes("forward")  # load_method
    program.forward(*inputs)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_program_fails_with_its_named_error(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data, inputs = case.make()
    if not case.code:
        _run(data, inputs)
        return
    with pytest.raises(TorchEdgeRuntimeError) as info:
        _run(data, inputs)
    assert info.value.code_name == case.code, info.value.message
    assert case.fragment in info.value.message
