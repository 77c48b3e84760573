"""Views that share memory: reshaping copies emitted as `executorch_prim::et_view`.

A `view_copy` of a contiguous tensor produces the same bytes under new
sizes, so copying them is wasted work and wasted arena (BERT-style encoders
reshape around every linear layer: 132 copies per forward). So do
`squeeze_copy` / `unsqueeze_copy` (they drop or add size-1 dims) and an
`expand_copy` that broadcasts nothing (every expanded dim already has the
target size or is a new leading dim of size 1: same element count), which
the attention decomposition writes around each bmm (ViT-Tiny: 36 squeezes
and 48 expands per forward, ~1.4 MB of copies per layer). The emitter
instead writes an `et_view(self, size, out)` instruction whose `out` gets no
memory of its own: at run time the kernel resizes `out` and points it at
`self`'s data (kernels/portable/op_et_view.cpp), and the memory planner
treats `out` as an alias, keeping `self`'s bytes alive until the alias's last
use (memory/execution_plan.py).

Aliasing is only sound when nothing writes `self` while the alias is live and
the alias is read through kernels only, so a view is aliased when:
  * `self` is an intermediate written exactly once by an earlier instruction
    of this method (not a plan input, constant or mutable buffer, whose bytes
    belong to the caller or to state that copy_/index_put_ write in place);
  * the view is not a method output (outputs must own their bytes: callers
    keep them after the call);
  * the method has no control flow (a cond's branches move results into
    shared values, whose lifetimes the planner already extends).
  * for the other reshaping copies, the result's shape is static (et_view
    takes it as its size list).
Everything else keeps the copying op.
"""

from __future__ import annotations

import torch
import torch.fx

from torchedge.emit.control_flow import COND
from torchedge.memory.execution_plan import ET_VIEW  # noqa: F401  (the planner treats its out as an alias)

VIEW_COPY = torch.ops.aten.view_copy.default
_aten = torch.ops.aten
# Copies whose result has the input's bytes in the input's order whenever the
# input is contiguous (expand_copy only when it broadcasts nothing: checked
# by element count in can_alias).
SHAPE_ONLY_COPIES = frozenset({
    _aten.squeeze_copy.default, _aten.squeeze_copy.dim, _aten.squeeze_copy.dims,
    _aten.unsqueeze_copy.default, _aten.expand_copy.default,
})


def has_control_flow(graph: torch.fx.Graph) -> bool:
    return any(n.op == "call_function" and n.target is COND for n in graph.nodes)


def is_method_output(node: torch.fx.Node) -> bool:
    return any(user.op == "output" for user in node.users)


def static_shape(node: torch.fx.Node) -> list[int] | None:
    """The node's result shape when every dim is a plain int, else None."""
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or not all(isinstance(d, int) for d in value.shape):
        return None
    return list(value.shape)


def can_alias(node: torch.fx.Node, source_written: bool, source_is_buffer: bool) -> bool:
    """Whether `node` (an aten.view_copy.default, or one of SHAPE_ONLY_COPIES)
    may become an et_view alias; the caller says whether its input is an
    instruction-written intermediate and whether it is a mutable buffer."""
    shape_only = node.target in SHAPE_ONLY_COPIES
    if node.target is not VIEW_COPY and not shape_only:
        return False
    if not source_written or source_is_buffer or is_method_output(node):
        return False
    value = node.meta.get("val")
    source = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    if not isinstance(value, torch.Tensor) or not isinstance(source, torch.Tensor):
        return False
    if shape_only:
        if static_shape(node) is None or static_shape(node.args[0]) is None:
            return False
        if value.numel() != source.numel():  # an expand that broadcasts
            return False
    # Same bytes only for the default dim order (the runtime kernel checks too).
    return value.dtype == source.dtype and source.is_contiguous()
