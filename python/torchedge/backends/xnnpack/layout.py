"""Which 4-D activations a delegate holds channels-last (NHWC).

XNNPACK's spatial operators (convolution, pooling, global average pooling,
bilinear resize) read and write NHWC; the graph's tensors are NCHW, and this
XNNPACK (2022) has no transpose node. So inside one delegate every 4-D
value gets one layout:

* values connected to a spatial operator through layout-agnostic operators
  (elementwise, batch norm, padding: they work in either layout once their
  constants and parameters are permuted) are NHWC;
* all other values keep the graph's layout ("plain").

Crossing between the two layouts inside a delegate is possible only where it
moves no data (a reshape): a [N, C, 1, 1] pooled vector is the same bytes
in both. Operators that need plain operands (reshape, softmax, fully
connected, ...) next to an NHWC value that is not such a case cannot be in
the delegate; `plan_layouts` names them. At the delegate's boundary the
runtime converts NCHW tensors to NHWC values and back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

import torch

NHWC_ORDER = (0, 2, 3, 1)  # NCHW dims in NHWC memory order
SPATIAL, AGNOSTIC, PLAIN = "spatial", "agnostic", "plain"


def to_nhwc(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(shape[d] for d in NHWC_ORDER)


def moves_no_data(shape: tuple[int, ...], order: tuple[int, ...]) -> bool:
    """True when reading `shape` in dim `order` visits memory in the same order.

    That holds when the dims larger than 1 keep their relative order.
    """
    kept = [d for d in order if shape[d] != 1]
    return kept == sorted(kept)


def nhwc_is_reshape(shape: tuple[int, ...]) -> bool:
    """True when an NCHW tensor of `shape` has the same bytes as its NHWC form."""
    return len(shape) == 4 and moves_no_data(shape, NHWC_ORDER)


def broadcast_nhwc_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A plain operand of rank <= 4 broadcast against an NHWC value, in NHWC dims."""
    return to_nhwc((1,) * (4 - len(shape)) + tuple(shape))


@dataclass
class LayoutPlan:
    nhwc: set[torch.fx.Node] = field(default_factory=set)     # values held NHWC
    conflicts: dict[torch.fx.Node, str] = field(default_factory=dict)  # node -> why not

    def is_nhwc(self, value: torch.fx.Node) -> bool:
        return value in self.nhwc


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[torch.fx.Node, torch.fx.Node] = {}

    def find(self, x: torch.fx.Node) -> torch.fx.Node:
        self.parent.setdefault(x, x)
        while self.parent[x] is not x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: torch.fx.Node, b: torch.fx.Node) -> None:
        self.parent[self.find(a)] = self.find(b)


def _shape(value: torch.fx.Node) -> Optional[tuple[int, ...]]:
    val = value.meta.get("val")
    return tuple(val.shape) if isinstance(val, torch.Tensor) else None


def _rank4(value: torch.fx.Node) -> bool:
    shape = _shape(value)
    return shape is not None and len(shape) == 4


@dataclass(frozen=True)
class NodeView:
    """What layout planning needs to know of one operator node."""

    node: torch.fx.Node
    role: str                          # SPATIAL, AGNOSTIC or PLAIN
    inputs: tuple[torch.fx.Node, ...]  # run-time tensor operands (not constants)
    output: Optional[torch.fx.Node]    # the node carrying the result tensor


def plan_layouts(views: Iterable[NodeView]) -> LayoutPlan:
    """Assigns layouts to the values of `views` and lists nodes that conflict."""
    views = list(views)
    groups = _UnionFind()
    for v in views:
        if v.role == AGNOSTIC and v.output is not None and _rank4(v.output):
            for x in v.inputs:
                if _rank4(x):
                    groups.union(x, v.output)
    nhwc_groups = set()
    for v in views:
        if v.role == SPATIAL:
            nhwc_groups.update(groups.find(x) for x in (*v.inputs, v.output) if x is not None)
    values = {x for v in views for x in (*v.inputs, v.output) if x is not None and _rank4(x)}
    plan = LayoutPlan(nhwc={x for x in values if groups.find(x) in nhwc_groups})
    for v in views:
        reason = _conflict(v, plan)
        if reason:
            plan.conflicts[v.node] = reason
    return plan


def _conflict(v: NodeView, plan: LayoutPlan) -> Optional[str]:
    if v.role == PLAIN:
        for x in (*v.inputs, v.output):
            if x is not None and plan.is_nhwc(x) and not nhwc_is_reshape(_shape(x)):
                return (f"needs its {list(_shape(x))} operand in NCHW order, but the delegate holds "
                        "it channels-last for a convolution/pooling and XNNPACK 2022 has no transpose")
    elif v.role == AGNOSTIC and v.output is not None and plan.is_nhwc(v.output):
        for x in v.inputs:
            shape = _shape(x)
            if shape is not None and len(shape) < 4:
                nchw = (1,) * (4 - len(shape)) + shape
                if not nhwc_is_reshape(nchw):
                    return (f"broadcasts a {list(shape)} operand against channels-last "
                            "activations, which would need a transpose (XNNPACK 2022 has none)")
    return None

