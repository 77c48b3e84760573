"""The graph modules a program's code lives in: its graph and the branch
graphs of its torch.cond nodes (nested conds included)."""

from __future__ import annotations

import torch
import torch.fx


def graph_modules(gm: torch.fx.GraphModule) -> list[torch.fx.GraphModule]:
    """`gm` followed by every GraphModule it reaches through get_attr nodes,
    depth first, each once."""
    found: list[torch.fx.GraphModule] = []

    def visit(module: torch.fx.GraphModule) -> None:
        if any(module is m for m in found):
            return
        found.append(module)
        for node in module.graph.nodes:
            if node.op == "get_attr":
                child = getattr(module, node.target, None)
                if isinstance(child, torch.fx.GraphModule):
                    visit(child)

    visit(gm)
    return found
