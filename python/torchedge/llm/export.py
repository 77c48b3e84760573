"""torchedge.llm.export: a decoder LLM -> one .pte the C++ runner generates with.

    torchedge.llm.export("SmolLM2-135M-Instruct.Q4_1.gguf", out="smollm2.pte",
                         quantize="8da4w", group_size=32, max_context=2048)

The program has one `forward(tokens [1, T], start_pos [1])` (decoder.py)
with T dynamic in [1, max_prefill] — prefill and decode are the same
method, so the weights and the KV caches (mutable state, which methods
cannot share) exist once — and constant methods the runner reads at load,
named as upstream ExecuTorch's LLM runner names them:

    get_max_context_len  max_context (cache rows)
    get_max_seq_len      max_prefill (tokens per forward call)
    get_vocab_size       logits per position
    get_n_layers         decoder layers
    use_kv_cache         1
    get_full_logits      1 if forward returns every position's logits

Precisions (`quantize`), with g = group_size:
    None    float32
    "int8"  int8 per-channel weights x int8 activations per group of g (linear_q8c)
    "8da4w" 4-bit affine group-wise weights (Q4_1's arithmetic: scale and min per
            group of g) x int8 activations per group of g (linear_q4a); the output
            projection int8 per channel (linear_q8c)
    "int4"  the same weights with float32 activations (weight-only)
The token embedding becomes an int8 table (`quantize_embeddings`) unless
quantize is None. Why these formats (perplexity of each choice on SmolLM2):
docs/llm.md.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Optional

import torch

from torchedge.llm.config import LlmConfig
from torchedge.llm.decoder import ExportableDecoder
from torchedge.llm.source import Source, load_model
from torchedge.llm.tokenizer_file import tokenizer_path_for, write_tokenizer_gguf, write_tokenizer_gguf_from_hf
from torchedge.program import PteProgram

# quantize= -> (decoder layers, output projection): (weight format, activation bits).
PRECISIONS = {
    None: None,
    "fp32": None,
    "int8": (("q8c", 8), ("q8c", 8)),
    "8da4w": (("q4a", 8), ("q8c", 8)),
    "int4": (("q4a", 32), ("q8c", 32)),
}
DEFAULT_MAX_PREFILL = 512


class _Constant(torch.nn.Module):
    def __init__(self, value: int) -> None:
        super().__init__()
        self.value = int(value)

    def forward(self) -> int:
        return self.value


def build_decoder(source: Source, quantize: Optional[str] = None, group_size: int = 32,
                  max_context: int = 2048, full_logits: bool = False,
                  quantize_embedding: Optional[bool] = None) -> ExportableDecoder:
    """The eager module `export` captures: the reference the .pte must match."""
    if quantize not in PRECISIONS:
        raise ValueError(f"quantize must be one of {[k for k in PRECISIONS if k]} or None, got {quantize!r}")
    model = load_model(source)
    config = LlmConfig.from_model(model)
    if isinstance(source, torch.nn.Module):
        model = copy.deepcopy(model)  # quantizing replaces modules: never the caller's
    if config.max_position_embeddings and max_context > config.max_position_embeddings:
        raise ValueError(f"max_context {max_context} exceeds the model's "
                         f"max_position_embeddings {config.max_position_embeddings}")
    decoder = ExportableDecoder(model, config, max_context, full_logits=full_logits).eval()
    scheme = PRECISIONS[quantize]
    if scheme is not None:
        _quantize(decoder, config, scheme, group_size, quantize_embedding)
    return decoder


def _quantize(decoder: ExportableDecoder, config: LlmConfig, scheme, group_size: int,
              quantize_embedding: Optional[bool]) -> None:
    """Quantizes the decoder's linear layers (and its token embedding) in place."""
    from torchedge.quantization import quantize_embeddings
    from torchedge.quantization.affine4_linear import quantize_linear_affine4
    from torchedge.quantization.int8_channel_linear import quantize_linear_int8_channel

    if config.tied_embeddings:
        # The output projection gets its own (quantized) copy of the tied table.
        head = decoder.lm_head
        decoder.lm_head = torch.nn.Linear(head.in_features, head.out_features, bias=head.bias is not None)
        decoder.lm_head.weight = torch.nn.Parameter(head.weight.detach().clone())
    formats = {"q4a": quantize_linear_affine4, "q8c": quantize_linear_int8_channel}
    (layer_format, layer_bits), (head_format, head_bits) = scheme
    formats[layer_format](decoder, group_size, layer_bits, filter_fn=lambda name, _: name != "lm_head")
    formats[head_format](decoder, group_size, head_bits, filter_fn=lambda name, _: name == "lm_head")
    if quantize_embedding is None or quantize_embedding:
        quantize_embeddings(decoder)


def export_decoder(decoder: ExportableDecoder, max_prefill: Optional[int] = None,
                   **pte_options) -> PteProgram:
    """torch.export of the decoder's forward plus the constant methods, lowered."""
    import torchedge

    max_prefill = min(max_prefill or DEFAULT_MAX_PREFILL, decoder.max_context)
    if max_prefill < 2:
        raise ValueError(f"max_prefill must be at least 2, got {max_prefill}")
    tokens = torch.zeros(1, min(2, max_prefill), dtype=torch.int64)
    start_pos = torch.zeros(1, dtype=torch.int64)
    length = torch.export.Dim("tokens", min=1, max=max_prefill)
    with torch.no_grad():
        forward = torch.export.export(decoder, (tokens, start_pos),
                                      dynamic_shapes={"tokens": {1: length}, "start_pos": None})
    decoder.reset()
    constants = {
        "get_max_context_len": decoder.max_context,
        "get_max_seq_len": max_prefill,
        "get_vocab_size": decoder.config.vocab_size,
        "get_n_layers": decoder.config.layers,
        "use_kv_cache": 1,
        "get_full_logits": int(decoder.full_logits),
    }
    programs = {"forward": forward}
    for name, value in constants.items():
        programs[name] = torch.export.export(_Constant(value), ())
    return torchedge.to_edge(programs).to_pte(**pte_options)


def export(source: Source, out: Optional[os.PathLike | str] = None, quantize: Optional[str] = "8da4w",
           group_size: int = 32, max_context: int = 2048, max_prefill: Optional[int] = None,
           full_logits: bool = False, **pte_options) -> PteProgram:
    """Exports `source` (a .gguf, a checkpoint directory or a transformers
    model) to a .pte; saves it to `out` when given, and its tokenizer beside
    it (a GGUF's, or a checkpoint directory's tokenizer.json: tokenizer_file.py). See the module docstring."""
    if out is not None:
        out = Path(out)
        if out.suffix != ".pte":
            raise ValueError(f"out must name a .pte file, got {out}")
    decoder = build_decoder(source, quantize, group_size, max_context, full_logits)
    pte = export_decoder(decoder, max_prefill, **pte_options)
    if out is not None:
        pte.save(str(out))
        if not isinstance(source, torch.nn.Module):
            if Path(source).suffix == ".gguf":
                write_tokenizer_gguf(source, tokenizer_path_for(out))
            elif (Path(source) / "tokenizer.json").is_file():
                write_tokenizer_gguf_from_hf(source, tokenizer_path_for(out))
    return pte
