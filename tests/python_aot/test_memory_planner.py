"""Lifetime-based memory planning: never overlap live tensors, stay near the bound."""

from __future__ import annotations

import random

import pytest
import torch

import torchedge
from models import MODELS
from torchedge.memory import Lifetime, lower_bound, plan_arena, tensor_lifetimes
from torchedge.memory.execution_plan import tensor_nbytes
from torchedge.memory.planner import align_up
from torchedge.serialize import schema as s


def _assert_valid(lifetimes: list[Lifetime], offsets: dict[int, int], arena: int, alignment: int = 16) -> None:
    for t in lifetimes:
        assert offsets[t.key] % alignment == 0
        assert offsets[t.key] + t.size <= arena
    for i, a in enumerate(lifetimes):
        for b in lifetimes[i + 1 :]:
            live_together = a.first <= b.last and b.first <= a.last
            if live_together and a.size and b.size:
                disjoint = (offsets[a.key] + a.size <= offsets[b.key]
                            or offsets[b.key] + b.size <= offsets[a.key])
                assert disjoint, f"{a} and {b} overlap in time and memory"


@pytest.mark.parametrize("seed", range(40))
def test_random_intervals(seed):
    rng = random.Random(seed)
    steps = rng.randint(1, 60)
    lifetimes = []
    for key in range(rng.randint(1, 80)):
        first = rng.randrange(steps)
        last = min(steps - 1, first + int(rng.expovariate(0.3)))
        size = rng.choice([0, 1, 4, 15, 16, 17, 100, 1000, rng.randint(1, 5000)])
        lifetimes.append(Lifetime(key, size, first, last))
    plan = plan_arena(lifetimes)
    _assert_valid(lifetimes, plan.offsets, plan.arena_bytes)
    assert plan.lower_bound_bytes == lower_bound(lifetimes)
    assert plan.arena_bytes >= plan.lower_bound_bytes
    assert plan.arena_bytes <= sum(align_up(t.size, 16) for t in lifetimes)


def test_lower_bound_counts_aligned_sizes_at_the_peak():
    lifetimes = [Lifetime(0, 10, 0, 1), Lifetime(1, 20, 1, 2), Lifetime(2, 100, 2, 2)]
    # instruction 1: 16 + 32; instruction 2: 32 + 112
    assert lower_bound(lifetimes) == 144
    plan = plan_arena(lifetimes)
    assert plan.arena_bytes == 144  # tensor 0 reuses tensor 2's bytes


def test_disjoint_lifetimes_share_memory():
    chain = [Lifetime(i, 64, i, i + 1) for i in range(10)]
    plan = plan_arena(chain)
    assert plan.arena_bytes == 128 == plan.lower_bound_bytes


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        plan_arena([Lifetime(0, 8, 3, 2)])
    with pytest.raises(ValueError):
        plan_arena([Lifetime(0, 8, 0, 1)], alignment=12)
    assert plan_arena([]).arena_bytes == 0


@pytest.mark.parametrize("name", sorted(MODELS))
def test_real_models(name):
    model, inputs = MODELS[name]()
    pte = torchedge.lower(model, inputs, methods=list(inputs))
    program = pte.inspect().program
    for plan in program.execution_plan:
        report = pte.memory_plan[plan.name]
        lifetimes = tensor_lifetimes(plan)
        offsets = {t.key: plan.values[t.key].allocation_info.offset for t in lifetimes}
        arena = plan.non_const_buffer_sizes[1]
        assert plan.non_const_buffer_sizes[0] == 0
        assert arena == report.arena_bytes >= report.lower_bound_bytes > 0
        assert report.num_tensors == len(lifetimes)
        _assert_valid(lifetimes, offsets, arena)
        for t in lifetimes:
            value = plan.values[t.key]
            assert value.allocation_info.memory_id == 1
            assert t.size == tensor_nbytes(value)
        # inputs are live from the start, outputs until the end
        last = len(plan.chains[0].instructions) - 1
        by_key = {t.key: t for t in lifetimes}
        assert all(by_key[i].first == 0 for i in plan.inputs)
        assert all(by_key[o].last == last for o in plan.outputs)


def test_dynamic_shapes_plan_at_upper_bound():
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).eval()
    batch = torch.export.Dim("batch", min=1, max=32)
    pte = torchedge.lower(model, (torch.randn(4, 8),), dynamic_shapes=({0: batch},))
    plan = pte.inspect().program.execution_plan[0]
    x = plan.values[plan.inputs[0]]
    y = plan.values[plan.outputs[0]]
    assert x.sizes == [32, 8] and y.sizes == [32, 8]
    assert x.shape_dynamism == s.TensorShapeDynamism.DYNAMIC_BOUND
    assert pte.memory_plan["forward"].arena_bytes >= 2 * 32 * 8 * 4


class _ResidualBlocks(torch.nn.Module):
    """Two residual blocks on blocked activations: the first's residual is
    read by nothing after its 1x1 convolution (written over in place); the
    second's residual is also its convolution's input (kept apart)."""

    def __init__(self, channels: int = 32) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, channels, 3, padding=1)
        self.a = torch.nn.Conv2d(channels, channels, 3, padding=1)
        self.b = torch.nn.Conv2d(channels, channels, 1)
        self.c = torch.nn.Conv2d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        y = torch.relu(self.b(torch.relu(self.a(x))) + x)
        z = torch.relu(self.c(y) + y)
        return z.mean((2, 3))


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_blocked_convolution_writes_over_its_dead_residual(kernels):
    from numerics import scaled_error  # tests/python_aot (conftest puts it on sys.path)
    from torchedge import runtime
    from torchedge.memory.execution_plan import in_place_pairs

    torch.manual_seed(0)
    model = _ResidualBlocks().eval()
    x = torch.randn(2, 3, 12, 12)
    pte = torchedge.lower(model, (x,))
    plan = pte.inspect().program.execution_plan[0]
    calls = [i for i in plan.chains[0].instructions
             if plan.operators[i.op_index].name == "torchedge::conv2d_blocked"]
    residual_calls = [i for i in calls if isinstance(plan.values[i.args[3]], s.Tensor)]
    assert len(residual_calls) == 2
    first, second = residual_calls
    assert in_place_pairs(plan) == [(first.args[3], first.args[-1])]
    offset = lambda index: plan.values[index].allocation_info.offset  # noqa: E731
    assert offset(first.args[3]) == offset(first.args[-1])
    assert second.args[0] == second.args[3]  # residual is the input too: not in place
    assert offset(second.args[3]) != offset(second.args[-1])
    lifetimes = tensor_lifetimes(plan)
    assert first.args[-1] not in {t.key for t in lifetimes}  # it has the residual's bytes
    _assert_valid(lifetimes, {t.key: offset(t.key) for t in lifetimes}, plan.non_const_buffer_sizes[1])
    got = runtime.load(pte.buffer, kernels=kernels).forward(x)
    assert scaled_error(model(x), got[0] if isinstance(got, (list, tuple)) else got) < 1e-5


def test_a_residual_read_later_keeps_its_bytes():
    from torchedge.memory.execution_plan import in_place_pairs

    class SharedResidual(_ResidualBlocks):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = torch.relu(self.stem(x))
            y = torch.relu(self.b(torch.relu(self.a(x))) + x)  # x is read again below
            return torch.relu(self.c(y) + x).mean((2, 3))  # x's last read: in place

    pte = torchedge.lower(SharedResidual().eval(), (torch.randn(1, 3, 12, 12),))
    plan = pte.inspect().program.execution_plan[0]
    calls = [i for i in plan.chains[0].instructions
             if plan.operators[i.op_index].name == "torchedge::conv2d_blocked"
             and isinstance(plan.values[i.args[3]], s.Tensor)]
    assert len(calls) == 2 and calls[0].args[3] == calls[1].args[3]
    assert in_place_pairs(plan) == [(calls[1].args[3], calls[1].args[-1])]
