"""What the torchedge runtime can run, checked on an edge-dialect program.

Every problem names the operator and the user's source line. All problems
are collected, so one ExportError lists everything to fix.
"""

from __future__ import annotations

import operator
from typing import Any, Iterable, Optional

import sympy
import torch
import torch.fx
from torch._ops import OpOverload
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind, TensorArgument
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree
from torch.utils._sympy.numbers import int_oo

from torchedge.aten.dtypes import unsupported_dtype_reason
from torchedge.aten.out_variants import out_variant
from torchedge.aten.symbolic import SIZE_OPERATORS, SYMBOLIC_OPERATORS
from torchedge.errors import ExportError, Problem
from torchedge.source_location import describe

_SUPPORTED_INPUTS = {InputKind.USER_INPUT, InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR}


def verify_edge_program(ep: ExportedProgram, method: str = "forward") -> None:
    """Raises ExportError listing every construct the runtime cannot run."""
    problems = list(_signature_problems(ep, method))
    seen_unbacked: set = set()
    for node in ep.graph.nodes:
        problems.extend(_node_problems(node, method))
        problems.extend(_data_dependence_problems(node, method, seen_unbacked))
    if problems:
        raise ExportError(list(dict.fromkeys(problems)))


def _signature_problems(ep: ExportedProgram, method: str) -> Iterable[Problem]:
    for spec in ep.graph_signature.input_specs:
        if spec.kind not in _SUPPORTED_INPUTS:
            yield Problem(f"input '{spec.arg}' of kind {spec.kind.name} is not supported", method=method)
    nodes = {n.name: n for n in ep.graph.nodes}
    for spec in ep.graph_signature.output_specs:
        if spec.kind == OutputKind.USER_OUTPUT:
            continue
        node = nodes.get(spec.arg.name) if isinstance(spec.arg, TensorArgument) else None
        if spec.kind == OutputKind.BUFFER_MUTATION:
            message = (f"the program updates buffer '{spec.target}' in place; "
                       "mutable buffers are not supported yet")
        else:
            message = f"output of kind {spec.kind.name} ('{spec.target}') is not supported"
        yield Problem(message, location=describe(node) if node is not None else None, method=method)


def _node_problems(node: torch.fx.Node, method: str) -> Iterable[Problem]:
    if node.op == "placeholder":
        value = node.meta.get("val")
        for reason in _value_problems(value) + _bound_problems(value):
            yield Problem(f"input '{node.name}': {reason}", method=method)
        return
    if node.op in ("get_attr", "call_module"):
        yield Problem(
            f"'{node.op}' node '{node.target}' (control flow or submodule calls) is not supported",
            location=describe(node), method=method,
        )
        return
    if node.op != "call_function":
        return
    op_name, reason = _target_problem(node.target)
    where = describe(node)
    if reason is not None:
        yield Problem(reason, operator=op_name, location=where, method=method)
        return
    for reason in _value_problems(node.meta.get("val")):
        yield Problem(reason, operator=op_name, location=where, method=method)
    for reason in _dtype_argument_problems(node):
        yield Problem(reason, operator=op_name, location=where, method=method)


def _target_problem(target: Any) -> tuple[str, Optional[str]]:
    """(operator name, why the runtime cannot run it or None)."""
    if target is operator.getitem:
        return "getitem", None
    if target in SYMBOLIC_OPERATORS or target in SIZE_OPERATORS:
        return str(getattr(target, "__name__", target)), None
    if not isinstance(target, OpOverload):
        name = getattr(target, "__name__", str(target))
        return name, f"'{name}' is not an ATen operator (higher-order ops and Python calls are not supported)"
    name = str(target)
    if target.namespace != "aten":
        return name, (f"operator of namespace '{target.namespace}' is not a core ATen operator "
                      "and no backend claimed it")
    if torch.Tag.core not in target.tags and torch.Tag.view_copy not in target.tags:
        return name, "not a core ATen operator (it has no decomposition into core ATen)"
    if out_variant(target) is None:
        return name, "has no out variant (an overload with `out` arguments), so no runtime kernel can run it"
    return name, None


def _value_problems(value: Any) -> list[str]:
    reasons: list[str] = []
    for leaf in pytree.tree_leaves(value):
        if isinstance(leaf, torch.Tensor):
            reason = unsupported_dtype_reason(leaf.dtype)
            if reason:
                reasons.append(reason)
            if leaf.layout != torch.strided:
                reasons.append(f"tensor layout {leaf.layout} is not supported")
    return list(dict.fromkeys(reasons))


def _bound_problems(value: Any) -> list[str]:
    """Dynamic sizes of an input without a finite upper bound (memory is
    planned at the bound; sizes derived from bounded inputs are bounded)."""
    reasons = []
    tensors = [leaf for leaf in pytree.tree_leaves(value) if isinstance(leaf, torch.Tensor)]
    for size in (d for t in tensors for d in t.shape):
        if isinstance(size, torch.SymInt) and size.node.maybe_as_int() is None:
            upper = size.node.shape_env.bound_sympy(size.node.expr).upper
            if upper == int_oo or upper == sympy.oo:
                reasons.append(
                    f"dynamic size {size} has no upper bound; give its torch.export.Dim a max"
                )
    return reasons


def _data_dependence_problems(node: torch.fx.Node, method: str, seen: set) -> list[Problem]:
    """Reports the node that first computes a size or value from tensor data."""
    if node.op != "call_function":
        return []
    new = set(free_unbacked_symbols(node.meta.get("val"))) - seen
    if not new:
        return []
    seen.update(new)
    return [Problem(
        "computes a shape or value from tensor data (data-dependent); "
        "the runtime needs shapes known ahead of time",
        operator=str(node.target), location=describe(node), method=method,
    )]


def _dtype_argument_problems(node: torch.fx.Node) -> list[str]:
    reasons = []
    for value in list(node.args) + list(node.kwargs.values()):
        if isinstance(value, torch.dtype):
            reason = unsupported_dtype_reason(value)
            if reason:
                reasons.append(reason)
    return reasons
