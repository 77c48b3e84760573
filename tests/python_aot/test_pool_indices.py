"""to_pte drops the indices of max pools nobody reads (passes/pool_indices.py):
such a pool becomes torchedge::max_pool2d, float32 and int8; one whose
indices are used keeps aten::max_pool2d_with_indices. Results equal eager on
both kernel libraries (the values are the same bits as the indexed kernel's).
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import torchedge
from torchedge import runtime

VALUES_ONLY = "torchedge::max_pool2d.out"
INDEXED = "aten::max_pool2d_with_indices.out"


class Stem(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool2d(torch.relu(x), 3, stride=2, padding=1) + 1


class Unpool(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, i = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(y, i, 2)


def _lower(module: torch.nn.Module, x: torch.Tensor, **options):
    return torchedge.to_edge(torch.export.export(module, (x,))).to_pte(**options)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_unused_indices_are_dropped_and_results_match_eager(kernels):
    x = torch.randn(2, 8, 30, 31)
    x[0, 1, 4, 4] = math.nan
    x[1, 2, 7, 9] = -math.inf
    pte = _lower(Stem(), x)
    ops = pte.operators["forward"]
    assert VALUES_ONLY in ops and INDEXED not in ops
    got = runtime.load(pte.buffer, kernels=kernels).forward(x)
    want = Stem()(x)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(torch.nan_to_num(got), torch.nan_to_num(want))
    # Nothing is planned for the indices any more.
    plain = _lower(Stem(), x, fuse_activations=False)
    assert INDEXED in plain.operators["forward"]
    assert pte.memory_plan["forward"].num_tensors == plain.memory_plan["forward"].num_tensors - 1


def test_used_indices_keep_the_indexed_pool():
    x = torch.randn(1, 3, 8, 8)
    ops = _lower(Unpool(), x).operators["forward"]
    assert INDEXED in ops and VALUES_ONLY not in ops
