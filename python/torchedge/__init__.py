"""torchedge: export PyTorch models to .pte files for a small C++ runtime.

    ep = torch.export.export(model, (x,))
    edge = torchedge.to_edge(ep)           # Core ATen, view-free, verified
    pte = edge.to_pte()                    # memory plan, emit, serialize
    pte.save("model.pte")

or `torchedge.lower(model, (x,))` for all three steps.
"""

from __future__ import annotations

import importlib
from typing import Any

from torchedge.edge import EdgeProgram, to_edge
from torchedge.errors import ExportError
from torchedge.export import export_methods, lower
from torchedge.program import PteOptions, PteProgram

__all__ = [
    "EdgeProgram",
    "ExportError",
    "PteOptions",
    "PteProgram",
    "export_methods",
    "lower",
    "runtime",
    "to_edge",
]


def __getattr__(name: str) -> Any:
    # The runtime bindings (a C++ extension) load only when asked for, so the
    # ahead-of-time compiler works where they are not built.
    if name == "runtime":
        return importlib.import_module("torchedge.runtime")
    raise AttributeError(f"module 'torchedge' has no attribute {name!r}")
