"""Give Python numbers passed as Tensor arguments a type the runtime can run."""

from __future__ import annotations

import numbers
from typing import Optional

import torch
import torch.fx
from torch._ops import OpOverload

from torchedge.aten.arguments import bind_arguments, call_arguments

aten = torch.ops.aten


_SYMBOLIC_SCALARS = (torch.SymInt, torch.SymFloat, torch.SymBool)


def _is_number(value: object) -> bool:
    """A Python number, or a graph node computing one (a size expression
    such as `n * 0.5` with dynamic shapes)."""
    if isinstance(value, torch.fx.Node):
        return isinstance(value.meta.get("val"), _SYMBOLIC_SCALARS)
    return isinstance(value, numbers.Number) and not isinstance(value, complex)


def _example(value: object) -> object:
    """A plain number of the same Python type as `value` (for type promotion)."""
    if isinstance(value, torch.fx.Node):
        val = value.meta["val"]
        return True if isinstance(val, torch.SymBool) else 1.0 if isinstance(val, torch.SymFloat) else 1
    return value


def _scalar_overload(op: OpOverload, names: frozenset[str]) -> Optional[OpOverload]:
    """The core overload of op's packet taking Scalar for `names`, same otherwise."""
    wanted = [
        (a.name, "number" if a.name in names else str(a.real_type))
        for a in op._schema.arguments
    ]
    packet = op.overloadpacket
    for overload in packet.overloads():
        candidate = getattr(packet, overload)
        got = [(a.name, str(a.real_type)) for a in candidate._schema.arguments]
        if (
            got == wanted
            and len(candidate._schema.returns) == len(op._schema.returns)
            and torch.Tag.core in candidate.tags
        ):
            return candidate
    return None


def _tensor_slots_with_numbers(node: torch.fx.Node) -> dict[str, object]:
    bound = bind_arguments(node.target._schema, node.args, node.kwargs)
    return {
        a.name: bound[a.name]
        for a in node.target._schema.arguments
        if str(a.real_type) == "Tensor" and a.name in bound and _is_number(bound[a.name])
    }


def _wrapped_number_dtype(node: torch.fx.Node, value: object) -> torch.dtype:
    """The dtype a 0-dim tensor needs to promote like the wrapped number did."""
    value = _example(value)
    tensors = [a.meta["val"] for a in node.all_input_nodes if isinstance(a.meta.get("val"), torch.Tensor)]
    if not tensors:
        return torch.get_default_dtype() if isinstance(value, float) else (
            torch.bool if isinstance(value, bool) else torch.int64
        )
    return torch.result_type(tensors[0], value)


def use_scalar_overloads(gm: torch.fx.GraphModule) -> bool:
    """Removes Python numbers from Tensor-typed argument slots.

    ATen graphs call e.g. `aten.mul.Tensor(x, 2)`, or with dynamic shapes
    `aten.mul.Tensor(x, n * 0.5)` where a node computes the number (a
    SymInt/SymFloat/SymBool). Afterwards such a call
    uses the overload taking a Scalar when the packet has one
    (`aten.mul.Scalar(x, 2)`); otherwise the number is materialized by a new
    `aten.scalar_tensor` node whose dtype promotes like the wrapped number.
    Every Tensor-typed argument of every ATen call is then a node computing
    a tensor.
    New nodes have no meta["val"] until `refresh_fake_tensors` runs.
    Returns whether the graph changed.
    """
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, OpOverload):
            continue
        numbers_by_name = _tensor_slots_with_numbers(node)
        if not numbers_by_name:
            continue
        bound = bind_arguments(node.target._schema, node.args, node.kwargs)
        replacement = _scalar_overload(node.target, frozenset(numbers_by_name))
        if replacement is None:
            with gm.graph.inserting_before(node):
                for name, value in numbers_by_name.items():
                    scalar = gm.graph.call_function(
                        aten.scalar_tensor.default, (value,),
                        {"dtype": _wrapped_number_dtype(node, value)},
                    )
                    scalar.meta.update({k: v for k, v in node.meta.items() if k != "val"})
                    bound[name] = scalar
            replacement = node.target
        node.target = replacement
        node.args, node.kwargs = call_arguments(replacement._schema, bound)
        changed = True
    return changed
