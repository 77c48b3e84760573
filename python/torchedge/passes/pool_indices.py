"""Drop the indices of max pools nobody reads.

    p = aten.max_pool2d_with_indices(x, kernel, stride, padding, dilation, ceil)
    y = operator.getitem(p, 0)            (and no other user of p, or getitem(p, 1) unused)

becomes y = torchedge::max_pool2d(x, kernel, stride, padding, dilation, ceil)
(max_pool2d_op.py) for float32 and int8 x, so the kernel neither tracks nor
stores the int64 positions and the planner allocates none. Pools whose
indices are read (max_unpool) keep the indexed form. Runs at to_pte time on
a copy of each method with the activation fusion (PteOptions.fuse_activations:
upstream's runtime lacks the kernel); the EdgeProgram stays core ATen.
"""

from __future__ import annotations

import operator
from typing import Optional

import torch
import torch.fx

from torchedge.passes import max_pool2d_op
from torchedge.passes.graph_modules import graph_modules

aten = torch.ops.aten
MAX_POOL2D = getattr(getattr(torch.ops, max_pool2d_op.NAMESPACE), max_pool2d_op.OP_NAME).default
_DTYPES = (torch.float32, torch.int8)


def _values_only(node: torch.fx.Node) -> Optional[list[torch.fx.Node]]:
    """The getitem(node, 0) users of an indexed max pool whose indices are
    unused, else None."""
    if node.op != "call_function" or node.target != aten.max_pool2d_with_indices.default \
            or node.kwargs:
        return None
    x = node.args[0]
    val = x.meta.get("val") if isinstance(x, torch.fx.Node) else None
    if not isinstance(val, torch.Tensor) or val.dtype not in _DTYPES:
        return None
    values = []
    for user in node.users:
        if user.op != "call_function" or user.target != operator.getitem:
            return None
        if user.args[1] == 0:
            values.append(user)
        elif user.users:
            return None  # the indices are read
    return values or None


def _rewrite_in(gm: torch.fx.GraphModule, apply: bool) -> int:
    count = 0
    graph = gm.graph
    for node in list(graph.nodes):
        values = _values_only(node)
        if values is None:
            continue
        count += 1
        if not apply:
            continue
        # The first values getitem becomes the pool call (keeping its name,
        # which the signature may reference, and its meta).
        first = values[0]
        first.target = MAX_POOL2D
        first.args = tuple(_full_args(node.args))
        for v in values[1:]:
            v.replace_all_uses_with(first)
        for user in list(node.users):
            if user is not first:
                graph.erase_node(user)
        graph.erase_node(node)
    if apply and count:
        graph.lint()
        gm.recompile()
    return count


def _full_args(args: tuple) -> list:
    """max_pool2d_with_indices' arguments with its defaults filled in (stride
    [] means the kernel size, padding 0, dilation 1, ceil_mode False) and
    every pair written out."""
    def pair(values, default):
        values = list(values) if values else list(default)
        return values * 2 if len(values) == 1 else values

    x, kernel = args[0], pair(args[1], [])
    stride = pair(args[2] if len(args) > 2 else None, kernel)
    padding = pair(args[3] if len(args) > 3 else None, [0])
    dilation = pair(args[4] if len(args) > 4 else None, [1])
    ceil_mode = bool(args[5]) if len(args) > 5 else False
    return [x, kernel, stride, padding, dilation, ceil_mode]


def count_unused_pool_indices(gm: torch.fx.GraphModule) -> int:
    """How many max pools drop_unused_pool_indices would rewrite."""
    return sum(_rewrite_in(module, apply=False) for module in graph_modules(gm))


def drop_unused_pool_indices(gm: torch.fx.GraphModule) -> int:
    """Rewrites, in `gm` and its torch.cond branch graphs, each float32 or int8
    max_pool2d_with_indices whose indices output is unused into one
    torchedge::max_pool2d call (named after, and with the meta of, the
    values' getitem). Returns the number rewritten."""
    return sum(_rewrite_in(module, apply=True) for module in graph_modules(gm))
