"""A Llama-family decoder in the form the runtime runs: KV caches as state.

`ExportableDecoder(model, max_context)` wraps a `transformers`
LlamaForCausalLM (or any model with its module layout: Qwen2, Mistral,
SmolLM) and reuses its modules and weights, so quantizing the wrapper's
`nn.Linear` layers quantizes the model. Its forward is the one method of
the exported program:

    forward(tokens int64 [1, T], start_pos int64 [1]) -> logits float32 [1, 1 or T, vocab]

T is dynamic (1 for a decode step, up to `max_prefill` for a prompt chunk).
Each layer's keys and values live in buffers `k_cache_<i>` / `v_cache_<i>`
of shape [1, max_context, kv_heads, head_dim]; `torchedge::sdpa_kv_cache`
writes rows [start_pos, start_pos + T) and attends causally over rows
[0, start_pos + t]. The emitter gives its updated caches the buffers' own
memory (emit/state_in_place.py), so a step writes T rows, not the cache.
Only the last position's logits are computed unless `full_logits` (then
all T: for perplexity and parity tests).

The numerics are transformers' (float32): RMSNorm, rotate-half RoPE with
cos/sin from inv_freq * position (times the RoPE attention scaling), scaled
dot-product attention with grouped KV heads, SwiGLU MLP;
tests/llm/test_decoder_parity.py proves the logits equal transformers'.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import torchedge.llm.ops  # noqa: F401  (torch.ops.torchedge.rms_norm & co.)
from torchedge.llm.config import LlmConfig

_ops = torch.ops.torchedge


class _DecoderLayer(nn.Module):
    def __init__(self, layer: nn.Module, config: LlmConfig) -> None:
        super().__init__()
        attention, mlp = layer.self_attn, layer.mlp
        self.q_proj, self.k_proj = attention.q_proj, attention.k_proj
        self.v_proj, self.o_proj = attention.v_proj, attention.o_proj
        self.gate_proj, self.up_proj, self.down_proj = mlp.gate_proj, mlp.up_proj, mlp.down_proj
        self.input_norm = layer.input_layernorm.weight
        self.post_attention_norm = layer.post_attention_layernorm.weight
        self.heads, self.kv_heads = config.heads, config.kv_heads
        self.head_dim, self.eps = config.head_dim, config.rms_norm_eps
        self.scale = config.head_dim ** -0.5

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                start_pos: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor) -> Any:
        batch, length = x.shape[0], x.shape[1]
        h = _ops.rms_norm(x, self.input_norm, self.eps)
        q = self.q_proj(h).view(batch, length, self.heads, self.head_dim)
        k = self.k_proj(h).view(batch, length, self.kv_heads, self.head_dim)
        v = self.v_proj(h).view(batch, length, self.kv_heads, self.head_dim)
        q = _ops.rope(q, cos, sin)
        k = _ops.rope(k, cos, sin)
        attended, k_new, v_new = _ops.sdpa_kv_cache(q, k, v, k_cache, v_cache, start_pos, self.scale)
        x = x + self.o_proj(attended.view(batch, length, self.heads * self.head_dim))
        h = _ops.rms_norm(x, self.post_attention_norm, self.eps)
        x = x + self.down_proj(_ops.silu_mul(self.gate_proj(h), self.up_proj(h)))
        return x, k_new, v_new


class ExportableDecoder(nn.Module):
    """See the module docstring."""

    def __init__(self, model: nn.Module, config: LlmConfig, max_context: int,
                 full_logits: bool = False) -> None:
        super().__init__()
        if max_context < 2:
            raise ValueError(f"max_context must be at least 2, got {max_context}")
        self.config = config
        self.max_context = max_context
        self.full_logits = full_logits
        body = model.model
        self.embed_tokens = body.embed_tokens
        self.layers = nn.ModuleList(_DecoderLayer(layer, config) for layer in body.layers)
        self.norm = body.norm.weight
        self.lm_head = model.lm_head
        rotary = body.rotary_emb
        self.register_buffer("inv_freq", rotary.inv_freq.detach().to(torch.float32).clone(),
                             persistent=False)
        self.rope_scaling = float(getattr(rotary, "attention_scaling", 1.0))
        shape = (1, max_context, config.kv_heads, config.head_dim)
        for i in range(len(self.layers)):
            self.register_buffer(f"k_cache_{i}", torch.zeros(shape))
            self.register_buffer(f"v_cache_{i}", torch.zeros(shape))

    def _rope_tables(self, start_pos: torch.Tensor, length: int) -> tuple[torch.Tensor, torch.Tensor]:
        positions = (torch.arange(length, dtype=torch.int64) + start_pos).to(torch.float32)
        freqs = positions.unsqueeze(1) * self.inv_freq.unsqueeze(0)       # [T, D/2]
        angles = torch.cat((freqs, freqs), dim=-1)                         # [T, D]
        return angles.cos() * self.rope_scaling, angles.sin() * self.rope_scaling

    def forward(self, tokens: torch.Tensor, start_pos: torch.Tensor) -> torch.Tensor:
        length = tokens.shape[1]
        x = self.embed_tokens(tokens)
        cos, sin = self._rope_tables(start_pos, length)
        for i, layer in enumerate(self.layers):
            k_cache, v_cache = getattr(self, f"k_cache_{i}"), getattr(self, f"v_cache_{i}")
            x, k_new, v_new = layer(x, cos, sin, start_pos, k_cache, v_cache)
            k_cache.copy_(k_new)
            v_cache.copy_(v_new)
        if not self.full_logits:
            x = x[:, -1:]
        x = _ops.rms_norm(x, self.norm, self.config.rms_norm_eps)
        return self.lm_head(x)

    def reset(self) -> None:
        """Zeroes the caches (eager use; the runtime starts from the file's zeros)."""
        for name, buffer in self.named_buffers():
            if name.startswith(("k_cache_", "v_cache_")):
                buffer.zero_()
