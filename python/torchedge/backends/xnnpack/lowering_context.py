"""LoweringContext: the bookkeeping of turning one partition into a blob.

It owns the BlobWriter, knows each value's layout (layout.py) and blob id,
and hands emitters (lowering.py) the ids they need:

* `read(value, layout)`: a run-time value or constant, in `layout`; a
  layout change is a no-data-movement reshape (the layout plan guarantees
  that no other kind is asked for);
* `broadcast_operand(value, layout)`: an elementwise operand aligned
  for numpy broadcasting against a result held in `layout`;
* `result(node, layout)`: where the operator writing `node` puts it; when
  the value lives in another layout, a reshape into it is emitted after the
  operator (by `flush()`, which the driver calls after each emitter).

int8 values (the results of quantize_per_tensor nodes, and int8 partition
inputs) are qint8 blob values with the q node's parameters (`qparams`);
constants include dequantize_per_channel weights folded ahead of time
(quantized_patterns.FoldedConstants).
"""

from __future__ import annotations

from typing import Optional, Union

import torch

from torchedge.backends.backend_details import DelegateSubgraph
from torchedge.backends.xnnpack.blob_writer import (
    Boundary, BlobWriter, OpCode, Param, QParams, ValueKind,
)
from torchedge.backends.xnnpack.layout import (
    LayoutPlan, NHWC_ORDER, broadcast_nhwc_shape, nhwc_is_reshape, to_nhwc,
)
from torchedge.backends.xnnpack.op_support import shape_of
from torchedge.backends.xnnpack.quantized_patterns import (
    DQ_PER_TENSOR, Q_PER_TENSOR, FoldedConstants, per_tensor_qparams,
)

NHWC, PLAIN = "nhwc", "plain"
INF = float("inf")


class LoweringContext:
    def __init__(self, subgraph: DelegateSubgraph, plan: LayoutPlan) -> None:
        self.subgraph = subgraph
        self.plan = plan
        self.writer = BlobWriter()
        self.alias: dict[torch.fx.Node, torch.fx.Node] = {}  # result redirects (BN folded into conv)
        self._ids: dict[torch.fx.Node, int] = {}
        self._converted: dict[tuple[torch.fx.Node, str], int] = {}
        self._pending: list[tuple[int, int]] = []
        graph = subgraph.graph_module.graph
        self._folded = FoldedConstants(
            lambda n: subgraph.constants.get(n.name) if n.op == "placeholder" else None)
        self.qparams: dict[torch.fx.Node, QParams] = _int8_values(graph, subgraph.constants)
        placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}
        for name in subgraph.inputs:
            self._external(placeholders[name], ValueKind.INPUT)
        for node in graph.output_node().args[0]:
            self._external(node, ValueKind.OUTPUT)

    # ---- values -----------------------------------------------------------------

    def constant(self, value: object) -> Optional[torch.Tensor]:
        return self._folded(value) if isinstance(value, torch.fx.Node) else None

    def layout(self, value: torch.fx.Node) -> str:
        return NHWC if self.plan.is_nhwc(value) else PLAIN

    def dims(self, value: torch.fx.Node, layout: str) -> tuple[int, ...]:
        shape = shape_of(value)
        return to_nhwc(shape) if layout == NHWC else shape

    def read(self, value: torch.fx.Node, layout: str) -> int:
        const = self.constant(value)
        if const is not None:
            key = (value, layout)
            if key not in self._converted:
                self._converted[key] = self.add_constant(
                    const.permute(NHWC_ORDER) if layout == NHWC else const)
            return self._converted[key]
        own = self._ids[value]
        if layout == self.layout(value):
            return own
        key = (value, layout)
        if key not in self._converted:
            if not nhwc_is_reshape(shape_of(value)):
                raise ValueError(f"XNNPACK lowering: {value.name} would need a transpose")
            self._converted[key] = self.internal(self.dims(value, layout), self.qparams.get(value))
            self.node(OpCode.RESHAPE, [own, self._converted[key]])
        return self._converted[key]

    def broadcast_operand(self, value: Union[torch.fx.Node, float, int], layout: str,
                          scale: float = 1.0) -> int:
        """`value` (times `scale`, for numbers and constants only) aligned for
        numpy broadcasting against a result held in `layout`."""
        if not isinstance(value, torch.fx.Node):
            return self.scalar(value * scale)
        const = self.constant(value)
        if const is not None and scale != 1:
            const = const.to(torch.float32) * scale
        if const is None:
            shape = shape_of(value)
            if layout == PLAIN or len(shape) == 4:
                return self.read(value, layout)
            reshaped = self.internal(broadcast_nhwc_shape(shape),  # moves no data (plan checked)
                                     self.qparams.get(value))
            self.node(OpCode.RESHAPE, [self._ids[value], reshaped])
            return reshaped
        if layout == NHWC:  # align with NHWC dims: pad to rank 4, permute
            const = const.reshape((1,) * (4 - const.dim()) + tuple(const.shape)).permute(NHWC_ORDER)
        return self.add_constant(const)

    def result(self, node: torch.fx.Node, layout: str) -> int:
        node = self.alias.get(node, node)
        quant = self.qparams.get(node)
        if node not in self._ids:
            self._ids[node] = self.internal(self.dims(node, self.layout(node)), quant)
        if layout == self.layout(node):
            return self._ids[node]
        staging = self.internal(self.dims(node, layout), quant)
        self._pending.append((staging, self._ids[node]))
        return staging

    def flush(self) -> None:
        for source, target in self._pending:
            self.node(OpCode.RESHAPE, [source, target])
        self._pending.clear()

    # ---- writer shortcuts ----------------------------------------------------------

    def has_value(self, node: torch.fx.Node) -> bool:
        return node in self._ids

    def internal(self, dims: tuple[int, ...], qparams: Optional[QParams] = None) -> int:
        return self.writer.add_internal(dims, qparams)

    def add_constant(self, tensor: torch.Tensor) -> int:
        return self.writer.add_constant(tensor)

    def scalar(self, value: float) -> int:
        return self.writer.add_constant(torch.tensor([float(value)], dtype=torch.float32))

    def node(self, op: OpCode, ids: list[int], params: list[Param] = ()) -> None:
        self.writer.add_node(op, ids, list(params))

    def _external(self, value: torch.fx.Node, kind: ValueKind) -> None:
        shape = shape_of(value)
        layout = self.layout(value)
        boundary = Boundary.DIRECT
        if layout == NHWC and not nhwc_is_reshape(shape):
            boundary = Boundary.NCHW_TO_NHWC
        self._ids[value] = self.writer.add_external(kind, self.dims(value, layout), boundary, shape,
                                                    self.qparams.get(value))


def _int8_values(graph: torch.fx.Graph, constants: dict) -> dict[torch.fx.Node, QParams]:
    """The int8 values of a partition and their parameters: each quantize's
    result, and int8 inputs (with the parameters their dequantizes read
    them with; the partitioner made sure those agree)."""
    out = {}
    for node in graph.nodes:
        if node.op == "call_function" and node.target is Q_PER_TENSOR:
            out[node] = per_tensor_qparams(node)
        elif node.op == "placeholder" and node.name not in constants:
            readers = {per_tensor_qparams(u) for u in node.users if u.target is DQ_PER_TENSOR}
            val = node.meta.get("val")
            if isinstance(val, torch.Tensor) and val.dtype == torch.int8:
                if len(readers) != 1 or None in readers:
                    raise ValueError(f"XNNPACK lowering: int8 input {node.name} is not read by "
                                     "dequantizes that agree on its parameters")
                out[node] = readers.pop()
    return out
