"""What the torchedge runtime can run, checked on an edge-dialect program.

Every problem names the operator and the user's source line. All problems
are collected, so one ExportError lists everything to fix.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Iterable, Optional

import sympy
import torch
import torch.fx
from torch._ops import HigherOrderOperator, OpOverload
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind, TensorArgument
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree
from torch.utils._sympy.numbers import int_oo

from torchedge import operators
from torchedge.aten.dtypes import unsupported_dtype_reason
from torchedge.aten.out_variants import kernel_name, out_variant
from torchedge.aten.symbolic import NEGATED_COMPARISONS, SIZE_OPERATORS, SYMBOLIC_OPERATORS
from torchedge.edge.decompositions.rules import KEPT_WHOLE
from torchedge.errors import ExportError, Problem
from torchedge.passes.data_dependent_bounds import DATA_DEPENDENT_SIZED
from torchedge.quantization import QUANTIZED_NAMESPACES
from torchedge.source_location import describe

COND = torch.ops.higher_order.cond
_NO_KERNEL = "no kernel registered in the torchedge runtime"
_SUPPORTED_INPUTS = {InputKind.USER_INPUT, InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR}


def verify_edge_program(ep: ExportedProgram, method: str = "forward") -> None:
    """Raises ExportError listing every construct the runtime cannot run."""
    problems = list(_signature_problems(ep, method))
    seen_unbacked: set = set()
    for node in _nodes_with_branches(ep.graph_module):
        node_problems = list(_node_problems(node, method))
        data_dependence = _data_dependence_problems(node, method, seen_unbacked)
        if data_dependence:  # the better reason: no kernel could plan its output
            node_problems = [p for p in node_problems if not p.message.startswith(_NO_KERNEL)]
        problems.extend(node_problems + data_dependence)
    if problems:
        raise ExportError(list(dict.fromkeys(problems)))


def _nodes_with_branches(gm: torch.fx.GraphModule) -> Iterable[torch.fx.Node]:
    """The graph's nodes, each torch.cond followed by its branches' nodes."""
    for node in gm.graph.nodes:
        yield node
        if node.op == "call_function" and node.target is COND:
            for branch in node.args[1:3]:
                module = getattr(gm, branch.target, None) if isinstance(branch, torch.fx.Node) else None
                if isinstance(module, torch.fx.GraphModule):
                    yield from _nodes_with_branches(module)


def _signature_problems(ep: ExportedProgram, method: str) -> Iterable[Problem]:
    for spec in ep.graph_signature.input_specs:
        if spec.kind not in _SUPPORTED_INPUTS:
            yield Problem(f"input '{spec.arg}' of kind {spec.kind.name} is not supported", method=method)
    nodes = {n.name: n for n in ep.graph.nodes}
    buffers = {
        spec.target: nodes.get(spec.arg.name) for spec in ep.graph_signature.input_specs
        if spec.kind == InputKind.BUFFER and isinstance(spec.arg, TensorArgument)
    }
    for spec in ep.graph_signature.output_specs:
        if spec.kind == OutputKind.USER_OUTPUT:
            continue
        node = nodes.get(spec.arg.name) if isinstance(spec.arg, TensorArgument) else None
        where = describe(node) if node is not None else None
        if spec.kind == OutputKind.BUFFER_MUTATION:
            message = _buffer_mutation_problem(spec.target, buffers.get(spec.target), node)
            if message is not None:
                yield Problem(message, location=where, method=method)
            continue
        message = f"output of kind {spec.kind.name} ('{spec.target}') is not supported"
        operator_name = None
        if spec.kind == OutputKind.USER_INPUT_MUTATION:
            operator_name = _mutating_operator(node)
            message = (f"the program mutates its input '{spec.target}' in place; only buffers "
                       "(register_buffer) may be mutated: pass the op a copy "
                       f"(`{spec.target}.clone()`) or hold the tensor in a buffer of the module "
                       "(register_buffer, updated in place) instead of passing it as an input")
        yield Problem(message, operator=operator_name, location=where, method=method)


def _mutating_operator(value: Optional[torch.fx.Node]) -> Optional[str]:
    """The ATen operator that computes a mutated input's new value (the
    in-place op the user called, functionalized), looking through the
    copies and views export inserts."""
    seen = 0
    while value is not None and value.op == "call_function" and seen < 8:
        name = str(value.target)
        if not any(part in name for part in ("copy", "view", "alias", "getitem")):
            return name
        if value.target is operator.getitem:
            producer = value.args[0]
            return str(producer.target) if isinstance(producer, torch.fx.Node) else name
        if value.target is torch.ops.aten.copy.default:  # copy(dst, src): follow the source
            value = value.args[1] if isinstance(value.args[1], torch.fx.Node) else None
        else:
            inputs = value.all_input_nodes
            value = inputs[0] if inputs else None
        seen += 1
    return None


def _buffer_mutation_problem(
    target: str, buffer: Optional[torch.fx.Node], value: Optional[torch.fx.Node]
) -> Optional[str]:
    """Why the new value of mutable buffer `target` cannot be stored, or None.

    The runtime keeps a mutated buffer in planned memory across executions
    and writes its new value with aten::copy_, so the buffer must have a
    static shape and the new value that shape (dtypes may differ: copy_
    converts, as in eager).
    """
    if buffer is None or value is None:
        return f"buffer '{target}' is mutated but is not an input of the program"
    old, new = buffer.meta.get("val"), value.meta.get("val")
    if not isinstance(old, torch.Tensor) or not isinstance(new, torch.Tensor):
        return f"buffer '{target}' is updated with a non-tensor value"
    if any(isinstance(d, torch.SymInt) for d in list(old.shape) + list(new.shape)):
        return (f"buffer '{target}' is updated with a value of dynamic shape {list(new.shape)}; "
                "mutable buffers need a static shape")
    if list(old.shape) != list(new.shape):
        return (f"buffer '{target}' of shape {list(old.shape)} is updated with a value of shape "
                f"{list(new.shape)}")
    return None


def _node_problems(node: torch.fx.Node, method: str) -> Iterable[Problem]:
    if node.op == "placeholder":
        value = node.meta.get("val")
        for reason in _value_problems(value) + _bound_problems(value):
            yield Problem(f"input '{node.name}': {reason}", method=method)
        return
    if node.op == "get_attr" and node.users and all(
        u.op == "call_function" and u.target is COND for u in node.users
    ):
        return  # a torch.cond branch, verified with the cond
    if node.op in ("get_attr", "call_module"):
        yield Problem(
            f"'{node.op}' node '{node.target}' (a submodule call or attribute read outside "
            "torch.cond) is not supported",
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
    for reason in _complex_kernel_problems(node):
        yield Problem(reason, operator=op_name, location=where, method=method)
    for reason in _dtype_argument_problems(node):
        yield Problem(reason, operator=op_name, location=where, method=method)


def _target_problem(target: Any) -> tuple[str, Optional[str]]:
    """(operator name, why the runtime cannot run it or None)."""
    if target is operator.getitem:
        return "getitem", None
    if target in SYMBOLIC_OPERATORS or target in SIZE_OPERATORS or target in NEGATED_COMPARISONS:
        return str(getattr(target, "__name__", target)), None
    if target is COND:
        return "cond", None
    if isinstance(target, HigherOrderOperator):
        return target.name(), (f"control flow operator '{target.name()}' is not supported "
                               "(torch.cond is)")
    if not isinstance(target, OpOverload):
        name = getattr(target, "__name__", str(target))
        return name, f"'{name}' is not an ATen operator (higher-order ops and Python calls are not supported)"
    name = str(target)
    if target.namespace in QUANTIZED_NAMESPACES:
        # Quantize/dequantize and torchedge's 4-bit linear ops: run by the
        # quantized kernels under their out-variant names (see
        # torchedge.quantization.out_variant_schemas); not decomposed.
        if out_variant(target) is None:
            return name, "has no out variant, so no runtime kernel can run it"
        return name, None
    if target.namespace != "aten":
        return name, (f"operator of namespace '{target.namespace}' is not a core ATen operator "
                      "and no backend claimed it")
    if (torch.Tag.core not in target.tags and torch.Tag.view_copy not in target.tags
            and target not in KEPT_WHOLE):
        return name, "not a core ATen operator (it has no decomposition into core ATen)"
    variant = out_variant(target)
    if variant is None:
        return name, "has no out variant (an overload with `out` arguments), so no runtime kernel can run it"
    kernel = "{}.{}".format(*kernel_name(variant))
    if kernel not in _registered_kernels():
        return name, f"{_NO_KERNEL} for its out variant {kernel}"
    return name, None


@functools.lru_cache(maxsize=1)
def _registered_kernels() -> frozenset[str]:
    """The kernels the runtime links (torchedge.runtime.registered_kernels(),
    read from the compiled extension itself, which imports no Python)."""
    from torchedge._C import registered_kernels

    return frozenset(registered_kernels())


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


def _complex_kernel_problems(node: torch.fx.Node) -> list[str]:
    """Complex tensors a node reads or writes whose dtype its kernel is not
    listed for (kernels/portable/operators.toml): most kernels compute on
    real dtypes only, and the load-time dtype check passes a call as soon
    as one operand's dtype is listed."""
    if not isinstance(node.target, OpOverload) or node.target.namespace != "aten":
        return []
    values = [node.meta.get("val")] + [a.meta.get("val") for a in node.all_input_nodes]
    complex_dtypes = {leaf.dtype for leaf in pytree.tree_leaves(values)
                      if isinstance(leaf, torch.Tensor) and leaf.dtype.is_complex}
    if not complex_dtypes:
        return []
    variant = out_variant(node.target)
    if variant is None:
        return []  # reported by _target_problem
    kernel = "{}.{}".format(*kernel_name(variant))
    entry = operators.lookup(kernel)
    return [f"complex dtype {dtype} is not supported by the runtime kernel {kernel}"
            for dtype in sorted(complex_dtypes, key=str)
            if entry is None or not entry.supports(dtype)]


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


def _planned_at_bound(node: torch.fx.Node, symbols: set) -> bool:
    """Whether every new data-dependent size of `node` is an output size of
    a DATA_DEPENDENT_SIZED op with an upper bound the runtime's int32 sizes
    hold (the kernel writes the true size; memory is planned at the bound)."""
    if node.target not in DATA_DEPENDENT_SIZED:
        return False
    for symbol in symbols:
        value = next(iter(pytree.tree_leaves(node.meta.get("val"))), None)
        env = value.shape[0].node.shape_env if isinstance(value, torch.Tensor) and isinstance(
            value.shape[0], torch.SymInt) else None
        if env is None:
            return False
        upper = env.bound_sympy(symbol).upper
        if upper in (int_oo, sympy.oo) or not upper.is_finite or upper >= 2**31:
            return False  # unbounded (passes/data_dependent_bounds.py found no static numel)
    return True


def _mask_enlarges(node: torch.fx.Node) -> bool:
    """Whether masked_select's broadcast of (self, mask) has more elements than self."""
    self_value, mask_value = (a.meta.get("val") if isinstance(a, torch.fx.Node) else None
                              for a in node.args[:2])
    if not isinstance(self_value, torch.Tensor) or not isinstance(mask_value, torch.Tensor):
        return True
    try:
        shape = torch.broadcast_shapes(self_value.shape, mask_value.shape)
    except RuntimeError:
        return True
    return bool(shape != self_value.shape)


def _data_dependence_problems(node: torch.fx.Node, method: str, seen: set) -> list[Problem]:
    """Reports the node that first computes a size or value from tensor data
    (unless it is one whose kernel sizes its output, planned at a bound)."""
    if node.op != "call_function":
        return []
    new = set(free_unbacked_symbols(node.meta.get("val"))) - seen
    if not new:
        return []
    seen.update(new)
    if _planned_at_bound(node, new):
        if node.target is torch.ops.aten.masked_select.default and _mask_enlarges(node):
            return [Problem(
                "the mask broadcasts self to more elements than self has, past the output "
                "bound torch.export states (self's numel); expand self to the mask's shape "
                "first (torch.masked_select(x.expand_as(mask), mask))",
                operator=str(node.target), location=describe(node), method=method,
            )]
        return []
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
