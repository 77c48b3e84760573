"""LoweredModule: the call that replaces a delegated partition in the graph."""

from __future__ import annotations

from typing import Any, Optional

import torch

from torchedge.backends.backend_details import CompileSpec, DelegateSubgraph


class LoweredModule:
    """Callable FX target standing for one delegate.

    Calling it runs the original partition in PyTorch, so a program with
    delegates still runs eagerly for comparison; the emitter instead writes a
    DelegateCall (inputs then outputs) and stores `processed` in a segment.
    """

    def __init__(self, backend_id: str, processed: bytes, compile_specs: list[CompileSpec],
                 subgraph: DelegateSubgraph,
                 debug_handle_map: Optional[dict[int, tuple[str, ...]]] = None) -> None:
        self.backend_id = backend_id
        # delegate debug handle -> the subgraph's FX node names (empty when
        # the backend reports no per-node events)
        self.debug_handle_map = dict(debug_handle_map or {})
        self.processed = processed
        self.compile_specs = list(compile_specs)
        self.subgraph = subgraph
        self.__name__ = f"lowered_{backend_id}"

    def __call__(self, *inputs: torch.Tensor) -> tuple[Any, ...]:
        args = list(inputs)
        values = []
        it = iter(args)
        for node in self.subgraph.graph_module.graph.nodes:
            if node.op != "placeholder":
                continue
            values.append(self.subgraph.constants[node.name] if node.name in self.subgraph.constants
                          else next(it))
        out = self.subgraph.graph_module(*values)
        return tuple(out)

    def __repr__(self) -> str:
        return f"LoweredModule({self.backend_id}, {len(self.processed)} bytes)"
