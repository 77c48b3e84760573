"""torchedge::group_norm_blocked: group norm (+ exact GELU) writing NCHW16c.

    torchedge::group_norm_blocked(Tensor input, Tensor? weight, Tensor? bias,
                                  int group, float eps, bool gelu) -> Tensor

`input` is float32 [N, C, L] or [N, C, H, W] (C a multiple of 16); the result
is to_blocked(act(group_norm(input))) in the channel-blocked layout
(conv2d_blocked_op.py): [N, C / 16, 1, L, 16] or [N, C / 16, H, W, 16], act
the exact GELU when `gelu` is set. group_norm_blocked_fusion.py puts it where
a feature extractor's first group norm feeds a chain of blocked 1-d
convolutions (wav2vec2: conv -> GroupNorm(512, 512) -> GELU -> conv ...):
one read of the normalized tensor and one blocked write instead of the group
norm's, the layout change's and the GELU's passes. The runtime kernels are
"torchedge::group_norm_blocked.out" (portable: kernels/portable/
op_group_norm_blocked.cpp; optimized: kernels/optimized/ops/op_group_norm.cpp).
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F

from torchedge.passes.conv2d_blocked_op import BLOCK, to_blocked_reference
from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "group_norm_blocked"
_ARGUMENTS = "Tensor input, Tensor? weight, Tensor? bias, int group, float eps, bool gelu"


def _check(input: torch.Tensor, group: int) -> None:
    if input.dim() not in (3, 4) or input.dtype != torch.float32 or input.shape[1] % BLOCK \
            or group <= 0 or input.shape[1] % group:
        raise ValueError(f"{NAMESPACE}::{OP_NAME}: input must be float32 [N, C, L] or "
                         f"[N, C, H, W] with C a multiple of {BLOCK} and of group ({group}), "
                         f"got {input.dtype} {list(input.shape)}")


def group_norm_blocked_reference(input: torch.Tensor, weight: Optional[torch.Tensor],
                                 bias: Optional[torch.Tensor], group: int, eps: float,
                                 gelu: bool) -> torch.Tensor:
    _check(input, group)
    y = F.group_norm(input, group, weight, bias, eps)
    if gelu:
        y = F.gelu(y)
    return to_blocked_reference(y.unsqueeze(2) if y.dim() == 3 else y)


def _fake(input, weight, bias, group, eps, gelu):
    _check(input, group)
    n, c = input.shape[:2]
    h, w = (1, input.shape[2]) if input.dim() == 3 else input.shape[2:]
    return input.new_empty((n, c // BLOCK, h, w, BLOCK))


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, group_norm_blocked_reference, _fake)
