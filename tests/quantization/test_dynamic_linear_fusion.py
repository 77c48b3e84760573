"""fuse_dynamic_linear (python/torchedge/quantization/dynamic_linear_fusion.py):
which graphs it rewrites, that the eager quantized model computes exactly
what it computed before, and that the runtime's int8 kernel matches it."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import torchedge
from torchedge import quantization as tq
from torchedge import runtime


class Block(nn.Module):
    """Linear layers as a transformer uses them: 3-D tokens, shared input, no-bias layer."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.k = nn.Linear(24, 24), nn.Linear(24, 24)
        self.up, self.down = nn.Linear(24, 64), nn.Linear(64, 24, bias=False)

    def forward(self, x):
        h = self.q(x) * self.k(x)
        return self.down(torch.relu(self.up(h))) + x


def _inputs(seed: int = 0) -> torch.Tensor:
    return torch.randn(2, 10, 24, generator=torch.Generator().manual_seed(seed))


def _quantize(fuse: bool) -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    return tq.quantize_pt2e(Block().eval(), (_inputs(),), config=tq.dynamic_config(),
                            fuse_dynamic_linear=fuse)


def _targets(ep: torch.export.ExportedProgram) -> list:
    return [n.target for n in ep.graph.nodes if n.op == "call_function"]


def test_every_linear_is_fused_and_eager_numerics_are_unchanged():
    fused, unfused = _quantize(True), _quantize(False)
    targets = _targets(fused)
    assert targets.count(torch.ops.torchedge.linear_dynamic_int8.default) == 4
    assert torch.ops.aten.linear.default not in targets
    assert not [t for t in targets if "quantized_decomposed" in str(t)], targets
    for seed in range(3):
        x = _inputs(seed)
        assert torch.equal(fused.module()(x), unfused.module()(x))


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_runtime_matches_eager_quantized_reference(kernels):
    ep = _quantize(True)
    program = runtime.load(torchedge.to_edge(ep).to_pte().buffer, kernels=kernels)
    for seed in range(3):
        x = _inputs(seed)
        want = ep.module()(x)
        got = program.forward(x)
        got = got[0] if isinstance(got, (list, tuple)) else got
        # Same integers; the kernel's int32 sums vs the reference's float sums.
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_pattern_that_does_not_match_is_left_alone():
    """A non-zero weight zero point (asymmetric weights) keeps the five-op form."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

    torch.manual_seed(0)
    prepared = tq.prepare(Block().eval(), (_inputs(),), tq.dynamic_config())
    prepared(_inputs())
    converted = convert_pt2e(prepared)
    zero_points = [name for name, _ in converted.named_buffers() if "zero_point" in name]
    assert zero_points
    for name in zero_points:
        getattr(converted, name).fill_(1)
    before = [n.target for n in converted.graph.nodes]
    assert tq.fuse_dynamic_linear(converted) == 0
    assert [n.target for n in converted.graph.nodes] == before
