"""A memo for torch.export's scan of the dispatcher, for sweeps that call
`run_decompositions()` hundreds of times.

Each `run_decompositions()` walks every operator namespace three times to
list the CompositeImplicitAutograd operators (torch._export.utils.
_collect_all_valid_cia_ops, ~0.2 s a walk); the answer only changes when
operators are registered. `memoized_cia_scan()` keys the answer on the
namespaces and the number of CompositeImplicitAutograd registrations, so a
registration in between still gets a fresh walk: the decompositions that
run are the ones an unpatched torch runs.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch
import torch._export.utils as export_utils
import torch.export.decomp_utils as decomp_utils
import torch.export.exported_program as exported_program

_MODULES = (export_utils, decomp_utils, exported_program)


@contextlib.contextmanager
def memoized_cia_scan() -> Iterator[None]:
    original = export_utils._collect_all_valid_cia_ops
    memo: dict[Any, set] = {}

    def collect() -> set:
        key = (tuple(torch.ops._dir), len(torch._C._dispatch_get_registrations_for_dispatch_key(
            "CompositeImplicitAutograd")))
        if key not in memo:
            memo.clear()
            memo[key] = original()
        return memo[key]

    for module in _MODULES:
        module._collect_all_valid_cia_ops = collect
    try:
        yield
    finally:
        for module in _MODULES:
            module._collect_all_valid_cia_ops = original
