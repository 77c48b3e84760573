"""Reading float32 convolution nodes for the to_pte rewrites that change how
convolutions run (winograd_filters.py, blocked_layout.py): the node's fake
value, and the arguments of the three forms a convolution takes after the
activation fusion,

    aten.convolution(x, w, bias, stride, padding, dilation, transposed, _, groups)
    torchedge.conv2d_clamp(x, w, bias, stride, padding, dilation, groups, lo, hi)
    torchedge.conv2d_add_clamp(x, w, bias, residual, stride, padding, dilation, groups, lo, hi)

as one record (residual None and an open clamp where the form has none).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional

import torch
import torch.fx

from torchedge.passes import conv2d_clamp_op

aten = torch.ops.aten
_namespace = getattr(torch.ops, conv2d_clamp_op.NAMESPACE)
_CONV2D_CLAMP = getattr(_namespace, conv2d_clamp_op.OP_NAME).default
_CONV2D_ADD_CLAMP = getattr(_namespace, conv2d_clamp_op.ADD_OP_NAME).default


class Convolution(NamedTuple):
    x: Any
    weight: Any
    bias: Any
    residual: Any
    stride: list
    padding: list
    dilation: list
    groups: int
    lo: float
    hi: float


def value(node: Any) -> Optional[torch.Tensor]:
    """The node's meta["val"] when it is a tensor, else None."""
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def static_float32(node: Any, dims: int) -> bool:
    """Whether the node is a float32 tensor of `dims` dims with static sizes."""
    val = value(node)
    return val is not None and val.dtype == torch.float32 and val.dim() == dims \
        and all(isinstance(d, int) for d in val.shape)


def ones(values: Any) -> bool:
    """Whether an int[] argument is [1] or [1, 1]."""
    return isinstance(values, (list, tuple)) and len(values) in (1, 2) \
        and all(v == 1 for v in values)


def convolution(node: torch.fx.Node, dims: int = 4) -> Optional[Convolution]:
    """The arguments of a not transposed float32 convolution with a static
    `dims`-d output (4: 2-d, 3: 1-d), in any of the three forms, else None."""
    if node.op != "call_function" or node.kwargs or not static_float32(node, dims):
        return None
    args = node.args
    if node.target == aten.convolution.default and len(args) == 9:
        x, w, bias, stride, padding, dilation, transposed, _, groups = args
        if transposed:
            return None
        return Convolution(x, w, bias, None, list(stride), list(padding), list(dilation), groups,
                           -math.inf, math.inf)
    if node.target == _CONV2D_CLAMP and len(args) == 9:
        x, w, bias, stride, padding, dilation, groups, lo, hi = args
        return Convolution(x, w, bias, None, list(stride), list(padding), list(dilation), groups,
                           float(lo), float(hi))
    if node.target == _CONV2D_ADD_CLAMP and len(args) == 10:
        x, w, bias, residual, stride, padding, dilation, groups, lo, hi = args
        return Convolution(x, w, bias, residual, list(stride), list(padding), list(dilation),
                           groups, float(lo), float(hi))
    return None
