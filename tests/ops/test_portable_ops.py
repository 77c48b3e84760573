"""Every (operator, dtype) pair of kernels/portable/operators.toml, proven
against eager PyTorch by the op-test harness (harness.py, op_table.py).

One test per listed operator: the harness lowers one program holding the
samples of all its listed dtypes (regular, broadcast, rank 0, empty,
channels-last, edge values, ... as the op table gives them), runs it in the
C++ runtime and compares every output with eager under the tolerance table
of harness.py (float32/float64 rtol 1e-5 / atol 1e-6 elementwise, 1e-4 /
1e-5 for reductions, matmul, convolution and normalization; float16 1e-3;
bfloat16 1e-2; integers and bool exact). A listed dtype passes only when its
regular sample runs and matches, no sample fails, and each sample calls the
kernel with tensors of that dtype.

The operators run in TORCHEDGE_OPS_WORKERS processes (default 2) before the
tests assert on their reports. The last tests check the harness itself: it
must catch a kernel computing the wrong thing and a sample that never
reaches the kernel.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor

import pytest
import torch

import harness
import op_table
from harness import OpSpec, Sample
from torchedge import operators

LISTED = [entry for entry in operators.entries() if entry.dtypes]

# Operators run in this many worker processes (each lowers its own programs);
# TORCHEDGE_OPS_WORKERS=1 runs them in the test process, one per test.
WORKERS = int(os.environ.get("TORCHEDGE_OPS_WORKERS", min(2, os.cpu_count() or 1)))


def run_listed(name: str, dtype_names: tuple[str, ...]) -> harness.OpReport:
    """The harness run of one listed operator (in a worker or in-process)."""
    warnings.filterwarnings("ignore")
    return harness.run_op(op_table.spec(name), [harness.dtype_from_name(d) for d in dtype_names])


@pytest.fixture(scope="module")
def reports(request) -> dict:
    """Reports of the selected operators, computed up front by WORKERS processes."""
    module = sys.modules[__name__]
    selected = [item.callspec.params["entry"] for item in request.session.items
                if item.module is module and "entry" in getattr(getattr(item, "callspec", None), "params", {})]
    if WORKERS <= 1 or len(selected) <= 1:
        return {}
    context = multiprocessing.get_context("spawn")  # no fork of a process holding torch threads
    results: dict = {}
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=context) as pool:
        futures = {e.name: pool.submit(run_listed, e.name, e.dtypes) for e in selected}
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except Exception as error:  # re-raised by that operator's test
                results[name] = error
    return results


@pytest.mark.parametrize("entry", LISTED, ids=lambda e: e.name)
def test_listed_dtypes_match_eager(entry, reports):
    report = reports.get(entry.name) or run_listed(entry.name, entry.dtypes)
    if isinstance(report, Exception):
        raise report
    assert not report.failures(), report.describe()
    unproven = sorted(set(entry.dtypes) - {harness.dtype_name(d) for d in report.passing_dtypes()})
    assert not unproven, f"listed but not proven: {unproven}\n{report.describe()}"


# -- the harness catches what it should ----------------------------------------------


def _add_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (torch.randn(3, 4).to(dtype), torch.randn(3, 4).to(dtype)))]


def test_harness_catches_a_wrong_result():
    """The program computes x - y (add rewritten to sub) while eager computes x + y."""
    wrong = OpSpec("aten::sub.out", torch.add, _add_samples,
                   rewrite=harness.replace_calls(torch.ops.aten.add.Tensor, torch.ops.aten.sub.Tensor))
    report = harness.run_op(wrong, [torch.float32])
    assert [o.status for o in report.outcomes] == ["fails"]
    assert "not close" in report.outcomes[0].detail
    assert report.passing_dtypes() == []


def test_harness_rejects_a_sample_that_misses_the_kernel():
    """torch.add never calls mul.out, so the sample proves nothing about it."""
    report = harness.run_op(OpSpec("aten::mul.out", torch.add, _add_samples), [torch.float32])
    assert [o.status for o in report.outcomes] == ["fails"]
    assert "does not call aten::mul.out" in report.outcomes[0].detail


def test_harness_rejects_a_sample_that_converts_before_the_kernel():
    """x.float() + y.float() calls add.out, but on float32 rather than int32."""
    spec = OpSpec("aten::add.out", lambda x, y: x.float() + y.float(), _add_samples)
    report = harness.run_op(spec, [torch.int32])
    assert [o.status for o in report.outcomes] == ["fails"]
    assert "with int32 tensors" in report.outcomes[0].detail


@pytest.mark.parametrize("dtype, kind, expected", [
    (torch.float32, harness.Kind.ELEMENTWISE, (1e-5, 1e-6)),
    (torch.float32, harness.Kind.REDUCTION, (1e-4, 1e-5)),
    (torch.float16, harness.Kind.ELEMENTWISE, (1e-3, 1e-3)),
    (torch.bfloat16, harness.Kind.REDUCTION, (1e-2, 1e-2)),
    (torch.int8, harness.Kind.ELEMENTWISE, (0.0, 0.0)),
    (torch.bool, harness.Kind.REDUCTION, (0.0, 0.0)),
])
def test_tolerance_table(dtype, kind, expected):
    assert harness.tolerance(dtype, kind) == expected


def test_compare_is_exact_for_integers_and_checks_dtype_and_shape():
    a = torch.tensor([1, 2, 3])
    assert harness.compare(a, a.clone(), harness.Kind.ELEMENTWISE) is None
    assert harness.compare(a, a + torch.tensor([0, 0, 1]), harness.Kind.REDUCTION) is not None
    assert "dtype" in harness.compare(a, a.int(), harness.Kind.ELEMENTWISE)
    assert "shape" in harness.compare(a, a[:2], harness.Kind.ELEMENTWISE)
    nan = torch.tensor([float("nan"), 1.0])
    assert harness.compare(nan, nan.clone(), harness.Kind.ELEMENTWISE) is None
