"""Int8 embedding tables: a source transform and the torchedge::embedding_int8 op.

    quantize_embeddings(model)        # every nn.Embedding -> Int8Embedding

A transformer's token embedding is often its largest tensor (BERT-style
encoders: 30k x 384 floats, half the file) and no linear-layer scheme touches
it. Int8Embedding stores the table as int8 rows with one float32 scale per row
(symmetric, scale = max|row| / 127, rounded as quantize_per_channel rounds)
and looks rows up with

    torchedge::embedding_int8(Tensor weight_q, Tensor weight_scales, Tensor indices) -> Tensor
    out[..., j] = float(weight_q[i, j]) * weight_scales[i]    for each index i

whose eager implementation here is the reference the runtime kernel
(kernels/quantized/op_embedding_int8.cpp) matches bit for bit: only the
looked-up rows are dequantized, one float32 multiply per element.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchedge.passes.custom_ops import define_out_op
from torchedge.quantization.groupwise import quantize_int8_per_channel

NAMESPACE = "torchedge"
OP_NAME = "embedding_int8"
_ARGUMENTS = "Tensor weight_q, Tensor weight_scales, Tensor indices"

def embedding_int8_reference(weight_q: torch.Tensor, weight_scales: torch.Tensor,
                             indices: torch.Tensor) -> torch.Tensor:
    where = f"{NAMESPACE}::{OP_NAME}"
    if weight_q.dtype != torch.int8 or weight_q.dim() != 2:
        raise ValueError(f"{where}: weight_q must be int8 [V, D], got {weight_q.dtype} "
                         f"{list(weight_q.shape)}")
    if weight_scales.dtype != torch.float32 or list(weight_scales.shape) != [weight_q.shape[0]]:
        raise ValueError(f"{where}: weight_scales must be float32 [{weight_q.shape[0]}], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    rows = F.embedding(indices, weight_q.to(torch.float32))  # int8 -> float32 is exact
    return rows * F.embedding(indices, weight_scales.unsqueeze(1))


def _fake(weight_q: torch.Tensor, weight_scales: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    return weight_scales.new_empty((*indices.shape, weight_q.shape[1]))


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, embedding_int8_reference, _fake)


class Int8Embedding(nn.Module):
    """An nn.Embedding whose table is int8 with per-row float32 scales."""

    def __init__(self, embedding: nn.Embedding) -> None:
        super().__init__()
        if embedding.max_norm is not None:
            raise ValueError("quantize_embeddings: max_norm renormalizes rows at lookup; "
                             "an int8 table cannot do that")
        q, scales = quantize_int8_per_channel(embedding.weight)
        self.register_buffer("weight_q", q)
        self.register_buffer("weight_scales", scales)
        self.num_embeddings, self.embedding_dim = embedding.num_embeddings, embedding.embedding_dim

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.embedding_int8(self.weight_q, self.weight_scales, indices)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}, int8 rows"


def quantize_embeddings(model: nn.Module,
                        filter_fn: Optional[Callable[[str, nn.Embedding], bool]] = None) -> nn.Module:
    """Replaces every nn.Embedding (for which filter_fn(name, module) holds) by an
    Int8Embedding, in place; returns the model. Raises ValueError for a table
    with max_norm (lookups renormalize rows, which a stored int8 table cannot)."""
    targets = [(name, m) for name, m in model.named_modules()
               if type(m) is nn.Embedding and (filter_fn is None or filter_fn(name, m))]
    if any(not name for name, _ in targets):
        raise ValueError("the model itself is an nn.Embedding; wrap it in a module to replace it")
    for name, embedding in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Int8Embedding(embedding))
    return model
