"""to_backend: replace each supported partition by a call to its lowered module."""

from __future__ import annotations

import operator
from typing import Iterable

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase
from torch.fx.passes.tools_common import legalize_graph

from torchedge.backends.backend_details import DelegateSubgraph, PreprocessResult
from torchedge.backends.lowered_module import LoweredModule
from torchedge.backends.partitioner import NodeDecision, Partitioner
from torchedge.passes.constant_folding import _drop_unused_constants

_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


class _Supported(OperatorSupportBase):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def is_node_supported(self, submodules, node: torch.fx.Node) -> bool:
        # A tuple result's getitem goes with its producer; otherwise it would
        # split partitions at every batch norm or max-pool-with-indices.
        if node.op == "call_function" and node.target is operator.getitem:
            return isinstance(node.args[0], torch.fx.Node) and node.args[0].name in self.names
        return node.name in self.names


def _constant_values(ep: ExportedProgram) -> dict[str, torch.Tensor]:
    """Placeholder name -> tensor, for parameters, buffers and lifted constants."""
    values = {}
    for spec in ep.graph_signature.input_specs:
        if spec.kind in _CONSTANT_KINDS:
            source = ep.state_dict if spec.target in ep.state_dict else ep.constants
            values[spec.arg.name] = source[spec.target]
    return values


def _extract(nodes: Iterable[torch.fx.Node], constants: dict[str, torch.Tensor]):
    """Builds the partition's own graph; returns it with its runtime inputs and outputs."""
    members = set(nodes)
    ordered = [n for n in next(iter(members)).graph.nodes if n in members]
    graph = torch.fx.Graph()
    mapping: dict[torch.fx.Node, torch.fx.Node] = {}
    runtime_inputs: list[torch.fx.Node] = []
    sub_constants: dict[str, torch.Tensor] = {}

    def outside(value: torch.fx.Node) -> torch.fx.Node:
        if value not in mapping:
            placeholder = graph.placeholder(value.name)
            placeholder.meta = dict(value.meta)
            mapping[value] = placeholder
            if value.name in constants:
                sub_constants[placeholder.name] = constants[value.name]
            else:
                runtime_inputs.append(value)
        return mapping[value]

    for node in ordered:
        for value in node.all_input_nodes:
            if value not in members:
                outside(value)
    for node in ordered:
        mapping[node] = graph.node_copy(node, lambda v: mapping[v])
    outputs = [n for n in ordered if any(u not in members for u in n.users)]
    graph.output(tuple(mapping[n] for n in outputs))
    module = torch.fx.GraphModule(torch.nn.Module(), graph)
    subgraph = DelegateSubgraph(module, [mapping[v].name for v in runtime_inputs], sub_constants)
    return subgraph, runtime_inputs, outputs


def to_backend(ep: ExportedProgram, partitioner: Partitioner) -> list[NodeDecision]:
    """Delegates `ep`'s supported partitions in place; returns the per-node decisions.

    Afterwards every supported, connected group of nodes is one
    call_function node whose target is a LoweredModule (its outputs read
    through getitem), and constants only the backend reads are gone from the
    program (they live in the blob).
    """
    decisions = partitioner.decide(ep)
    supported = {d.node for d in decisions if d.delegated}
    if not supported:
        return decisions
    gm = ep.graph_module
    partitions = CapabilityBasedPartitioner(
        gm, _Supported(supported), allows_single_node_partition=True
    ).propose_partitions()
    by_name = {d.node: d for d in decisions}
    kept = []
    for partition in partitions:
        nodes = [n for n in gm.graph.nodes if n in partition.nodes]
        reason = partitioner.reject_partition(nodes)
        if reason is None:
            kept.append(partition)
            continue
        for node in nodes:
            if node.name in by_name:
                by_name[node.name].delegated = False
                by_name[node.name].reason = reason
    constants = _constant_values(ep)
    for partition in kept:
        subgraph, inputs, outputs = _extract(partition.nodes, constants)
        result = partitioner.backend.preprocess(subgraph, partitioner.compile_specs)
        if not isinstance(result, PreprocessResult):
            result = PreprocessResult(result)
        lowered = LoweredModule(partitioner.backend.backend_id, result.processed,
                                partitioner.compile_specs, subgraph, result.debug_handle_map)
        last = max(partition.nodes, key=lambda n: list(gm.graph.nodes).index(n))
        with gm.graph.inserting_after(last):
            call = gm.graph.call_function(lowered, tuple(inputs))
        call.meta["val"] = tuple(n.meta.get("val") for n in outputs)
        previous = call
        for i, node in enumerate(outputs):
            with gm.graph.inserting_after(previous):
                item = gm.graph.call_function(operator.getitem, (call, i))
            item.meta = dict(node.meta)
            node.replace_all_uses_with(item)
            previous = item
        for node in reversed([n for n in gm.graph.nodes if n in partition.nodes]):
            gm.graph.erase_node(node)
    _drop_unused_constants(ep)
    legalize_graph(gm)  # the calls sit after their partition's last node: re-sort
    gm.graph.lint()
    gm.recompile()
    return decisions
