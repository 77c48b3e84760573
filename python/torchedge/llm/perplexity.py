"""Perplexity of an exported LLM on a text, computed as llama.cpp's
`llama-perplexity` computes it, so the two are comparable number for number.

The text's tokens are cut into consecutive chunks of `context` tokens (a
remainder shorter than a chunk is dropped); each chunk is evaluated from an
empty cache (position 0), and the tokens of its second half are scored:
for j in [context / 2, context - 1), -log softmax(logits[j])[token[j + 1]].
Perplexity = exp(mean of those negative log-likelihoods).

A program exported with `full_logits=True` evaluates a chunk in prefill
calls of up to max_seq_len tokens; otherwise the chunk runs one token per
call (the decode path; same numbers, slower).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import torch


@dataclass(frozen=True)
class PerplexityResult:
    perplexity: float
    tokens: int          # tokens of the text
    chunks: int
    scored: int          # tokens whose likelihood was scored
    context: int


def _constant(program, name: str) -> int:
    value = getattr(program, name)()
    return int(value[0] if isinstance(value, (tuple, list)) else value)


def chunk_logits(program, chunk: Sequence[int], full_logits: bool, max_seq_len: int) -> torch.Tensor:
    """[len(chunk), vocab] logits of a chunk evaluated from position 0."""
    rows = []
    if full_logits:
        for begin in range(0, len(chunk), max_seq_len):
            piece = torch.tensor([chunk[begin:begin + max_seq_len]], dtype=torch.int64)
            rows.append(program.forward(piece, torch.tensor([begin]))[0])
    else:
        for position, token in enumerate(chunk):
            rows.append(program.forward(torch.tensor([[token]]), torch.tensor([position]))[0])
    return torch.cat(rows, dim=0)


def perplexity_of_tokens(program, tokens: Sequence[int], context: int = 512) -> PerplexityResult:
    """See the module docstring; `program` is a loaded torchedge.runtime program."""
    full = bool(_constant(program, "get_full_logits"))
    max_seq_len = _constant(program, "get_max_seq_len")
    max_context = _constant(program, "get_max_context_len")
    if context > max_context or context < 4:
        raise ValueError(f"context {context} must be in [4, {max_context}] (the program's context)")
    chunks = len(tokens) // context
    if chunks == 0:
        raise ValueError(f"the text has {len(tokens)} tokens, fewer than one chunk of {context}")
    total, scored = 0.0, 0
    first = context // 2
    for c in range(chunks):
        chunk = list(tokens[c * context:(c + 1) * context])
        logits = chunk_logits(program, chunk, full, max_seq_len).double()
        log_probs = torch.log_softmax(logits[first:context - 1], dim=-1)
        targets = torch.tensor(chunk[first + 1:context])
        total -= log_probs.gather(1, targets.unsqueeze(1)).sum().item()
        scored += len(targets)
    return PerplexityResult(math.exp(total / scored), len(tokens), chunks, scored, context)


def perplexity(pte_path: Path | str, text: str, context: int = 512,
               tokenizer: Optional[Path | str] = None, threads: int = 1) -> PerplexityResult:
    """Perplexity of the .pte at `pte_path` on `text` (tokenized with the
    tokenizer file beside it unless `tokenizer` is given)."""
    import torchedge
    from torchedge.llm.tokenizer import Tokenizer
    from torchedge.llm.tokenizer_file import tokenizer_path_for

    torchedge.runtime.set_num_threads(threads)
    tokenizer_file = Path(tokenizer) if tokenizer is not None else tokenizer_path_for(pte_path)
    ids = Tokenizer.from_gguf(str(tokenizer_file)).encode(text)
    return perplexity_of_tokens(torchedge.runtime.load(str(pte_path)), ids, context)
