"""Every FX node's value in one eager run of a graph: the reference side of
compare_intermediates.

    values = record_node_values(exported_program, (x,))
    values["relu_5"]                       # that node's output (a tensor, or a tuple)
    values.float_value(["relu_5"])         # the same, after a folded batch norm
    values.quantization(values.nodes["conv2d_int8_3"])   # (scale, zero point) of an int8 output

The graph runs in torch.fx.Interpreter, node by node, so each value is what
eager PyTorch computes for that node on these inputs; nothing is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

import torch
import torch.fx

# A batch norm whose convolution to_edge (or PT2E's prepare) folds it into:
# the folded convolution computes this node's output, not the bare conv's.
_BATCH_NORMS = {
    "aten.batch_norm.default",
    "aten._native_batch_norm_legit_no_training.default",
    "aten._native_batch_norm_legit_functional.default",
    "aten.native_batch_norm.default",
}
_QUANTIZE = {
    "quantized_decomposed.quantize_per_tensor.default",
    "quantized_decomposed.quantize_per_tensor.tensor",
}
_DEQUANTIZE = {
    "quantized_decomposed.dequantize_per_tensor.default",
    "quantized_decomposed.dequantize_per_tensor.tensor",
}


def _target_name(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._schema.name.split('::')[-1]}.{target._overloadname}"
    return str(target)


class _Recorder(torch.fx.Interpreter):
    def __init__(self, module: torch.fx.GraphModule) -> None:
        super().__init__(module)
        self.values: dict[str, Any] = {}

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        if n.op in ("call_function", "placeholder", "get_attr"):
            self.values[n.name] = result
        return result


@dataclass
class GraphValues:
    """Node name -> its eager value (call_function, placeholder and get_attr
    nodes), and the graph's nodes."""

    values: dict[str, Any]
    nodes: dict[str, torch.fx.Node] = field(default_factory=dict)

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def float_value(self, names: Sequence[str]) -> Optional[tuple[str, Any]]:
        """(name, value) of the first of `names` this graph computed; a
        convolution whose output only feeds a batch norm stands for that
        batch norm's output (folded into it downstream). None if none is here."""
        for name in names:
            if name not in self.values:
                continue
            node = self.nodes.get(name)
            users = list(node.users) if node is not None else []
            if len(users) == 1 and _target_name(users[0]) in _BATCH_NORMS:
                norm = users[0]
                value = self.values.get(norm.name)
                if isinstance(value, (tuple, list)):  # the legit variants: (out, mean, rstd)
                    value = value[0]
                return norm.name, value
            return name, self.values[name]
        return None

    def quantization(self, node: torch.fx.Node) -> Optional[tuple[float, int]]:
        """(scale, zero point) that dequantize an integer `node`'s output:
        the node's own output qparams (quantize_per_tensor, or schema
        arguments `output_scale`/`out_scale` and `*_zero_point`), or those a
        reader gives next to it (dequantize_per_tensor, or an int8 op's
        `<input>_scale`, `<input>_zero_point` arguments). None if unknown."""
        if _target_name(node) in _QUANTIZE:
            return float(node.args[1]), int(node.args[2])
        own = _schema_arguments(node)
        for scale, zero in (("output_scale", "output_zero_point"), ("out_scale", "out_zero_point")):
            if scale in own and zero in own:
                return float(own[scale]), int(own[zero])
        for user in node.users:
            if _target_name(user) in _DEQUANTIZE and user.args[0] is node:
                return float(user.args[1]), int(user.args[2])
            found = _reader_qparams(user, node)
            if found is not None:
                return found
        return None


    def recompute(self, node: torch.fx.Node, known: dict[str, Any]) -> Any:
        """`node`'s value computed again from `known` values (node name ->
        value, e.g. what the runtime produced) wherever its inputs, or
        theirs, are known, and this graph's own values elsewhere: the
        reference op applied to the runtime's inputs. Fused chains (a
        convolution, its batch norm and ReLU) are recomputed up to the
        nearest known values."""
        memo: dict[str, Any] = {}

        def value(n: torch.fx.Node, top: bool = False) -> Any:
            if not top and n.name in known:
                return known[n.name]
            if n.name in memo:
                return memo[n.name]
            if n.op != "call_function":
                return self.values[n.name]
            args = torch.fx.node.map_arg(n.args, value)
            kwargs = torch.fx.node.map_arg(n.kwargs, value)
            with torch.no_grad():
                memo[n.name] = n.target(*args, **kwargs)
            return memo[n.name]

        return value(node, top=True)


def _schema_arguments(node: torch.fx.Node) -> dict[str, Any]:
    target = node.target
    schema = getattr(target, "_schema", None)
    if schema is None:
        return {}
    named = {}
    for i, argument in enumerate(schema.arguments):
        if i < len(node.args):
            named[argument.name] = node.args[i]
        elif argument.name in node.kwargs:
            named[argument.name] = node.kwargs[argument.name]
    return named


def _reader_qparams(user: torch.fx.Node, node: torch.fx.Node) -> Optional[tuple[float, int]]:
    """The (scale, zero point) arguments that follow `node` in `user`'s call."""
    schema = getattr(user.target, "_schema", None)
    if schema is None:
        return None
    arguments = list(schema.arguments)
    for i, value in enumerate(user.args[:-2]):
        if value is not node or i + 2 >= len(arguments):
            continue
        scale, zero = arguments[i + 1].name, arguments[i + 2].name
        if scale.endswith("scale") and zero.endswith("zero_point"):
            return float(user.args[i + 1]), int(user.args[i + 2])
    return None


def record_node_values(program: Union["torch.export.ExportedProgram", torch.fx.GraphModule],
                       inputs: Sequence[Any]) -> GraphValues:
    """Runs `program` (an ExportedProgram: its unlifted module; or a
    GraphModule) on `inputs` in torch.fx.Interpreter; returns every
    call_function node's output by node name. Node names are the graph's own
    (ExportedProgram.module() keeps them), which is what an ETRecord's
    instruction records name."""
    module = program.module() if isinstance(program, torch.export.ExportedProgram) else program
    recorder = _Recorder(module)
    with torch.no_grad():
        recorder.run(*inputs)
    nodes = {n.name: n for n in module.graph.nodes}
    return GraphValues(recorder.values, nodes)
