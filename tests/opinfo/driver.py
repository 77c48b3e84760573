"""The whole sweep: float32 for every op (and its program once through the
XNNPACK partitioner), then each other dtype for the ops whose float32
program passes and whose kernels all claim that dtype. Ops that eager does
not run in float32 (bitwise, gcd, ...) are swept in their first other dtype
instead.

`hint_pass(op, dtype)` says which programs are expected to pass: those are
lowered in batches (sweep.run_programs), the others one by one. The hint
only groups the work; every Result comes from a program that ran.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import torch

from torchedge import operators

from opinfo.cia_cache import memoized_cia_scan
from opinfo.samples import op_key
from opinfo.sweep import Prepared, Result, batches, dtype_label, prepare, run_programs

# Besides float32: an integer, bool, the two half-precision dtypes and
# complex64.
OTHER_DTYPES = (torch.int64, torch.bool, torch.float16, torch.bfloat16, torch.complex64)
BATCH_SIZE = 24


def kernels_claim(kernels: Iterable[str], dtype: torch.dtype) -> bool:
    """Every tensor kernel is listed (kernels/portable/operators.toml) as
    proven for `dtype` (scalar "prim" kernels have no tensor dtype)."""
    claimed = False
    for kernel in kernels:
        entry = operators.lookup(kernel)
        if entry is None:
            return False
        if entry.group == "prim":
            continue
        if not entry.supports(dtype):
            return False
        claimed = True
    return claimed


def _run_dtype(preps: Sequence[Prepared], hint_pass: Callable[[str, str], bool],
               xnnpack: bool) -> tuple[list[Result], dict[str, set[str]]]:
    results: list[Result] = []
    kernels: dict[str, set[str]] = {}
    if not preps:
        return results, kernels
    label = dtype_label(preps[0].dtype)
    grouped = [p for p in preps if hint_pass(p.key, label)]
    groups = list(batches(grouped, BATCH_SIZE)) + [[p] for p in preps if not hint_pass(p.key, label)]
    for group in groups:
        lowered = run_programs(group, xnnpack)
        results += lowered.results
        for p, k in zip(group, lowered.kernels):
            kernels[p.key] = k
    return results, kernels


def primary_dtype(op: Any) -> torch.dtype:
    """float32, or for ops eager does not run in float32 (bitwise, gcd, ...)
    the first of OTHER_DTYPES it runs."""
    supported = op.supported_dtypes("cpu")
    if torch.float32 in supported:
        return torch.float32
    return next((d for d in OTHER_DTYPES if d in supported), torch.float32)


def run_sweep(ops: Sequence[Any], hint_pass: Callable[[str, str], bool]) -> list[Result]:
    """Every Result of `ops` (OpInfo entries)."""
    results: list[Result] = []
    with memoized_cia_scan():
        prepared: dict[torch.dtype, list[Prepared]] = {}
        for op in ops:
            p = prepare(op, primary_dtype(op))
            (results.append(p) if isinstance(p, Result) else prepared.setdefault(p.dtype, []).append(p))
        float32, kernels = _run_dtype(prepared.get(torch.float32, []), hint_pass, xnnpack=True)
        results += float32
        passed = {r.op for r in float32 if r.dtype == "float32" and r.passed}
        by_key = {op_key(op): op for op in ops}
        for dtype in OTHER_DTYPES:
            preps = list(prepared.get(dtype, []))
            for key in sorted(passed):
                op = by_key[key]
                if dtype not in op.supported_dtypes("cpu") or not kernels_claim(kernels[key], dtype):
                    continue
                p = prepare(op, dtype)
                (results.append(p) if isinstance(p, Result) else preps.append(p))
            results += _run_dtype(preps, hint_pass, xnnpack=False)[0]
    return results
