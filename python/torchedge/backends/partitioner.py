"""Partitioner: which nodes a backend takes, and the report of why."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Optional

import torch
from torch.export import ExportedProgram

from torchedge.backends.backend_details import BackendDetails, CompileSpec
from torchedge.source_location import user_frame


@dataclass
class NodeDecision:
    node: str
    operator: str
    delegated: bool
    reason: str = ""  # why not delegated; for delegated nodes, an optional note (e.g. int8)
    source: str = ""


@dataclass
class DelegationReport:
    """Per method: every operator node, delegated or not, and why not."""

    decisions: dict[str, list[NodeDecision]] = field(default_factory=dict)

    def delegated(self, method: str = "forward") -> list[NodeDecision]:
        return [d for d in self.decisions.get(method, []) if d.delegated]

    def rejected(self, method: str = "forward") -> list[NodeDecision]:
        return [d for d in self.decisions.get(method, []) if not d.delegated]

    def __str__(self) -> str:
        lines = []
        for method, decisions in self.decisions.items():
            taken = sum(d.delegated for d in decisions)
            lines.append(f"method '{method}': {taken} of {len(decisions)} operator nodes delegated")
            for d in decisions:
                where = f" ({d.source})" if d.source else ""
                if not d.delegated:
                    lines.append(f"  kept  {d.operator}{where}: {d.reason}")
                elif d.reason:  # a backend's note on how it runs a delegated node
                    lines.append(f"  note  {d.operator}{where}: {d.reason}")
        return "\n".join(lines)


class Partitioner(ABC):
    """Subclass per backend: say which nodes are supported and why not."""

    backend: type[BackendDetails]

    def __init__(self, compile_specs: Optional[list[CompileSpec]] = None) -> None:
        self.compile_specs = list(compile_specs or [])

    @abstractmethod
    def check(self, node: torch.fx.Node, program: ExportedProgram) -> Optional[str]:
        """None when `node` (a call_function) is supported, else the reason it is not."""

    def reject_partition(self, nodes: list[torch.fx.Node]) -> Optional[str]:
        """None to delegate this connected group of supported nodes, else why
        not (e.g. too little work to pay for a delegate call); its nodes then
        stay on the CPU kernels and the report gives the reason."""
        return None

    def decide(self, program: ExportedProgram) -> list[NodeDecision]:
        decisions = []
        for node in program.graph.nodes:
            if node.op != "call_function" or node.target.__module__ == "_operator":
                continue
            reason = self.check(node, program)
            frame = user_frame(node)
            decisions.append(NodeDecision(node.name, str(node.target), reason is None,
                                          reason or "", str(frame) if frame else ""))
        return decisions
