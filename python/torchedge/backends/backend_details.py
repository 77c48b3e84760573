"""What a backend provides ahead of time: an id and `preprocess`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import torch


@dataclass(frozen=True)
class CompileSpec:
    """One backend option, stored in the file next to the blob."""

    key: str
    value: bytes


@dataclass
class DelegateSubgraph:
    """A partition as the backend sees it.

    `graph_module` has one placeholder per entry of `inputs` (runtime tensors,
    in DelegateCall argument order) or of `constants` (weights the backend
    embeds in its blob), and returns the partition's outputs in order.
    """

    graph_module: torch.fx.GraphModule
    inputs: list[str]
    constants: dict[str, torch.Tensor] = field(default_factory=dict)

    @property
    def output_values(self) -> list[torch.Tensor]:
        """Fake tensors describing each output (dtype, shape)."""
        out = self.graph_module.graph.output_node().args[0]
        return [node.meta["val"] for node in out]


class BackendDetails(ABC):
    """Subclass per backend; `backend_id` must match the runtime registration."""

    backend_id: ClassVar[str]

    @classmethod
    @abstractmethod
    def preprocess(cls, subgraph: DelegateSubgraph, compile_specs: list[CompileSpec]) -> bytes:
        """Turns one partition into the blob the runtime backend's init() reads."""
