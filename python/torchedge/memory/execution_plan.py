"""Memory planning of an emitted ExecutionPlan.

Every planned tensor (a Tensor value with no constant data) gets
`allocation_info = (memory_id, offset)` in one arena, and the plan's
`non_const_buffer_sizes` becomes [0, arena_bytes].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from torchedge.aten.dtypes import element_size
from torchedge.memory.planner import DEFAULT_ALIGNMENT, Lifetime, plan_arena
from torchedge.serialize import schema as s

MEMORY_ID = 1


@dataclass(frozen=True)
class MemoryReport:
    """How well one method's arena is packed."""

    arena_bytes: int         # size of the planned arena (memory_id 1)
    lower_bound_bytes: int   # peak live bytes: no plan can be smaller
    num_tensors: int         # planned tensors (inputs, intermediates, outputs)

    @property
    def efficiency(self) -> float:
        return 1.0 if self.arena_bytes == 0 else self.lower_bound_bytes / self.arena_bytes


def tensor_nbytes(tensor: s.Tensor) -> int:
    """Bytes of a tensor at its (upper-bound) sizes."""
    return math.prod(tensor.sizes) * element_size(tensor.scalar_type)


def is_planned(value: s.KernelValue) -> bool:
    return isinstance(value, s.Tensor) and value.data_buffer_idx == 0


def _tensor_indices(plan: s.ExecutionPlan, index: int) -> list[int]:
    value = plan.values[index]
    if isinstance(value, s.Tensor):
        return [index]
    if isinstance(value, (s.TensorList, s.OptionalTensorList)):
        return [i for i in value.items if i >= 0]
    return []


def tensor_lifetimes(plan: s.ExecutionPlan) -> list[Lifetime]:
    """[first, last] instruction of every planned tensor of the plan's chains.

    Plan inputs are live from instruction 0 and plan outputs to the last
    instruction, whatever the instructions do with them.
    """
    instructions = [i for chain in plan.chains for i in chain.instructions]
    last_instruction = max(len(instructions) - 1, 0)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for position, instruction in enumerate(instructions):
        args = getattr(instruction, "args", [])
        for arg in args:
            for index in _tensor_indices(plan, arg):
                first.setdefault(index, position)
                last[index] = position
    for index in plan.inputs:
        first[index] = 0
        last.setdefault(index, 0)
    for index in plan.outputs:
        first.setdefault(index, last_instruction)
        last[index] = last_instruction
    return [
        Lifetime(index, tensor_nbytes(value), first.get(index, 0), last.get(index, first.get(index, 0)))
        for index, value in enumerate(plan.values)
        if is_planned(value)
    ]


def plan_memory(plan: s.ExecutionPlan, alignment: int = DEFAULT_ALIGNMENT) -> MemoryReport:
    """Assigns arena offsets to every planned tensor of `plan`, in place."""
    lifetimes = tensor_lifetimes(plan)
    arena = plan_arena(lifetimes, alignment)
    for t in lifetimes:
        plan.values[t.key].allocation_info = s.AllocationDetails.at(MEMORY_ID, arena.offsets[t.key])
    plan.non_const_buffer_sizes = [0, arena.arena_bytes]
    return MemoryReport(arena.arena_bytes, arena.lower_bound_bytes, len(lifetimes))
