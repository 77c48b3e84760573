"""Memory planning of an emitted ExecutionPlan.

Every planned tensor gets `allocation_info = (memory_id, offset)` in one
arena, and the plan's `non_const_buffer_sizes` becomes [0, arena_bytes].

Planned tensors are, following the ET12 conventions:
  * activations: Tensor values without data (data_buffer_idx == 0 and not
    stored in a .ptd), i.e. plan inputs, intermediates and outputs, sized at
    their upper bound;
  * mutable buffers: Tensor values with an initial value (data_buffer_idx
    > 0, indexing Program.mutable_data_segments) *and* allocation_info. The
    emitter marks them with a provisional allocation_info; their memory holds
    state from one execution to the next, so they are live over the whole
    plan and never share bytes with anything.
Tensor values that only receive a MoveCall (the result of torch.cond: each
branch moves its result there) get no memory of their own; they alias the
moved tensor, whose lifetime is extended to cover every use of the alias.
The `out` of an `executorch_prim::et_view` call (emit/view_aliases.py) is an
alias the same way: the kernel points it at its `self` at run time.

Written over the residual: a `torchedge::conv2d_blocked` call whose residual
is read by nothing after it writes its output into the residual's bytes
(`in_place_pairs`; the op allows out to be its residual, as ONNX Runtime's
NCHWc convolution takes its Sum input: the output then costs no
read-for-ownership traffic of its own, and the arena shrinks). The output
shares the residual's offset, and the residual's lifetime stretches to the
output's last use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

from torchedge.aten.dtypes import element_size
from torchedge.memory.planner import DEFAULT_ALIGNMENT, Lifetime, plan_arena
from torchedge.serialize import schema as s

MEMORY_ID = 1


@dataclass(frozen=True)
class MemoryReport:
    """How well one method's arena is packed."""

    arena_bytes: int         # size of the planned arena (memory_id 1)
    lower_bound_bytes: int   # peak live bytes: no plan can be smaller
    num_tensors: int         # planned tensors (inputs, intermediates, outputs, buffers)
    mutable_buffer_bytes: int = 0  # of arena_bytes, held by mutable buffers

    @property
    def efficiency(self) -> float:
        return 1.0 if self.arena_bytes == 0 else self.lower_bound_bytes / self.arena_bytes


def tensor_nbytes(tensor: s.Tensor) -> int:
    """Bytes of a tensor at its (upper-bound) sizes."""
    return math.prod(tensor.sizes) * element_size(tensor.scalar_type)


def is_mutable_buffer(value: s.KernelValue) -> bool:
    """A planned tensor holding state: it has an initial value, or it is a
    named buffer stored without one (all zeros, e.g. a KV cache)."""
    if not isinstance(value, s.Tensor) or value.allocation_info is None:
        return False
    extra = value.extra_tensor_info
    return value.data_buffer_idx > 0 or bool(extra is not None and extra.fully_qualified_name)


def is_external(value: s.KernelValue) -> bool:
    """A constant whose bytes are in a .ptd (data_buffer_idx is 0 there too)."""
    extra = getattr(value, "extra_tensor_info", None)
    return extra is not None and extra.location == s.TensorDataLocation.EXTERNAL


def is_planned(value: s.KernelValue) -> bool:
    if not isinstance(value, s.Tensor) or (is_external(value) and value.allocation_info is None):
        return False
    return value.data_buffer_idx == 0 or is_mutable_buffer(value)


def _tensor_indices(plan: s.ExecutionPlan, index: int) -> list[int]:
    value = plan.values[index]
    if isinstance(value, s.Tensor):
        return [index]
    if isinstance(value, (s.TensorList, s.OptionalTensorList)):
        return [i for i in value.items if i >= 0]
    return []


def _instructions(plan: s.ExecutionPlan) -> list[s.InstructionArguments]:
    return [i for chain in plan.chains for i in chain.instructions]


# The memory-sharing view the emitter writes for reshapes (emit/view_aliases.py).
ET_VIEW = ("executorch_prim::et_view", "default")


def alias_pairs(plan: s.ExecutionPlan) -> list[tuple[int, int]]:
    """(source, alias) for every MoveCall and every et_view(self, size, out) call."""
    pairs = []
    for i in _instructions(plan):
        if isinstance(i, s.MoveCall):
            pairs.append((i.move_from, i.move_to))
        elif isinstance(i, s.KernelCall):
            op = plan.operators[i.op_index]
            if (op.name, op.overload) == ET_VIEW:
                pairs.append((i.args[0], i.args[2]))
    return pairs


# Ops whose `out` may be the tensor at the given argument index, and when
# (a predicate over the call's argument values; the sizes must also match,
# see in_place_pairs). Each is a kernel contract every library that registers
# the op honours (out written over that input gives the bytes of a separate
# out):
#   conv2d_blocked: kernels that read each value of it before writing that
#     output position (kernels/portable/op_conv2d_blocked.cpp, conv/conv2d_blocked.h);
#   conv2d_int8, 1x1 / stride 1 / unpadded: the Cortex-M kernel gathers each
#     pixel of every plane before writing that pixel's outputs
#     (kernels/cortex_m/support/int8_conv_dsp.cpp); the quantized library
#     copies an overlapping input to kernel scratch first (op_conv2d_int8.cpp);
#   depthwise_conv2d_int8 (equal in/out sizes): the Cortex-M kernel copies each
#     plane into its zero-bordered scratch before writing that output plane;
#     the quantized library copies an overlapping input first.
# Both int8 ops: row-major tensors only (the planes are contiguous).
def _always(plan: s.ExecutionPlan, args: list[int]) -> bool:
    return True


def _int_list(plan: s.ExecutionPlan, index: int) -> Optional[list[int]]:
    value = plan.values[index]
    if not isinstance(value, s.IntList):
        return None
    items = [plan.values[i] for i in value.items]
    return [v.int_val for v in items] if all(isinstance(v, s.Int) for v in items) else None


def _row_major(plan: s.ExecutionPlan, index: int) -> bool:
    value = plan.values[index]
    return isinstance(value, s.Tensor) and list(value.dim_order) == list(range(len(value.sizes)))


def _pointwise_int8_conv(plan: s.ExecutionPlan, args: list[int]) -> bool:
    # input, ..., kernel_size (6), stride (7), padding (8), ..., out (last)
    return len(args) >= 10 and _int_list(plan, args[6]) == [1, 1] \
        and _int_list(plan, args[7]) == [1, 1] and _int_list(plan, args[8]) == [0, 0] \
        and _row_major(plan, args[0]) and _row_major(plan, args[-1])


def _row_major_in_out(plan: s.ExecutionPlan, args: list[int]) -> bool:
    return _row_major(plan, args[0]) and _row_major(plan, args[-1])


IN_PLACE_ARGUMENT: dict[tuple[str, str], tuple[int, Callable[[s.ExecutionPlan, list[int]], bool]]] = {
    ("torchedge::conv2d_blocked", "out"): (3, _always),
    ("torchedge::conv2d_int8", "out"): (0, _pointwise_int8_conv),
    ("torchedge::depthwise_conv2d_int8", "out"): (0, _row_major_in_out),
}


def in_place_pairs(plan: s.ExecutionPlan) -> list[tuple[int, int]]:
    """(residual, out) for every call of an IN_PLACE_ARGUMENT op that may
    write its output over that argument: both are planned activations of
    the same byte size, neither is a plan input, output or mutable buffer,
    neither takes part in a move or view alias, the residual is no other
    argument of the call, and no instruction after the call reads it. Plans
    with control flow keep separate outputs (instruction order is not
    execution order there)."""
    instructions = _instructions(plan)
    if any(isinstance(i, s.JumpFalseCall) for i in instructions):
        return []
    _, last = _uses(plan)
    aliased = {v for pair in alias_pairs(plan) for v in pair}
    boundary = set(plan.inputs) | set(plan.outputs)
    pairs = []
    for position, instruction in enumerate(instructions):
        if not isinstance(instruction, s.KernelCall):
            continue
        op = plan.operators[instruction.op_index]
        rule = IN_PLACE_ARGUMENT.get((op.name, op.overload))
        if rule is None or len(instruction.args) <= rule[0]:
            continue
        at, allowed = rule
        if not allowed(plan, list(instruction.args)):
            continue
        residual, out = instruction.args[at], instruction.args[-1]
        values = [plan.values[residual], plan.values[out]]
        if not all(isinstance(v, s.Tensor) and is_planned(v) and not is_mutable_buffer(v) for v in values):
            continue
        if {residual, out} & (boundary | aliased) or residual == out:
            continue
        if instruction.args.count(residual) != 1 or last.get(residual) != position:
            continue
        if tensor_nbytes(values[0]) != tensor_nbytes(values[1]):
            continue
        pairs.append((residual, out))
    return pairs


def _in_place_roots(plan: s.ExecutionPlan) -> dict[int, int]:
    """out -> the tensor whose bytes it takes (following chains: a block's
    output written over its residual can be the next block's residual)."""
    root: dict[int, int] = {}
    for residual, out in in_place_pairs(plan):
        root[out] = root.get(residual, residual)
    return root


def move_destinations(plan: s.ExecutionPlan) -> set[int]:
    """Values with no memory of their own: written only by MoveCall (never an
    argument of a kernel before that) or the out of an et_view."""
    return {alias for _, alias in alias_pairs(plan)}


def _uses(plan: s.ExecutionPlan) -> tuple[dict[int, int], dict[int, int]]:
    """First and last instruction touching each tensor value, with plan inputs
    live from instruction 0 and plan outputs to the last instruction."""
    instructions = _instructions(plan)
    last_instruction = max(len(instructions) - 1, 0)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for position, instruction in enumerate(instructions):
        if isinstance(instruction, s.MoveCall):
            touched = [instruction.move_from, instruction.move_to]
        elif isinstance(instruction, s.JumpFalseCall):
            touched = [instruction.cond_value_index]
        else:
            touched = getattr(instruction, "args", [])
        for arg in touched:
            for index in _tensor_indices(plan, arg):
                first.setdefault(index, position)
                last[index] = position
    for index in plan.inputs:
        first[index] = 0
        last.setdefault(index, 0)
    for index in plan.outputs:
        first.setdefault(index, last_instruction)
        last[index] = last_instruction
    return first, last


def _extend_moved(plan: s.ExecutionPlan, last: dict[int, int]) -> None:
    """A moved or viewed tensor lives as long as its alias (to a fixed point:
    a cond result can be moved on by an enclosing cond, a view viewed again)."""
    moves = alias_pairs(plan)
    changed = True
    while changed:
        changed = False
        for source, target in moves:
            end = last.get(target)
            if end is not None and last.get(source, -1) < end:
                last[source] = end
                changed = True


def tensor_lifetimes(plan: s.ExecutionPlan) -> list[Lifetime]:
    """[first, last] instruction of every planned tensor of the plan's chains."""
    first, last = _uses(plan)
    _extend_moved(plan, last)
    aliases = move_destinations(plan)
    for out, root in _in_place_roots(plan).items():
        last[root] = max(last[root], last.get(out, first.get(out, 0)))
        aliases.add(out)
    end = max(len(_instructions(plan)) - 1, 0)
    lifetimes = []
    for index, value in enumerate(plan.values):
        if not is_planned(value) or index in aliases:
            continue
        if is_mutable_buffer(value):
            lifetimes.append(Lifetime(index, tensor_nbytes(value), 0, end))
            continue
        start = first.get(index, 0)
        lifetimes.append(Lifetime(index, tensor_nbytes(value), start, max(last.get(index, start), start)))
    return lifetimes


def plan_memory(plan: s.ExecutionPlan, alignment: int = DEFAULT_ALIGNMENT) -> MemoryReport:
    """Assigns arena offsets to every planned tensor of `plan`, in place."""
    lifetimes = tensor_lifetimes(plan)
    arena = plan_arena(lifetimes, alignment)
    for t in lifetimes:
        plan.values[t.key].allocation_info = s.AllocationDetails.at(MEMORY_ID, arena.offsets[t.key])
    for out, root in _in_place_roots(plan).items():
        plan.values[out].allocation_info = s.AllocationDetails.at(MEMORY_ID, arena.offsets[root])
    plan.non_const_buffer_sizes = [0, arena.arena_bytes]
    buffer_bytes = sum(t.size for t in lifetimes if is_mutable_buffer(plan.values[t.key]))
    return MemoryReport(arena.arena_bytes, arena.lower_bound_bytes, len(lifetimes), buffer_bytes)
