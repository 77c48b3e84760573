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


@dataclass
class PreprocessResult:
    """What preprocess may return instead of bare blob bytes.

    `debug_handle_map` maps each delegate debug handle (the id the runtime
    backend reports per-node events with, through the EventTracer) to the
    names of the partition's FX nodes it runs. to_pte saves it in the
    ETRecord, so the Inspector can name what the delegate reports.
    """

    processed: bytes
    debug_handle_map: dict[int, tuple[str, ...]] = field(default_factory=dict)


class BackendDetails(ABC):
    """Subclass per backend; `backend_id` must match the runtime registration."""

    backend_id: ClassVar[str]

    @classmethod
    @abstractmethod
    def preprocess(cls, subgraph: DelegateSubgraph,
                   compile_specs: list[CompileSpec]) -> "bytes | PreprocessResult":
        """Turns one partition into the blob the runtime backend's init() reads
        (with its debug handle map, as a PreprocessResult, when the backend
        reports per-node events)."""
