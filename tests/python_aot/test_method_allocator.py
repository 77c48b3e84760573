"""torchedge.memory.method_allocator: what load_method allocates, per category,
for a target's type sizes (it sizes the Cortex-M firmware's method pool; the
firmware ctests check it against what the M33 build uses: scripts/run_firmware.py)."""

from __future__ import annotations

import torch

import torchedge
from torchedge import runtime
from torchedge.memory.method_allocator import (
    CATEGORIES, CORTEX_M33, LP64, method_allocator_bytes, method_allocator_usage)


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))


def _program():
    torch.manual_seed(0)
    return torchedge.lower(_Net().eval(), (torch.randn(1, 3, 8, 8),))


def test_categories_add_up_and_scale_with_the_abi():
    plan = _program().inspect().program.execution_plan[0]
    m33, lp64 = method_allocator_usage(plan, CORTEX_M33), method_allocator_usage(plan, LP64)
    assert tuple(m33) == CATEGORIES and sum(m33.values()) == method_allocator_bytes(plan)
    assert m33["values"] == len(plan.values) * CORTEX_M33.evalue
    assert all(lp64[k] >= m33[k] for k in CATEGORIES)  # wider pointers, larger types


def test_within_the_runtimes_own_upper_bound():
    """MethodMeta::method_allocator_bytes (the host runtime's bound, padding
    every allocation to 16 bytes) covers the packed layout mirrored here."""
    program = _program()
    plan = program.inspect().program.execution_plan[0]
    bound = runtime.load(program.buffer).method("forward").meta["method_allocator_bytes"]
    assert method_allocator_bytes(plan, LP64) <= bound
