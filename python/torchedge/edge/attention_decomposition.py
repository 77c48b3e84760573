"""scaled_dot_product_attention's decomposition, with the layout eager has.

On CPU, F.scaled_dot_product_attention runs
aten._scaled_dot_product_flash_attention_for_cpu, whose kernel and meta
function both return a contiguous [N, H, L, E] output, so that is the
layout torch.export traces the model's code against. torch's decomposition
of the op (torch/_decomp/decompositions.py) instead returns the math
result laid out as [L, N, H, E] in memory (permute, contiguous, permute
back), a layout nn.MultiheadAttention's `permute(2, 0, 1, 3).view(...)`
once needed. Code that views the output the eager way then fails while the
program is re-traced: GPT-2's `attn.transpose(1, 2).reshape(b, s, -1)`
stays a view of that layout, and its Conv1D's `x.view(-1, x.size(-1))`
raises "Cannot view a tensor with shape [2, 8, 32] and strides
(32, 64, 1)". It also costs two copies per attention.

Here the math result is returned as it is (contiguous [N, H, L, E], like
the kernel): whatever eager could view, the decomposed program can too.
Inference only: dropout must be 0, as in torch's rule.
"""

from __future__ import annotations

from typing import Optional

import torch

aten = torch.ops.aten


def _sdpa_flash_attention_for_cpu(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    attn_mask: Optional[torch.Tensor] = None,
    scale: Optional[float] = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    torch._check(query.dim() == 4 and key.dim() == 4 and value.dim() == 4,
                 lambda: "q, k, v must be 4-dimensional")
    torch._check(dropout_p == 0.0, lambda: f"dropout probability must be zero, got {dropout_p}")
    output, weights = aten._scaled_dot_product_attention_math.default(
        query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
        dropout_mask=None, scale=scale, enable_gqa=query.size(1) != key.size(1))
    return output.contiguous(), weights


ATTENTION_DECOMPOSITIONS = {
    aten._scaled_dot_product_flash_attention_for_cpu.default: _sdpa_flash_attention_for_cpu,
}
