"""What a method's allocator holds once load_method has run, per category.

The runtime's method allocator (a bump allocator over a caller's buffer)
receives, in this order (runtime/executor/value_parser.cpp, method.cpp):

  values      the EValue table, one per value of the plan
  tensors     per tensor value one block: Tensor, sizes[dim], strides[dim]
              (int32), dim_order[dim] (uint8)
  lists       per IntList its EValue* items and an int64 scratch; per
              (optional) TensorList its Tensor* items
  delegates   one BackendDelegate (3 pointers) per delegate and its compile
              specs (3 pointers each, + 1), plus what the backend's init
              allocates (not known here: reported as 0)
  steps       one Step per instruction
  kernels     one function pointer per operator
  arguments   per kernel or delegate call its EValue* arguments + 1 (the
              produced value; for kernel calls at most len(args) + 1)

Each allocation is aligned to its type's alignment (allocate_packed_array),
except the delegates' (16). Walking the plan in that order with the
target's type sizes gives the bytes the allocator will have used, up to the
argument lists' dropped return tail (an upper bound by one pointer per such
call): what a firmware's static pool must hold (scripts/embed_program.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from torchedge.serialize import schema as s


@dataclass(frozen=True)
class Abi:
    """Sizes and alignments of the runtime's types on one target."""

    pointer: int
    evalue: int
    evalue_align: int
    tensor: int
    tensor_align: int
    step: int


# arm-none-eabi-g++ 12 for -mcpu=cortex-m33 (the firmware), and x86-64 / AArch64 Linux.
CORTEX_M33 = Abi(pointer=4, evalue=24, evalue_align=8, tensor=28, tensor_align=4, step=24)
LP64 = Abi(pointer=8, evalue=32, evalue_align=8, tensor=56, tensor_align=8, step=40)

CATEGORIES = ("values", "tensors", "lists", "delegates", "steps", "kernels", "arguments")


class _Bump:
    def __init__(self, base_alignment: int = 16) -> None:
        self.used = 0
        self.base_alignment = base_alignment

    def allocate(self, nbytes: int, alignment: int) -> int:
        start = self.used
        self.used = (self.used + alignment - 1) // alignment * alignment + nbytes
        return self.used - start


def method_allocator_usage(plan: s.ExecutionPlan, abi: Abi = CORTEX_M33) -> dict[str, int]:
    """Bytes of the method allocator each category takes (padding included)
    for one execution plan on a target with `abi`; keys: CATEGORIES."""
    bump = _Bump()
    used = dict.fromkeys(CATEGORIES, 0)
    used["values"] += bump.allocate(len(plan.values) * abi.evalue, abi.evalue_align)
    for value in plan.values:
        if isinstance(value, s.Tensor):
            dim = len(value.sizes)
            used["tensors"] += bump.allocate(abi.tensor + dim * 9, abi.tensor_align)
    for value in plan.values:
        if isinstance(value, s.IntList):
            used["lists"] += bump.allocate(len(value.items) * abi.pointer, abi.pointer)
            used["lists"] += bump.allocate(len(value.items) * 8, 8)
        elif isinstance(value, (s.TensorList, s.OptionalTensorList)):
            used["lists"] += bump.allocate(len(value.items) * abi.pointer, abi.pointer)
    delegates = list(plan.delegates or [])
    used["delegates"] += bump.allocate(len(delegates) * 3 * abi.pointer, 16)
    for delegate in delegates:
        specs = len(delegate.compile_specs or [])
        used["delegates"] += bump.allocate((specs + 1) * 3 * abi.pointer, 16)
    instructions = [i for chain in plan.chains[:1] for i in chain.instructions]
    used["steps"] += bump.allocate(len(instructions) * abi.step, abi.pointer)
    used["kernels"] += bump.allocate(len(plan.operators) * abi.pointer, abi.pointer)
    for instruction in instructions:
        if isinstance(instruction, (s.KernelCall, s.DelegateCall)):
            used["arguments"] += bump.allocate((len(instruction.args) + 1) * abi.pointer,
                                               abi.pointer)
    return used


def method_allocator_bytes(plan: s.ExecutionPlan, abi: Abi = CORTEX_M33) -> int:
    """The method allocator's bytes for `plan` on `abi` (see the module docstring)."""
    return sum(method_allocator_usage(plan, abi).values())
