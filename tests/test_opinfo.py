"""PyTorch's own operator database (OpInfo, torch.testing._internal.
common_methods_invocations.op_db) through torchedge, compared with eager.

For each OpInfo entry: the first sample whose inputs are plain tensors and
scalars (tests/opinfo/samples.py), drawn with seed 0, in float32 (ops eager
does not run in float32, such as the bitwise ones, in int64 or bool), is
exported with torch.export, lowered with to_edge and to_pte, run by the C++
runtime in this process (a runtime crash ends pytest, loudly) and compared
with eager: float32 within 1e-4 of the output's largest magnitude, float16
1e-3, bfloat16 1e-2, complex64 1e-4 (on the real and imaginary parts, of
the parts' largest magnitude), integers and bool exactly; an index output (sort,
argsort, topk, kthvalue) that picks equal values in another order than
eager's matches when the values it selects from the input are exactly
eager's (sweep.compare states the check). The float32 program also
goes through the XNNPACK partitioner (light groups included) and each op
with a delegated node is compared again. Ops whose float32 program passes
are swept in int64, bool, float16, bfloat16 and complex64 where eager supports the
dtype and every kernel of the program claims it (kernels/portable/
operators.toml).

Not counted: ops torch.export rejects, ops with random or uninitialized
outputs, ops without a plain sample in the dtype (tests/opinfo/sweep.py).

tests/opinfo/expected_failures.json lists every (op, dtype) that does not
pass, with its category. A test per op fails when its outcome differs
from the list: a listed entry that now passes (shrink the list), a passing
one that fails (a regression), or a failure whose category changed.
Regenerate the list and the docs table with scripts/opinfo_report.py.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from torch.testing._internal.common_methods_invocations import op_db

from opinfo import expectations
from opinfo.driver import run_sweep
from opinfo.samples import op_key
from opinfo.sweep import Result

OP_NAMES = [op_key(op) for op in op_db]


@pytest.fixture(scope="module")
def expected() -> dict[str, dict[str, str]]:
    return expectations.load()


@pytest.fixture(scope="module")
def sweep(request: pytest.FixtureRequest, expected: dict[str, dict[str, str]]) -> dict[str, list[Result]]:
    """The Results of every op pytest selected (-k), from one sweep for all."""
    selected = {item.callspec.params["op_name"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_op" and hasattr(item, "callspec")}
    ops = [op for op in op_db if op_key(op) in selected]
    results = run_sweep(ops, lambda op, dtype: expectations.entry_key(op, dtype) not in expected)
    by_op: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_op[result.op].append(result)
    return by_op


@pytest.mark.parametrize("op_name", OP_NAMES)
def test_op(op_name: str, sweep: dict[str, list[Result]], expected: dict[str, dict[str, str]]) -> None:
    assert sweep[op_name], f"{op_name} was not swept"
    problems = expectations.mismatches(op_name, sweep[op_name], expected)
    assert not problems, "\n".join(problems)


def test_expectations_name_only_opinfo_ops(expected: dict[str, dict[str, str]]) -> None:
    names = set(OP_NAMES)
    stale = [key for key in expected if key.split("|")[0] not in names]
    assert not stale, f"entries for ops OpInfo does not have: {stale}"


def test_expectations_hold_no_wrong_result(expected: dict[str, dict[str, str]]) -> None:
    # Index outputs that order equal values differently from eager are
    # checked as valid answers by sweep.compare, not listed.
    wrong = [key for key, entry in expected.items() if entry["category"] == "wrong-result"]
    assert not wrong, f"wrong results listed: {wrong}"
