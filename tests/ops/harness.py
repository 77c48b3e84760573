"""The op-test harness: every portable kernel against eager PyTorch.

An `OpSpec` (see op_table.py) names a kernel ("aten::add.out"), a small
callable that reaches it from torch (`lambda x, y: torch.add(x, y, alpha=2)`)
and, per dtype, `Sample`s: the inputs of one shape case ("regular",
"broadcast", "rank0", "empty", "channels_last", ...). The harness puts every
sample of every requested dtype of one operator into ONE module (each sample
a child module, its results flattened into the outputs), lowers it with
torchedge (export -> to_edge -> to_pte), runs it in the C++ runtime and
compares each output with the same module run eagerly. One export per
operator keeps the whole table in a few minutes; when a batched program
fails to lower or run, the harness retries per dtype and then per sample,
so every failure names its (dtype, case).

Sample selection: float32 and int64 run every sample; the other dtypes
run the regular sample, their edge values and a rotating third of the
other shape cases (see `selected`), which keeps the whole table to a few
minutes. TORCHEDGE_OPS_EXHAUSTIVE=1 (or run_op(exhaustive=True), as
discover_dtypes.py does) runs every sample of every dtype.

It also checks that each sample really calls the kernel under test with
the dtype under test: some node of the sample's child module must lower to
that kernel and have a tensor of that dtype among its operands or results,
otherwise the sample proves nothing (the exporter may decompose an op into
others, or convert its inputs first).

Tolerance table (runtime vs eager, |actual - expected| <= atol + rtol * |expected|,
NaN must match NaN, shapes and dtypes must be equal):

    dtype               elementwise              reduction / matmul / conv / norm
    float32, float64    rtol 1e-5, atol 1e-6     rtol 1e-4, atol 1e-5
    float16             rtol 1e-3, atol 1e-3     rtol 1e-3, atol 1e-3
    bfloat16            rtol 1e-2, atol 1e-2     rtol 1e-2, atol 1e-2
    integers, bool      exact                    exact

The tolerance is chosen by the dtype of each output (an integer argmax of a
float input is exact). A sample marked `float_reference` compares its
float16/bfloat16 outputs with eager run in float32 and rounded, where eager's
own 16-bit path rounds partial sums; one marked `double_reference` compares
its float32/16-bit outputs with eager run in float64 and rounded, where
eager's result at non-finite inputs depends on the CPU (gelu).

Modules: op_spec.py (Sample, OpSpec, dtypes, tolerances), op_program.py
(building and lowering the one-op program, including the four declared ways
to reach kernels the exporter never emits: keep, keep_copies, rewrite,
rename), this file (running, comparing, isolating failures, reports).
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import torch
from torch.utils import _pytree as pytree

from torchedge import runtime

from op_program import BatchModule, HarnessError, SampleModule, flat_inputs, lower_samples, node_kernel  # noqa: F401
from op_spec import (  # noqa: F401 (the op tables import these from here)
    ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, Kind, OpSpec, Sample, dtype_from_name, dtype_name,
    replace_calls, tolerance,
)


@dataclass
class Outcome:
    """The result of one (dtype, case): ok, or why not."""

    dtype: torch.dtype
    index: int           # the sample's position in spec.samples(dtype)
    case: str
    status: str          # "ok", "eager-rejects", "fails"
    detail: str = ""


@dataclass
class OpReport:
    name: str
    outcomes: list[Outcome]
    exports: int = 0     # programs lowered (1 when the batched program passes)

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "fails"]

    def passing_dtypes(self) -> list[torch.dtype]:
        """Dtypes proven: the first ("regular") sample is ok and no sample fails.
        Samples eager itself rejects (a bound uint8 cannot hold, ...) are skipped."""
        by_dtype: dict[torch.dtype, list[Outcome]] = {}
        for o in sorted(self.outcomes, key=lambda o: o.index):
            by_dtype.setdefault(o.dtype, []).append(o)
        return [d for d, os in by_dtype.items()
                if os[0].index == 0 and os[0].status == "ok" and all(o.status != "fails" for o in os)]

    def describe(self) -> str:
        lines = [f"{self.name}:"]
        for o in self.outcomes:
            if o.status != "ok":
                lines.append(f"  {dtype_name(o.dtype)}/{o.case}: {o.status}: {o.detail}")
        return "\n".join(lines)


# -- comparing ------------------------------------------------------------------


def compare(expected: torch.Tensor, actual: Any, kind: Kind) -> Optional[str]:
    """None when `actual` matches `expected` within the tolerance table, else why not."""
    if not isinstance(actual, torch.Tensor):
        return f"expected a tensor, got {type(actual).__name__}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    rtol, atol = tolerance(expected.dtype, kind)
    try:
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return " ".join(str(error).split())[:400]
    return None


# -- running ----------------------------------------------------------------------


def _eager(spec: OpSpec, sample: Sample) -> Optional[str]:
    """None when eager PyTorch accepts the sample, else its error."""
    try:
        with torch.no_grad():
            SampleModule(sample.fn or spec.fn, sample.channels_last)(*sample.inputs)
    except Exception as error:  # eager's own dtype/shape checks
        return f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    return None


Batch = list[tuple[torch.dtype, int, Sample]]  # (dtype, index in spec.samples(dtype), sample)


_HALF_FLOATS = (torch.float16, torch.bfloat16)


def _reference(sub: torch.nn.Module, sample: Sample) -> list[Any]:
    """Eager outputs of one sample (see Sample.float_reference)."""
    narrow = [x.dtype for x in sample.inputs
              if isinstance(x, torch.Tensor) and x.dtype in (torch.float32,) + _HALF_FLOATS]
    if sample.double_reference and narrow:
        widened = [x.double() if isinstance(x, torch.Tensor) and x.dtype == narrow[0] else x
                   for x in sample.inputs]
        return [y.to(narrow[0]) if y.dtype == torch.float64 else y
                for y in pytree.tree_leaves(sub(*widened))]
    half = [x.dtype for x in sample.inputs if isinstance(x, torch.Tensor) and x.dtype in _HALF_FLOATS]
    if not (sample.float_reference and half):
        return pytree.tree_leaves(sub(*sample.inputs))
    widened = [x.float() if isinstance(x, torch.Tensor) and x.dtype in _HALF_FLOATS else x
               for x in sample.inputs]
    return [y.to(half[0]) if y.dtype == torch.float32 else y for y in pytree.tree_leaves(sub(*widened))]


def _run_batch(spec: OpSpec, batch: Batch, report: OpReport) -> Optional[str]:
    """Runs `batch` as one program. Records outcomes and returns None, or
    returns the program-level error (lowering or runtime) without recording."""
    samples = [s for _, _, s in batch]
    try:
        report.exports += 1
        module, buffer = lower_samples(spec, samples, [d for d, _, _ in batch])
        program = runtime.load(buffer)
        actual = pytree.tree_leaves(program.forward(*flat_inputs(samples)))
    except HarnessError as error:  # a spec bug: fail those samples, run the others
        for i in error.missing:
            dtype, index, sample = batch[i]
            report.outcomes.append(Outcome(dtype, index, sample.case, "fails",
                                           f"the sample does not call {spec.name} with "
                                           f"{dtype_name(dtype)} tensors; {error}"))
        rest = [b for i, b in enumerate(batch) if i not in error.missing]
        if rest:
            _run_isolating(spec, rest, report)
        return None
    except Exception as error:  # lowering or runtime failure of the whole program
        return f"{type(error).__name__}: {' '.join(str(error).split())[:600]}"
    with torch.no_grad():
        expected = [_reference(sub, s) for sub, s in zip(module.samples, samples)]
    if len(actual) != sum(map(len, expected)):
        return f"{len(actual)} outputs, expected {sum(map(len, expected))}"
    index = 0
    for (dtype, index_in_dtype, sample), outputs in zip(batch, expected):
        problems = []
        for k, reference in enumerate(outputs):
            problem = compare(reference, actual[index + k], spec.kind)
            if problem:
                problems.append(f"output {k}: {problem}")
        index += len(outputs)
        report.outcomes.append(Outcome(dtype, index_in_dtype, sample.case,
                                       "fails" if problems else "ok", "; ".join(problems)))
    return None


def _run_isolating(spec: OpSpec, batch: Batch, report: OpReport) -> None:
    """Runs `batch`; on a program-level failure, splits it by dtype, then by sample."""
    error = _run_batch(spec, batch, report)
    if error is None:
        return
    dtypes = list(dict.fromkeys(d for d, _, _ in batch))
    if len(dtypes) > 1:
        for dtype in dtypes:
            _run_isolating(spec, [b for b in batch if b[0] == dtype], report)
    elif len(batch) > 1:
        for item in batch:
            _run_isolating(spec, [item], report)
    else:
        dtype, index, sample = batch[0]
        report.outcomes.append(Outcome(dtype, index, sample.case, "fails", error))


def make_samples(spec: OpSpec, dtype: torch.dtype) -> list[Sample]:
    """spec.samples(dtype) under a seed fixed by (operator, dtype)."""
    torch.manual_seed(zlib.crc32(f"{spec.name}/{dtype}".encode()))
    return spec.samples(dtype)


# Dtypes that run every sample; the others run a rotating third (see `selected`).
FULL_CASE_DTYPES = (torch.float32, torch.int64)
EDGE_CASES = ("special", "extremes")


def selected(samples: Sequence[Sample], dtype: torch.dtype, exhaustive: bool) -> list[int]:
    """Indices of the samples to run for `dtype`.

    Exhaustive: all. Otherwise float32 and int64 run all; every other dtype
    runs the regular sample (index 0), its edge values ("special",
    "extremes") and every third of the remaining shape cases, rotated by the
    dtype's position, so each case still runs in about a third of those
    dtypes and the table runs in a few minutes (TORCHEDGE_OPS_EXHAUSTIVE=1
    runs everything).
    """
    if exhaustive or dtype in FULL_CASE_DTYPES or len(samples) <= 3:
        return list(range(len(samples)))
    shift = ALL_DTYPES.index(dtype) if dtype in ALL_DTYPES else 0
    return [i for i, sample in enumerate(samples)
            if i == 0 or sample.case in EDGE_CASES or (i + shift) % 3 == 0]


def exhaustive_by_default() -> bool:
    return os.environ.get("TORCHEDGE_OPS_EXHAUSTIVE", "") not in ("", "0")


def run_op(spec: OpSpec, dtypes: Optional[Sequence[torch.dtype]] = None,
           exhaustive: Optional[bool] = None) -> OpReport:
    """Runs the samples of `dtypes` (default: spec.dtypes) and reports each;
    all of them when `exhaustive`, else the selection of `selected`."""
    if exhaustive is None:
        exhaustive = exhaustive_by_default()
    report = OpReport(spec.name, [])
    batch: Batch = []
    for dtype in dtypes if dtypes is not None else spec.dtypes:
        regular_rejected = None
        samples = make_samples(spec, dtype)
        for index in selected(samples, dtype, exhaustive):
            sample = samples[index]
            # When eager rejects the first ("regular") sample the op does not
            # take this dtype; eager may still accept an empty case without
            # dispatching on the dtype, which proves nothing either.
            rejected = regular_rejected or _eager(spec, sample)
            if rejected and index == 0:
                regular_rejected = rejected
            if rejected:
                report.outcomes.append(Outcome(dtype, index, sample.case, "eager-rejects", rejected))
            else:
                batch.append((dtype, index, sample))
    if batch:
        _run_isolating(spec, batch, report)
    return report
