"""Compute ahead of time what only depends on constants."""

from __future__ import annotations

import operator
from typing import Any

import torch
import torch.fx
from torch._ops import OpOverload
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, TensorArgument
from torch.utils import _pytree as pytree

from torchedge.passes.fake_tensors import graph_fake_mode

DEFAULT_MAX_GROWTH_BYTES = 64 * 1024
_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def _nbytes(value: Any) -> int:
    return sum(t.nbytes for t in pytree.tree_leaves(value) if isinstance(t, torch.Tensor))


def _foldable_target(target: Any) -> bool:
    if target is operator.getitem:
        return True
    return (
        isinstance(target, OpOverload)
        and target.namespace == "aten"
        and torch.Tag.nondeterministic_seeded not in target.tags
    )


# Uninitialized memory: folded as zeros (any content is correct), so the
# stored constant is deterministic and a bool one holds only 0 / 1 bytes.
_UNINITIALIZED = frozenset({
    torch.ops.aten.empty.memory_format, torch.ops.aten.empty_strided.default,
    torch.ops.aten.empty_like.default, torch.ops.aten.new_empty.default,
    torch.ops.aten.new_empty_strided.default, torch.ops.aten.empty_permuted.default,
})


def _constant_tensor(ep: ExportedProgram, spec: InputSpec) -> Any:
    if spec.target in ep.state_dict:
        return ep.state_dict[spec.target]
    return ep.constants.get(spec.target)


def _evaluate(
    ep: ExportedProgram, max_growth_bytes: int, keep: frozenset[int]
) -> dict[torch.fx.Node, Any]:
    """Real values of the call_function nodes worth computing now.

    A node qualifies when all its inputs are constants or qualifying nodes
    and either it reads no stored constant (it computes from literals, like
    an attention mask) and its result is at most `max_growth_bytes`, or its
    result is no larger than its inputs and every stored constant it reads
    ends up read by qualifying nodes only (and is not in `keep`), so that
    constant can be dropped: folding never grows the stored weights.
    """
    specs = {s.arg.name: s for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")}
    mutated = set(ep.graph_signature.buffers_to_mutate.values())  # state, not constants
    known: dict[torch.fx.Node, Any] = {}
    reads: dict[torch.fx.Node, frozenset[torch.fx.Node]] = {}
    folded: dict[torch.fx.Node, Any] = {}
    pinned: set[torch.fx.Node] = set()  # constants that must stay stored
    for node in ep.graph.nodes:
        if node.op == "placeholder":
            spec = specs.get(node.name)
            constant = spec is not None and spec.kind in _CONSTANT_KINDS and spec.target not in mutated
            value = _constant_tensor(ep, spec) if constant else None
            if isinstance(value, torch.Tensor):
                known[node], reads[node] = value.detach(), frozenset({node})
                if value.numel() and value.untyped_storage().data_ptr() in keep:
                    pinned.add(node)
            continue
        if node.op != "call_function" or not _foldable_target(node.target):
            continue
        if not all(i in known for i in node.all_input_nodes):
            continue
        args, kwargs = torch.fx.map_arg((node.args, node.kwargs), lambda n: known[n])
        try:
            result = node.target(*args, **kwargs)
        except Exception:  # leave it to the runtime (or to the verifier)
            continue
        if node.target in _UNINITIALIZED:
            result = torch.zeros_like(result)
        node_reads = frozenset().union(*(reads[i] for i in node.all_input_nodes))
        if node.target is not operator.getitem:
            if not node_reads and _nbytes(result) > max_growth_bytes:
                continue
            if node_reads and _nbytes(result) > sum(_nbytes(known[i]) for i in node.all_input_nodes):
                continue
        known[node], reads[node], folded[node] = result, node_reads, result
    while True:  # un-fold what reads a constant that must stay stored anyway
        pinned |= {
            p for p in reads if p.op == "placeholder" and any(u not in folded for u in p.users)
        }
        undo = [n for n in folded if reads[n] & pinned]
        if not undo:
            return folded
        for n in undo:
            del folded[n]


def _unique_name(ep: ExportedProgram, base: str) -> str:
    taken = {n.name for n in ep.graph.nodes} | set(ep.constants) | set(ep.state_dict)
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    return name


def _lift(ep: ExportedProgram, node: torch.fx.Node, value: torch.Tensor, fake_mode: Any) -> None:
    """Replaces `node` by a new lifted-constant placeholder holding `value`."""
    placeholder = add_lifted_constant(ep, f"_folded_{node.name}", value, fake_mode)
    node.replace_all_uses_with(placeholder)


def add_lifted_constant(ep: ExportedProgram, base_name: str, value: torch.Tensor,
                        fake_mode: Any) -> torch.fx.Node:
    """A new lifted-constant placeholder (InputKind.CONSTANT_TENSOR, named
    `base_name` or `base_name_<i>`) holding `value`, placed with the other
    constant inputs, before the user inputs; its meta["val"] is a fake of
    `value` in `fake_mode`. The caller makes it used (or drops it)."""
    graph = ep.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    specs = ep.graph_signature.input_specs
    position = next(
        (i for i, s in enumerate(specs) if s.kind == InputKind.USER_INPUT), len(specs)
    )
    anchor = placeholders[position] if position < len(placeholders) else next(
        n for n in graph.nodes if n.op != "placeholder"
    )
    name = _unique_name(ep, base_name)
    with graph.inserting_before(anchor):
        placeholder = graph.placeholder(name)
    placeholder.meta["val"] = fake_mode.from_tensor(value, static_shapes=True)
    ep.constants[name] = value
    specs.insert(position, InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(placeholder.name), name))
    return placeholder


def drop_unused_constants(ep: ExportedProgram) -> bool:
    """Removes parameters, buffers and lifted constants no node reads.

    Afterwards every constant input of the signature has a user, so the
    emitter stores only what runs (convert_pt2e leaves the float weights it
    replaced by int8 ones as unused inputs). Returns whether it changed `ep`.
    """
    before = len(ep.graph_signature.input_specs)
    _drop_unused_constants(ep)
    ep.graph_module.recompile()
    return len(ep.graph_signature.input_specs) != before


def _drop_unused_constants(ep: ExportedProgram) -> None:
    specs = ep.graph_signature.input_specs
    by_name = {s.arg.name: s for s in specs if hasattr(s.arg, "name")}
    mutated = set(ep.graph_signature.buffers_to_mutate.values())  # state stays, even if unread
    for node in list(ep.graph.nodes):
        spec = by_name.get(node.name)
        if (node.op == "placeholder" and not node.users and spec is not None
                and spec.kind in _CONSTANT_KINDS and spec.target not in mutated):
            ep.graph.erase_node(node)
            specs.remove(spec)
    still_used = {s.target for s in specs}
    for target in [t for t in ep.constants if t not in still_used]:
        del ep.constants[target]
    for target in [t for t in ep.state_dict if t not in still_used]:
        del ep.state_dict[target]


def fold_constants(
    ep: ExportedProgram,
    max_growth_bytes: int = DEFAULT_MAX_GROWTH_BYTES,
    keep: frozenset[int] = frozenset(),
) -> bool:
    """Evaluates, at compile time, every ATen call whose inputs are all constants.

    Afterwards each maximal constant subgraph is replaced by lifted tensor
    constants (InputKind.CONSTANT_TENSOR, named `_folded_<node>`) holding its
    results, and parameters/buffers no longer read are gone from the graph,
    the signature and the state dict. A Linear's weight transpose, or the
    causal mask of an attention layer, become constants instead of kernels.
    Folding never makes the stored constants bigger: a weight is only
    replaced by something computed from it when nothing else (in this
    method, or in another method: `keep` holds the storage pointers of
    constants other methods read) still needs the original. Computations
    from literals alone (masks, ranges) are folded up to `max_growth_bytes`.
    Random ops are never folded, and buffers the program mutates are state,
    not constants. Modifies `ep` in place; returns whether it changed.
    """
    folded = _evaluate(ep, max_growth_bytes, keep)
    frontier = [
        n for n in folded
        if isinstance(folded[n], torch.Tensor) and any(u not in folded for u in n.users)
    ]
    if not frontier:
        return False
    fake_mode = graph_fake_mode(ep.graph)
    for node in frontier:
        _lift(ep, node, folded[node], fake_mode)
    ep.graph.eliminate_dead_code()
    _drop_unused_constants(ep)
    ep.graph_module.recompile()
    return True
