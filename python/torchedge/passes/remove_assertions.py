"""Drop export's runtime assertions from a graph."""

from __future__ import annotations

import torch
import torch.fx

aten = torch.ops.aten

ASSERTION_OPS = frozenset({
    aten._assert_scalar.default,
    aten._assert_tensor_metadata.default,
    aten._assert_async.default,
    aten._assert_async.msg,
    aten.sym_constrain_range.default,
    aten.sym_constrain_range_for_size.default,
})


def remove_runtime_assertions(gm: torch.fx.GraphModule) -> bool:
    """Erases assertion nodes and the symbolic arithmetic only they used.

    Afterwards no node targets an op in ASSERTION_OPS and no dead
    call_function node remains. Shapes were already checked at export time;
    the runtime checks input shapes against the planned bounds itself.
    Returns whether the graph changed.
    """
    changed = False
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in ASSERTION_OPS:
            gm.graph.erase_node(node)
            changed = True
    if changed:
        gm.graph.eliminate_dead_code()
    return changed
