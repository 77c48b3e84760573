"""Memory planning: where every non-constant tensor lives at run time."""

from torchedge.memory.execution_plan import MemoryReport, plan_memory, tensor_lifetimes
from torchedge.memory.planner import ArenaPlan, Lifetime, lower_bound, plan_arena

__all__ = [
    "ArenaPlan",
    "Lifetime",
    "MemoryReport",
    "lower_bound",
    "plan_arena",
    "plan_memory",
    "tensor_lifetimes",
]
