"""to_pte's linear epilogue fusion (passes/linear_epilogue_fusion.py).

A prepacked linear layer followed (through views) by a residual add and / or
the exact GELU becomes one torchedge::linear_prepacked_fused call; programs
run on the optimized and portable kernels and match eager (float32,
rtol 1e-4 / atol 1e-5); the layers the rules exclude (a linear output read
twice, the tanh GELU, a broadcast residual, a residual computed after the
layer) keep their separate operators; the op's eager reference matches the
unfused computation; bad residuals are rejected with a named error.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchedge
from torchedge import runtime
from torchedge.passes import linear_prepacked_op
from torchedge.passes.linear_epilogue_fusion import LINEAR_PREPACKED_FUSED

FUSED_KERNEL = "torchedge::linear_prepacked_fused.out"
PREPACKED_KERNEL = "torchedge::linear_prepacked.out"
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


class Block(nn.Module):
    """A pre-norm transformer MLP block: fc1 + GELU and fc2 + residual fuse;
    N = 37 is not a multiple of 16."""

    def __init__(self, dim: int = 24, hidden: int = 37) -> None:
        super().__init__()
        self.norm, self.fc1, self.fc2 = nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.Linear(hidden, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        x = x + self.proj(self.norm(x))                # residual after a view (3-d input)
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class AddThenGelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16, bias=False)

    def forward(self, x):
        return F.gelu(x + self.fc(x))                  # residual first, then GELU: one call


class Excluded(nn.Module):
    """Nothing here may fuse."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b, self.c, self.d = (nn.Linear(16, 16) for _ in range(4))

    def forward(self, x, row):
        h = self.a(x)
        shared = h + x + h.sum()                       # h read twice
        tanh = F.gelu(self.b(x), approximate="tanh")   # not the exact GELU
        broadcast = self.c(x) + row                    # row [16] broadcast over the rows
        heads = self.d(x).reshape(6, 4, 4) + x.reshape(6, 4, 4)  # rows of 4, not of N = 16
        return shared, tanh, broadcast, heads


def _program(module: nn.Module, *inputs: torch.Tensor):
    return torchedge.lower(module.eval(), inputs)


def _outputs(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
@pytest.mark.parametrize("module, inputs, fused", [
    (Block(), (torch.randn(2, 5, 24),), 3),
    (AddThenGelu(), (torch.randn(7, 16),), 1),
])
def test_fused_programs_match_eager(module, inputs, fused, kernels):
    program = _program(module, *inputs)
    ops = program.operators["forward"]
    assert FUSED_KERNEL in ops, ops
    got = _outputs(runtime.load(program.buffer, kernels=kernels).forward(*inputs))
    with torch.no_grad():
        torch.testing.assert_close(got[0], module(*inputs), **TOLERANCE)
    # The folded adds and GELUs are gone from the program.
    assert "aten::gelu.out" not in ops
    if isinstance(module, Block):
        assert "aten::add.out" not in ops


def test_block_folds_three_epilogues():
    from torchedge.passes.linear_epilogue_fusion import fuse_linear_epilogues
    from torchedge.passes.weight_prepacking import prepack_linear_weights

    module, x = Block().eval(), torch.randn(2, 5, 24)
    ep = torchedge.to_edge(torch.export.export(module, (x,))).exported_program()
    import copy
    ep = copy.deepcopy(ep)
    assert prepack_linear_weights(ep) == 3
    assert fuse_linear_epilogues(ep.graph_module) == 3  # proj + add, fc1 + gelu, fc2 + add
    fused = [n for n in ep.graph.nodes if n.target == LINEAR_PREPACKED_FUSED]
    assert sorted((n.args[4] is not None, n.args[5]) for n in fused) == \
        [(False, True), (True, False), (True, False)]
    # Each fused call took the name of the add / GELU it ends with.
    assert sorted(n.name.rstrip("_0123456789") for n in fused) == ["add", "add", "gelu"]
    output = ep.graph.output_node().args[0][0]
    assert output.target == LINEAR_PREPACKED_FUSED  # the block's last add, still the output
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), **TOLERANCE)


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_excluded_patterns_stay_unfused(kernels):
    module, inputs = Excluded(), (torch.randn(6, 16), torch.randn(16))
    program = _program(module, *inputs)
    ops = program.operators["forward"]
    assert FUSED_KERNEL not in ops and PREPACKED_KERNEL in ops, ops
    got = _outputs(runtime.load(program.buffer, kernels=kernels).forward(*inputs))
    with torch.no_grad():
        for g, w in zip(got, module(*inputs)):
            torch.testing.assert_close(g, w, **TOLERANCE)


def test_fusion_off_without_fuse_activations():
    module, x = Block(), torch.randn(2, 5, 24)
    program = torchedge.to_edge(torch.export.export(module.eval(), (x,))).to_pte(
        fuse_activations=False)
    assert FUSED_KERNEL not in program.operators["forward"]


def test_reference_is_the_unfused_computation_and_checks_the_residual():
    w, x, b = torch.randn(37, 20), torch.randn(3, 4, 20), torch.randn(37)
    r = torch.randn(12, 37)                            # the rows of a [3, 4, 37] output
    packed = linear_prepacked_op.pack_weight(w)
    want = F.gelu(F.linear(x, w, b) + r.reshape(3, 4, 37))
    torch.testing.assert_close(LINEAR_PREPACKED_FUSED(x, packed, b, 37, r, True), want,
                               rtol=0, atol=0)
    torch.testing.assert_close(LINEAR_PREPACKED_FUSED(x, packed, None, 37, None, False),
                               F.linear(x, w), rtol=0, atol=0)
    with pytest.raises(ValueError, match="residual must be float32 with 444 elements"):
        LINEAR_PREPACKED_FUSED(x, packed, b, 37, torch.randn(37), False)
