"""torchedge::attention: unmasked attention with its scale already applied.

    torchedge::attention(Tensor query, Tensor key_t, Tensor value) -> Tensor

is aten._safe_softmax(query @ key_t, -1) @ value for query [B, L, D], key_t
[B, D, S] (the keys transposed) and value [B, S, E]: what torch exports
F.scaled_dot_product_attention without a mask as (bmm, the seven-op safe
softmax, bmm, with views and expands between; the scale is in mul nodes
before them). attention_fusion.py folds that chain at to_pte time so the
runtime's kernel can tile it (kernels/optimized/vec/flash_attention.h)
instead of writing the [B, L, S] scores to memory. The `.out` overload
(same arguments, then `*, Tensor(a!) out`) is the runtime kernel
"torchedge::attention.out".
"""

from __future__ import annotations

import torch

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "attention"
_ARGUMENTS = "Tensor query, Tensor key_t, Tensor value"


def attention_reference(query: torch.Tensor, key_t: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    scores = torch.bmm(query, key_t)
    return torch.bmm(torch.ops.aten._safe_softmax.default(scores, -1), value)


def _fake(query: torch.Tensor, key_t: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return query.new_empty((query.shape[0], query.shape[1], value.shape[2]))


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, attention_reference, _fake)
