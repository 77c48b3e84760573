"""to_edge drops multiplications and divisions by the number one
(passes/redundant_copies.py) when they cannot change dtype or layout, and
keeps them where they promote (an integer tensor times 1.0)."""

from __future__ import annotations

import math

import torch
from torch import nn

import torchedge
from torchedge import runtime


class Scaled(nn.Module):
    def forward(self, x, n):
        a = (x * 1.0) / 1 + 1.0          # both identities go, the add stays
        b = x * 1                        # the graph's output is then x itself
        c = n * 1.0                      # int64 -> float32: kept
        d = x * 2.0                      # not an identity: kept
        return a, b, c, d


def _edge_targets(ep) -> list[str]:
    return [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]


def test_identities_are_dropped_and_results_are_bit_exact():
    module = Scaled()
    x = torch.tensor([-0.0, 1.5, math.inf, -math.inf, math.nan, 3e-39])  # 3e-39: subnormal
    n = torch.tensor([1, -2, 3])
    edge = torchedge.to_edge(torch.export.export(module, (x, n)))
    targets = _edge_targets(edge.exported_program())
    assert targets.count("aten.mul.Scalar") == 2, targets   # n * 1.0 and x * 2.0
    assert "aten.div.Scalar" not in targets, targets
    got = runtime.load(edge.to_pte().buffer).forward(x, n)
    want = module(x, n)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True)
    assert torch.signbit(got[1][0])                           # -0.0 stays -0.0
