"""Where in the user's code a graph node came from.

torch.export records, per node, the Python stack that created it
(`node.meta["stack_trace"]`, outermost frame first) and the module path
(`node.meta["nn_module_stack"]`). Error messages and the per-instruction
stack traces in a .pte use the frames parsed here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional

import torch
import torch.fx

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>[^\n]+)(?:\n(?P<code>[^\n]*))?')
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


@dataclass(frozen=True)
class SourceFrame:
    filename: str
    lineno: int
    function: str
    code: str

    def __str__(self) -> str:
        text = f"{self.filename}:{self.lineno} in {self.function}"
        return f"{text}: {self.code}" if self.code else text

    @property
    def is_torch_internal(self) -> bool:
        return os.path.abspath(self.filename).startswith(_TORCH_DIR)


def stack_frames(node: torch.fx.Node) -> list[SourceFrame]:
    """The frames of `node`'s recorded stack trace, outermost first."""
    trace = node.meta.get("stack_trace") or ""
    return [
        SourceFrame(m["file"], int(m["line"]), m["name"].strip(), (m["code"] or "").strip())
        for m in _FRAME.finditer(trace)
    ]


def user_frame(node: torch.fx.Node) -> Optional[SourceFrame]:
    """The innermost frame outside of torch itself: the user's source line."""
    frames = stack_frames(node)
    for frame in reversed(frames):
        if not frame.is_torch_internal:
            return frame
    return frames[-1] if frames else None


def module_path(node: torch.fx.Node) -> Optional[str]:
    """Dotted path of the innermost nn.Module the node was traced in."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return None
    path, _type = list(stack.values())[-1]
    return path or None


def describe(node: torch.fx.Node) -> str:
    """`file:line in fn: code (module `a.b`)`, or the node name when unknown."""
    frame = user_frame(node)
    where = str(frame) if frame else f"graph node '{node.name}' (no source location recorded)"
    path = module_path(node)
    return f"{where} (in module `{path}`)" if path else where
