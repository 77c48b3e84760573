"""Replace ATen view operators by their copying `*_copy` forms."""

from __future__ import annotations

from typing import Optional

import torch
import torch.fx
from torch._ops import OpOverload

aten = torch.ops.aten

# Views whose result is the input itself: uses are rewired to the input.
IDENTITY_VIEWS = frozenset({
    aten.alias.default,
    aten.detach.default,
    aten.lift_fresh.default,
})

# Views whose copy form is not "<name>_copy.<same overload>".
_RENAMED = {
    aten._unsafe_view.default: aten.view_copy.default,
    aten.reshape.default: aten.view_copy.default,
}


def is_view(op: OpOverload) -> bool:
    returns = op._schema.returns
    return bool(returns) and all(
        r.alias_info is not None and not r.alias_info.is_write for r in returns
    )


def view_of_copy(op: OpOverload) -> Optional[OpOverload]:
    """aten.permute_copy.default -> aten.permute.default; None if not a copy form."""
    name = op._schema.name.split("::")[1]
    if op.namespace != "aten" or not name.endswith("_copy"):
        return None
    packet = getattr(aten, name[: -len("_copy")], None)
    view = None if packet is None else getattr(packet, op._overloadname, None)
    return view if view is not None and is_view(view) else None


def copy_variant(op: OpOverload) -> Optional[OpOverload]:
    """aten.permute.default -> aten.permute_copy.default; None if no copy form."""
    if op in _RENAMED:
        return _RENAMED[op]
    name = op._schema.name.split("::")[1]
    packet = getattr(aten, f"{name}_copy", None)
    return None if packet is None else getattr(packet, op._overloadname, None)


def replace_views_with_copies(gm: torch.fx.GraphModule) -> bool:
    """Makes every tensor in the graph own its memory.

    Afterwards no call_function node targets an ATen view operator that has a
    copy form: `view`/`_unsafe_view`/`reshape` became `view_copy`, `permute`
    `permute_copy`, `select` `select_copy`, and so on; alias/detach/lift_fresh
    nodes are gone (their users read the input). Views without a copy form
    are left for the verifier to report. The meta["val"] of replaced nodes is
    stale (still strided like a view) until `refresh_fake_tensors` runs.
    Returns whether the graph changed.
    """
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, OpOverload):
            continue
        if node.target in IDENTITY_VIEWS:
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
            changed = True
        elif node.target in _RENAMED or is_view(node.target):
            replacement = copy_variant(node.target)
            if replacement is not None:
                node.target = replacement
                changed = True
    return changed
