"""Exporting a sentence-embedding model: one .pte and its tokenizer file.

    result = export(out="minilm.pte")                      # the bundled MiniLM, float32
    result = export(out="minilm-int8.pte", quantize="int8")  # dynamic int8 linear layers
    result.pte, result.tokenizer                           # minilm.pte, minilm.tokenizer.gguf

The program's forward takes input_ids and attention_mask, both int64
[batch, tokens] with batch 1..max_batch and tokens 2..max_length (dynamic),
and returns the unit-length embeddings [batch, dimension]. The tokenizer
file is the checkpoint's tokenizer.json as a WordPiece tokenizer GGUF
(torchedge.llm.tokenizer_file), carrying the truncation length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import torch

from torchedge.embedding.model import PathLike, SentenceEmbedding, bundled_minilm, check_checkpoint
from torchedge.llm.tokenizer_file import (tokenizer_path_for, wordpiece_max_length,
                                          write_tokenizer_gguf_from_hf)

QUANTIZE_CHOICES = (None, "int8")

# Linear layers that quantize="int8" keeps float32: the feed-forward
# down-projections, whose input (the GELU output, 1536 wide) has outliers
# that one per-tensor int8 scale per call cannot hold. On 20 varied
# sentences all 36 layers int8 give a minimum cosine of 0.9883 with the
# float model; with these 6 float, 0.9915 (docs/embeddings.md).
FLOAT_LINEARS = re.compile(r"layer\.\d+\.output\.dense$")


class _FloatLinear(torch.nn.Module):
    """A linear layer spelled as matmul + add, which the int8 quantizer
    (it annotates aten.linear) leaves float32."""

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.matmul(x, self.weight.t())
        return y + self.bias if self.bias is not None else y


def keep_float(model: torch.nn.Module, pattern: re.Pattern = FLOAT_LINEARS) -> int:
    """Replaces the nn.Linear modules whose qualified name matches `pattern`
    by _FloatLinear (same weights, same numerics); returns how many."""
    count = 0
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            full = f"{name}.{child_name}" if name else child_name
            if isinstance(child, torch.nn.Linear) and pattern.search(full):
                setattr(module, child_name, _FloatLinear(child))
                count += 1
    return count


@dataclass
class ExportResult:
    pte: Path
    tokenizer: Path
    max_length: int
    dimension: int
    quantize: Optional[str]


def example_inputs(batch: int = 2, tokens: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    """[CLS] w... [SEP] ids and a mask with the second row padded."""
    ids = torch.randint(1000, 2000, (batch, tokens))
    ids[:, 0], ids[:, -1] = 101, 102
    mask = torch.ones(batch, tokens, dtype=torch.long)
    if batch > 1:
        mask[1, tokens // 2:] = 0
    return ids, mask


def dynamic_shapes(max_length: int, max_batch: int):
    batch = torch.export.Dim("batch", min=1, max=max_batch)
    tokens = torch.export.Dim("tokens", min=2, max=max_length)
    return ({0: batch, 1: tokens}, {0: batch, 1: tokens})


def export_program(model: SentenceEmbedding, max_length: int, max_batch: int = 64,
                   quantize: Optional[str] = None):
    """The EdgeProgram of `model` (float32, or dynamic int8 linear layers but
    FLOAT_LINEARS, which keep_float rewrites in `model` itself)."""
    import torchedge

    if quantize not in QUANTIZE_CHOICES:
        raise ValueError(f"quantize must be one of {QUANTIZE_CHOICES}, got {quantize!r}")
    inputs = example_inputs()
    shapes = dynamic_shapes(max_length, max_batch)
    with torch.no_grad():
        if quantize == "int8":
            from torchedge.quantization import dynamic_config, quantize_pt2e

            keep_float(model)
            program = quantize_pt2e(model, inputs, config=dynamic_config(), dynamic_shapes=shapes)
        else:
            program = torch.export.export(model, inputs, dynamic_shapes=shapes)
    return torchedge.to_edge(program)


def export(checkpoint: Optional[PathLike] = None, out: PathLike = "minilm.pte", *,
           quantize: Optional[str] = None, max_length: Optional[int] = None,
           max_batch: int = 64) -> ExportResult:
    """Exports the sentence-embedding model of a Hugging Face BERT checkpoint
    directory (default: the bundled all-MiniLM-L6-v2) to `out`, and its
    tokenizer beside it (m.pte -> m.tokenizer.gguf).

    max_length: the longest input in tokens, [CLS] and [SEP] included
    (default: the checkpoint's, 256 for MiniLM). CheckpointError for a
    missing or incomplete checkpoint; ValueError for a bad option."""
    directory = bundled_minilm() if checkpoint is None else check_checkpoint(checkpoint)
    limit = wordpiece_max_length(directory)
    if max_length is not None and not 2 <= max_length <= limit:
        raise ValueError(f"max_length must be in [2, {limit}] for {directory}, got {max_length}")
    if max_batch < 1:
        raise ValueError(f"max_batch must be >= 1, got {max_batch}")
    length = limit if max_length is None else max_length
    model = SentenceEmbedding.from_checkpoint(directory)
    edge = export_program(model, length, max_batch, quantize)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    edge.to_pte().save(out)
    tokenizer = write_tokenizer_gguf_from_hf(directory, tokenizer_path_for(out))
    if max_length is not None:
        _set_max_length(tokenizer, length)
    return ExportResult(out, tokenizer, length, model.dimension, quantize)


def _set_max_length(path: Path, length: int) -> None:
    """Rewrites the truncation length of a tokenizer file written just now
    (a program exported for shorter inputs must not be given longer ones)."""
    import gguf

    from torchedge.llm.tokenizer_file import WORDPIECE_KEYS

    reader = gguf.GGUFReader(str(path), "r+")
    field = reader.fields[WORDPIECE_KEYS["max_length"]]
    field.parts[field.data[0]][0] = length
    reader.data.flush()
