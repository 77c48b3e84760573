"""Turn x * sigmoid(x) back into one SiLU.

    s = aten.sigmoid(x)           (read only by the mul)
    y = aten.mul.Tensor(x, s)     (or (s, x))

becomes y = aten.silu(x). Models written with x * torch.sigmoid(x), or whose
SiLU was decomposed on the way to core ATen (transformers' MobileViT-S: 20 %
of its time in the separate sigmoid and mul passes), then make one pass over
memory instead of two, through the optimized kernels' vectorized SiLU; and a
SiLU between blocked convolutions keeps their chain blocked
(passes/blocked_layout.py). Floating-point x only (the mul's result dtype is
x's, so no promotion changes). Runs at to_pte time on a copy of each method
with the activation fusion (PteOptions.fuse_activations); the EdgeProgram
stays core ATen.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.fx

from torchedge.passes.graph_modules import graph_modules

aten = torch.ops.aten


def _silu_input(mul: torch.fx.Node) -> Optional[torch.fx.Node]:
    """x of mul(x, sigmoid(x)) / mul(sigmoid(x), x) whose sigmoid has no other
    reader, for floating-point x of the mul's dtype, else None."""
    if mul.op != "call_function" or mul.target != aten.mul.Tensor or len(mul.args) != 2 \
            or mul.kwargs:
        return None
    for x, s in (mul.args, reversed(mul.args)):
        if not (isinstance(s, torch.fx.Node) and s.op == "call_function"
                and s.target == aten.sigmoid.default and len(s.args) == 1 and not s.kwargs
                and s.args[0] is x and len(s.users) == 1):
            continue
        x_val, y_val = x.meta.get("val"), mul.meta.get("val")
        if isinstance(x_val, torch.Tensor) and isinstance(y_val, torch.Tensor) \
                and x_val.dtype.is_floating_point and x_val.dtype == y_val.dtype:
            return x
    return None


def _rewrite_in(gm: torch.fx.GraphModule, apply: bool) -> int:
    count = 0
    graph = gm.graph
    for node in list(graph.nodes):
        x = _silu_input(node)
        if x is None:
            continue
        count += 1
        if not apply:
            continue
        # The mul becomes the SiLU (keeping its name, which the signature may
        # reference, and its meta); the sigmoid goes.
        sigmoid = next(a for a in node.args if a is not x)
        node.target = aten.silu.default
        node.args = (x,)
        graph.erase_node(sigmoid)
    if apply and count:
        graph.lint()
        gm.recompile()
    return count


def count_sigmoid_muls(gm: torch.fx.GraphModule) -> int:
    """How many x * sigmoid(x) products fuse_silu would rewrite."""
    return sum(_rewrite_in(module, apply=False) for module in graph_modules(gm))


def fuse_silu(gm: torch.fx.GraphModule) -> int:
    """Rewrites, in `gm` and its torch.cond branch graphs, each x * sigmoid(x)
    (either operand order, the sigmoid read only there) into aten.silu(x).
    Returns the number rewritten."""
    return sum(_rewrite_in(module, apply=True) for module in graph_modules(gm))
