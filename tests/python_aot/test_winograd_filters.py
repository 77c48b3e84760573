"""to_pte's winograd_filters: float32 3x3 stride-1 convolutions the optimized
kernel's per-call Winograd transform does not cover (more than 256 x 256
channels, or an output below 28x28) become torchedge::conv2d_winograd with their
filters stored transformed (passes/winograd_filters.py). The program must
match eager on both kernel libraries at 1 and 2 threads, NaN and infinity
included, keep every other convolution, and winograd_filters=False must
restore the plain program.
"""

from __future__ import annotations

import math

import pytest
import torch

import torchedge
from torchedge import _C, runtime

from numerics import scaled_error  # tests/python_aot (conftest puts it on sys.path)
from torchedge.passes.conv2d_winograd_op import filters_from_u, transform_filters

WINOGRAD = "torchedge::conv2d_winograd.out"
RELATIVE_TOLERANCE = 1e-4


class Blocks(torch.nn.Module):
    """A 7x7-map conv + relu, a wide (264 x 264) conv with a residual, a
    conv the runtime transforms per call (kept), and a stride-2 one (kept)."""

    def __init__(self) -> None:
        super().__init__()
        self.small_map = torch.nn.Conv2d(16, 264, 3, padding=1)
        self.wide = torch.nn.Conv2d(264, 264, 3, padding=1, bias=False)
        self.kept = torch.nn.Conv2d(264, 16, 3, padding=1)
        self.strided = torch.nn.Conv2d(16, 16, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = torch.relu(self.small_map(x))          # 7x7 output
        b = torch.relu(self.wide(a) + a)           # conv2d_add_clamp, 264 x 264
        c = self.kept(torch.nn.functional.interpolate(b, size=(28, 28)))  # 264 x 16 at 28x28
        return c, self.strided(y)


@pytest.fixture(scope="module")
def lowered():
    torch.manual_seed(0)
    module = Blocks().eval()
    inputs = (torch.randn(1, 16, 7, 7), torch.randn(1, 16, 12, 12))
    edge = torchedge.to_edge(torch.export.export(module, inputs))
    return module, inputs, edge, edge.to_pte()


def test_transform_is_g_g_gt_and_recovers_the_filters():
    torch.manual_seed(1)
    g = torch.randn(5, 7, 3, 3)
    G = torch.tensor([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]],
                     dtype=torch.float64)
    u = transform_filters(g)
    assert u.shape == (16, 5, 7) and u.dtype == torch.float32
    want = torch.einsum("ia,ocab,jb->ijoc", G, g.double(), G).reshape(16, 5, 7)
    assert torch.allclose(u.double(), want, rtol=1e-6, atol=1e-6)
    assert torch.allclose(filters_from_u(u), g, rtol=0, atol=1e-6)
    # Zero middle taps come back exactly zero (inf * 0 stays NaN as in eager).
    g[:, :, 1, :] = 0
    g[:, :, :, 1] = 0
    assert torch.equal(filters_from_u(transform_filters(g))[:, :, :, 1], g[:, :, :, 1])


def test_only_the_layers_the_runtime_does_not_transform_are_rewritten(lowered):
    _, _, edge, pte = lowered
    ops = pte.operators["forward"]
    assert ops.count(WINOGRAD) == 1  # one operator entry, used twice
    plain = edge.to_pte(winograd_filters=False)
    assert WINOGRAD not in plain.operators["forward"]
    # The wide and the small-map filters are stored as U: 16/9 of their floats.
    filters = 16 * 264 * 9 + 264 * 264 * 9
    grown = len(pte.buffer) - len(plain.buffer)
    assert abs(grown - filters * 4 * 7 / 9) < 64 * 1024, grown


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_matches_eager(lowered, kernels, threads):
    module, inputs, _, pte = lowered
    with torch.no_grad():
        want = module(*inputs)
    _C.set_num_threads(threads)
    try:
        got = runtime.load(pte.buffer, kernels=kernels).forward(*inputs)
    finally:
        _C.set_num_threads(1)
    for w, g in zip(want, got):
        assert g.shape == w.shape
        assert scaled_error(w, g) <= RELATIVE_TOLERANCE, (kernels, threads)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_infinities_and_nans_propagate_as_in_eager(lowered, kernels):
    # The Winograd transforms would spread them across a tile; the optimized
    # kernel declines and the direct sums place them where eager does.
    module, inputs, _, pte = lowered
    x = inputs[0].clone()
    x[0, 3, 2, 2] = math.nan
    x[0, 5, 6, 0] = math.inf
    with torch.no_grad():
        want = module(x, inputs[1])[0]
    got = runtime.load(pte.buffer, kernels=kernels).forward(x, inputs[1])[0]
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(torch.isinf(got), torch.isinf(want))
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE


def test_edge_program_is_unchanged(lowered):
    _, _, edge, _ = lowered
    targets = {str(n.target) for n in edge.exported_program().graph.nodes
               if n.op == "call_function"}
    assert not any("winograd" in t for t in targets)
