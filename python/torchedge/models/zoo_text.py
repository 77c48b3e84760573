"""Language models of the zoo: a BERT-style encoder and a Llama-style decoder.

bert_minilm: MiniLM-L6 sizes (vocab 30522, 6 post-norm layers, hidden 384, 12
heads, intermediate 1536, 512 positions, 2 token types, GELU), word + position
+ token-type embeddings, an attention-mask input turned into an additive key
mask, and the tanh pooler over the first token. Inputs: token ids, token types
and mask, batch 2 x 64 tokens, the second sequence padded after 40 tokens.
Returns (last hidden state, pooled).

llama_decoder: Llama's block structure at small sizes (vocab 1000, 4 layers,
d=256, 8 query heads, 2 key/value heads (grouped-query attention), SwiGLU
hidden 688, RMSNorm, rotary embeddings with theta 10000, causal mask, no KV
cache), token ids 1 x 32 -> logits 1 x 32 x 1000.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import zoo_spec


# ---- BERT ------------------------------------------------------------------------------

class BertLayer(nn.Module):
    def __init__(self, d: int, heads: int, intermediate: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attention_out = nn.Linear(d, d)
        self.attention_norm = nn.LayerNorm(d, eps=eps)
        self.intermediate = nn.Linear(d, intermediate)
        self.output = nn.Linear(intermediate, d)
        self.output_norm = nn.LayerNorm(d, eps=eps)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        return x.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + key_mask
        context = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = self.attention_norm(x + self.attention_out(context))
        return self.output_norm(x + self.output(F.gelu(self.intermediate(x))))


class BertEncoder(nn.Module):
    def __init__(self, vocab: int = 30522, d: int = 384, layers: int = 6, heads: int = 12,
                 intermediate: int = 1536, positions: int = 512, token_types: int = 2,
                 eps: float = 1e-12) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(positions, d)
        self.token_type_embeddings = nn.Embedding(token_types, d)
        self.embedding_norm = nn.LayerNorm(d, eps=eps)
        self.layers = nn.ModuleList(BertLayer(d, heads, intermediate, eps) for _ in range(layers))
        self.pooler = nn.Linear(d, d)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(input_ids.shape[1])
        x = (self.word_embeddings(input_ids) + self.position_embeddings(positions)
             + self.token_type_embeddings(token_type_ids))
        x = self.embedding_norm(x)
        # 1 = attend, 0 = padding -> 0 / a large negative added to the scores.
        key_mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, key_mask)
        return x, torch.tanh(self.pooler(x[:, 0]))


def _bert_inputs(batch: int = 2, seq: int = 64, vocab: int = 30522) -> tuple:
    input_ids = torch.randint(0, vocab, (batch, seq))
    token_type_ids = torch.zeros(batch, seq, dtype=torch.long)
    token_type_ids[:, seq // 2:] = 1
    attention_mask = torch.ones(batch, seq, dtype=torch.long)
    attention_mask[1, 40:] = 0
    return input_ids, token_type_ids, attention_mask


# ---- Llama -----------------------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, d: int, heads: int, kv_heads: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, d, bias=False)

    def _repeat_kv(self, x: torch.Tensor) -> torch.Tensor:
        """(B, kv_heads, S, hd) -> (B, heads, S, hd), each kv head shared by a group."""
        b, kv, s, hd = x.shape
        groups = self.heads // kv
        return x[:, :, None].expand(b, kv, groups, s, hd).reshape(b, kv * groups, s, hd)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                causal: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q_proj(x).reshape(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).reshape(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).reshape(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        k, v = self._repeat_kv(k), self._repeat_kv(v)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(causal, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, s, -1))


class LlamaLayer(nn.Module):
    def __init__(self, d: int, heads: int, kv_heads: int, hidden: int) -> None:
        super().__init__()
        self.input_norm = RMSNorm(d)
        self.attention = LlamaAttention(d, heads, kv_heads)
        self.post_attention_norm = RMSNorm(d)
        self.gate_proj = nn.Linear(d, hidden, bias=False)
        self.up_proj = nn.Linear(d, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, d, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                causal: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.input_norm(x), cos, sin, causal)
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class LlamaDecoder(nn.Module):
    def __init__(self, vocab: int = 1000, d: int = 256, layers: int = 4, heads: int = 8,
                 kv_heads: int = 2, hidden: int = 688, max_seq: int = 128,
                 theta: float = 10000.0) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaLayer(d, heads, kv_heads, hidden) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        head_dim = d // heads
        inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
        angles = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos_cached", angles.cos(), persistent=False)
        self.register_buffer("sin_cached", angles.sin(), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        s = tokens.shape[1]
        cos, sin = self.cos_cached[:s], self.sin_cached[:s]
        causal = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        x = self.embed_tokens(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin, causal)
        return self.lm_head(self.norm(x))


@register("bert_minilm",
          "BERT encoder at MiniLM-L6 sizes with attention mask, batch 2 x 64 tokens")
def _bert_minilm() -> ModelSpec:
    return zoo_spec("bert_minilm", "BERT (MiniLM-L6 sizes)", BertEncoder(), _bert_inputs())


@register("llama_decoder",
          "Llama-style decoder (RMSNorm, rotary, SwiGLU, GQA 8/2 heads, causal), 1 x 32 tokens")
def _llama_decoder() -> ModelSpec:
    return zoo_spec("llama_decoder", "Llama-style decoder", LlamaDecoder(),
                    (torch.randint(0, 1000, (1, 32)),))
