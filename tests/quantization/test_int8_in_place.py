"""The memory planner's in-place rule for the int8 convolutions
(python/torchedge/memory/execution_plan.py, IN_PLACE_ARGUMENT): a pointwise
conv2d_int8 and a same-size depthwise_conv2d_int8 write over their input when
it dies there, and the runtime's outputs equal those of the plan with
separate outputs bit for bit (the kernels' contract:
kernels/quantized/support/overlapping_input.h, kernels/cortex_m/support)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchedge
from torchedge import models, runtime
from torchedge import quantization as tq
from torchedge.memory import execution_plan
from torchedge.serialize import schema as s


def _ds_cnn_int8():
    spec = models.get("ds_cnn_kws")
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(1, 1, 49, 10, generator=g)
    calibration = [(torch.randn(x.shape, generator=g),) for _ in range(4)]
    return tq.quantize_pt2e(spec.module, (x,), calibration)


def _programs(ep, monkeypatch):
    in_place = torchedge.to_edge(ep).to_pte()
    with monkeypatch.context() as m:
        m.setattr(execution_plan, "IN_PLACE_ARGUMENT", {})
        separate = torchedge.to_edge(ep).to_pte()
    return in_place, separate


def _pairs_by_op(program) -> list[str]:
    """The ops whose out has its first argument's arena offset."""
    plan = program.inspect().program.execution_plan[0]

    def offset(index):
        value = plan.values[index]
        info = value.allocation_info if isinstance(value, s.Tensor) else None
        return None if info is None else info.offset

    calls = [i for chain in plan.chains for i in chain.instructions if isinstance(i, s.KernelCall)]
    return [plan.operators[i.op_index].name for i in calls
            if offset(i.args[0]) is not None and offset(i.args[0]) == offset(i.args[-1])]


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_ds_cnn_int8_in_place_is_bit_exact_and_halves_the_arena(monkeypatch, kernels):
    ep = _ds_cnn_int8()
    in_place, separate = _programs(ep, monkeypatch)
    assert _pairs_by_op(in_place) == ["torchedge::depthwise_conv2d_int8",
                                      "torchedge::conv2d_int8"] * 4
    assert _pairs_by_op(separate) == []
    # Separate: two 64x25x5 int8 activations live at once; in place: one, and
    # the quantized 49x10 input beside it at the first convolution.
    assert separate.memory_plan["forward"].arena_bytes >= 2 * 64 * 25 * 5
    assert in_place.memory_plan["forward"].arena_bytes <= 64 * 25 * 5 + 512
    a = runtime.load(in_place.buffer, kernels=kernels)
    b = runtime.load(separate.buffer, kernels=kernels)
    for seed in range(4):
        x = torch.randn(1, 1, 49, 10, generator=torch.Generator().manual_seed(seed)) * (1 + seed)
        assert torch.equal(a.forward(x)[0], b.forward(x)[0]), seed


class NotInPlace(nn.Module):
    """A 3x3 conv with Cin == Cout (equal sizes, but each output reads its
    neighbours), a strided depthwise and a pointwise conv whose input is read
    again later: none may write over its input."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(8, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.c = nn.Conv2d(8, 8, 1)

    def forward(self, x):
        y = F.relu(self.a(x))
        z = F.relu(self.b(y))
        return self.c(z) + z


def test_other_convolutions_keep_separate_outputs(monkeypatch):
    torch.manual_seed(0)
    x = torch.randn(1, 8, 8, 8)
    ep = tq.quantize_pt2e(NotInPlace().eval(), (x,), [(torch.randn(1, 8, 8, 8),) for _ in range(3)])
    in_place, _ = _programs(ep, monkeypatch)
    assert _pairs_by_op(in_place) == []
