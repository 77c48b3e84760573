"""to_pte's group norm fusion (passes/group_norm_blocked_fusion.py).

A group norm (+ exact GELU) feeding a chain of blocked 1-d convolutions, as
in wav2vec2's feature extractor, becomes one torchedge::group_norm_blocked
call; programs run on the optimized and portable kernels and match eager
(float32, rtol 1e-4 / atol 1e-5), and the optimized kernel's values are the
unfused program's bit for bit; group norms the rules exclude (statistics
read, a second reader, C not a multiple of 16) stay unfused; the op's eager
reference is the unfused computation and rejects bad inputs by name.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchedge
from torchedge import runtime
from torchedge.passes.group_norm_blocked_fusion import GROUP_NORM_BLOCKED

FUSED_KERNEL = "torchedge::group_norm_blocked.out"
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


class FeatureExtractor(nn.Module):
    """wav2vec2's front end, small: conv (no bias) -> GroupNorm -> GELU, then
    conv + GELU layers (they become blocked convolutions)."""

    def __init__(self, channels: int = 32, groups: int = 32, gelu: bool = True,
                 second_reader: bool = False) -> None:
        super().__init__()
        self.stem = nn.Conv1d(1, channels, 10, 5, bias=False)
        self.norm = nn.GroupNorm(groups, channels, affine=True)
        self.convs = nn.ModuleList(nn.Conv1d(channels, channels, 3, 2, bias=False)
                                   for _ in range(3))
        self.gelu, self.second_reader = gelu, second_reader
        with torch.no_grad():  # not the identity affine
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        h = self.norm(self.stem(x.unsqueeze(1)))
        extra = h.sum() if self.second_reader else None
        if self.gelu:
            h = F.gelu(h)
        for conv in self.convs:
            h = F.gelu(conv(h))
        return h if extra is None else h + extra


def _run(program, x: torch.Tensor, kernels: str = "optimized") -> torch.Tensor:
    out = runtime.load(program.buffer, kernels=kernels).forward(x)
    return out[0] if isinstance(out, (list, tuple)) else out


def _program(module: nn.Module, x: torch.Tensor, **options):
    ep = torch.export.export(module.eval(), (x,))
    return torchedge.to_edge(ep).to_pte(**options)


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
@pytest.mark.parametrize("groups, gelu", [(32, True), (8, True), (2, False), (1, True)])
def test_fused_programs_match_eager(groups, gelu, kernels):
    # groups 32 / 8 / 2 keep whole groups in each 16-channel block (the
    # optimized kernel's fast case); one group of 32 channels goes to the
    # portable kernel from the optimized library.
    torch.manual_seed(groups)
    module, x = FeatureExtractor(groups=groups, gelu=gelu), torch.randn(2, 1000)
    program = _program(module, x)
    ops = program.operators["forward"]
    assert FUSED_KERNEL in ops and "aten::native_group_norm.out" not in ops, ops
    assert "torchedge::to_blocked.out" not in ops, ops
    got = _run(program, x, kernels)
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


def test_optimized_values_are_the_unfused_programs():
    torch.manual_seed(0)
    module, x = FeatureExtractor(), torch.randn(1, 3000)
    fused = _run(_program(module, x), x)
    # Without fuse_activations the group norm, to_blocked and GELU stay apart
    # (and so do the convolutions' GELUs: the unfused chain's own kernels).
    unfused_program = _program(module, x, fuse_activations=False)
    assert FUSED_KERNEL not in unfused_program.operators["forward"]
    assert "aten::native_group_norm.out" in unfused_program.operators["forward"]
    unfused = _run(unfused_program, x)
    # Every step computes the same values (the GELUs after the convolutions
    # run fused in one program and apart in the other: same vector GELU).
    torch.testing.assert_close(fused, unfused, rtol=0, atol=0)


@pytest.mark.parametrize("module", [
    FeatureExtractor(second_reader=True),       # the normalized value is read twice
    FeatureExtractor(channels=24, groups=24),   # C not a multiple of 16 (padded lanes)
], ids=["second_reader", "channels_24"])
def test_excluded_patterns_stay_unfused(module):
    torch.manual_seed(1)
    x = torch.randn(1, 1000)
    program = _program(module, x)
    ops = program.operators["forward"]
    assert FUSED_KERNEL not in ops and "aten::native_group_norm.out" in ops, ops
    got = _run(program, x)
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


def test_pass_names_the_fused_call_after_the_gelu_and_keeps_the_source_line():
    import copy

    from torchedge.passes.blocked_layout import use_blocked_layout
    from torchedge.passes.group_norm_blocked_fusion import fuse_group_norm_blocked

    module, x = FeatureExtractor().eval(), torch.randn(1, 1000)
    ep = copy.deepcopy(torchedge.to_edge(torch.export.export(module, (x,))).exported_program())
    assert use_blocked_layout(ep) > 0
    assert fuse_group_norm_blocked(ep.graph_module) == 1
    (node,) = [n for n in ep.graph.nodes if n.target == GROUP_NORM_BLOCKED]
    assert node.name == "gelu" and node.args[3:] == (32, 1e-5, True)
    assert "self.norm" in node.meta.get("stack_trace", "")
    assert not [n for n in ep.graph.nodes if n.target == torch.ops.aten.native_group_norm.default]
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), **TOLERANCE)


def test_reference_is_the_unfused_computation_and_checks_inputs():
    x, w, b = torch.randn(2, 32, 7), torch.randn(32), torch.randn(32)
    want = F.gelu(F.group_norm(x, 4, w, b, 1e-5)).reshape(2, 2, 16, 1, 7).permute(0, 1, 3, 4, 2)
    torch.testing.assert_close(GROUP_NORM_BLOCKED(x, w, b, 4, 1e-5, True), want, rtol=0, atol=0)
    x4 = torch.randn(1, 16, 3, 5)
    want4 = F.group_norm(x4, 16).reshape(1, 1, 16, 3, 5).permute(0, 1, 3, 4, 2)
    torch.testing.assert_close(GROUP_NORM_BLOCKED(x4, None, None, 16, 1e-5, False), want4,
                               rtol=0, atol=0)
    with pytest.raises(ValueError, match="C a multiple of 16"):
        GROUP_NORM_BLOCKED(torch.randn(1, 24, 5), None, None, 24, 1e-5, False)
