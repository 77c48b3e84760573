"""A minimal backend that proves the delegation mechanism without XNNPACK.

It takes float32 `add` (alpha 1) and `mul` of two same-shaped runtime
tensors. Its runtime half is backends/test_backend/test_backend.cpp,
registered as "TorchEdgeTestBackend". Blob (little-endian):

    "TEB1", u32 inputs, u32 outputs, u32 values, u32 ops,
    u32 numel per value (inputs first),
    per op: u32 kind (0 add, 1 mul), u32 a, u32 b, u32 result,
    u32 value index per output

Op i's delegate debug handle is i: the runtime reports each op as its own
event (named "add" or "mul") with that handle, and preprocess returns the
handle -> FX node map for the ETRecord.
"""

from __future__ import annotations

import struct
from typing import Optional

import torch
from torch.export import ExportedProgram

from torchedge.backends.backend_details import (
    BackendDetails, CompileSpec, DelegateSubgraph, PreprocessResult)
from torchedge.backends.partitioner import Partitioner

_KINDS = {torch.ops.aten.add.Tensor: 0, torch.ops.aten.mul.Tensor: 1}


class TestBackend(BackendDetails):
    __test__ = False
    backend_id = "TorchEdgeTestBackend"

    @classmethod
    def preprocess(cls, subgraph: DelegateSubgraph,
                   compile_specs: list[CompileSpec]) -> PreprocessResult:
        graph = subgraph.graph_module.graph
        index: dict[str, int] = {}
        numels: list[int] = []
        for node in graph.nodes:
            if node.op == "placeholder":
                index[node.name] = len(numels)
                numels.append(node.meta["val"].numel())
        ops = []
        handles: dict[int, tuple[str, ...]] = {}
        for node in graph.nodes:
            if node.op == "call_function":
                index[node.name] = len(numels)
                numels.append(node.meta["val"].numel())
                a, b = node.args[:2]
                handles[len(ops)] = (node.name,)
                ops.append((_KINDS[node.target], index[a.name], index[b.name], index[node.name]))
        outputs = [index[n.name] for n in graph.output_node().args[0]]
        blob = b"TEB1" + struct.pack("<4I", len(subgraph.inputs), len(outputs), len(numels), len(ops))
        blob += struct.pack(f"<{len(numels)}I", *numels)
        for op in ops:
            blob += struct.pack("<4I", *op)
        blob += struct.pack(f"<{len(outputs)}I", *outputs)
        return PreprocessResult(blob, handles)


class TestPartitioner(Partitioner):
    __test__ = False  # a product class whose name starts with "Test": not a pytest suite
    backend = TestBackend

    def check(self, node: torch.fx.Node, program: ExportedProgram) -> Optional[str]:
        if node.target not in _KINDS:
            return "the test backend runs only add and mul"
        if len(node.args) != 2 or node.kwargs.get("alpha", 1) != 1:
            return "alpha must be 1"
        values = [node.meta.get("val")] + [getattr(a, "meta", {}).get("val") for a in node.args]
        if not all(isinstance(v, torch.Tensor) for v in values):
            return "operands must be tensors"
        if any(v.dtype != torch.float32 for v in values):
            return "float32 only"
        if len({tuple(v.shape) for v in values}) != 1:
            return "no broadcasting"
        return None
