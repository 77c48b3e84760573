"""Audio and recurrent models of the zoo: a Whisper-style encoder and an LSTM.

whisper_encoder: Whisper's encoder at whisper-tiny widths (80 mel bins, d=384,
6 heads, 4 pre-norm layers, MLP 1536) over 128 mel frames instead of 3000:
conv1d(k=3) + GELU, conv1d(k=3, stride 2) + GELU, fixed sinusoidal positions
(64 of them), attention through F.scaled_dot_product_attention (keys without
bias, as in Whisper), final LayerNorm. Input 1 x 80 x 128 -> 1 x 64 x 384.

lstm_classifier: token embedding (vocab 1000, 64) -> 2-layer nn.LSTM (hidden
128, batch first) -> linear over the last step's output to 10 classes, batch 2
x 32 tokens. torch.export + the Core ATen decompositions turn nn.LSTM into
addmm / sigmoid / tanh / mul / add per step, so the module is written with
nn.LSTM as users write it.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import zoo_spec


def _sinusoids(length: int, channels: int, max_timescale: float = 10000.0) -> torch.Tensor:
    """Whisper's (length, channels) table: sin of the first half, cos of the second."""
    increment = math.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-increment * torch.arange(channels // 2, dtype=torch.float32))
    scaled = torch.arange(length, dtype=torch.float32)[:, None] * inv_timescales[None, :]
    return torch.cat([torch.sin(scaled), torch.cos(scaled)], dim=1)


class WhisperAttention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d, bias=False)
        self.value = nn.Linear(d, d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
                   for t in (self.query(x), self.key(x), self.value(x)))
        out = F.scaled_dot_product_attention(q, k, v)
        return self.out(out.transpose(1, 2).reshape(b, s, d))


class WhisperLayer(nn.Module):
    def __init__(self, d: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.attn_ln = nn.LayerNorm(d)
        self.attn = WhisperAttention(d, heads)
        self.mlp_ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp), nn.GELU(), nn.Linear(mlp, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_ln(x))
        return x + self.mlp(self.mlp_ln(x))


class WhisperEncoder(nn.Module):
    def __init__(self, mels: int = 80, frames: int = 128, d: int = 384, heads: int = 6,
                 layers: int = 4, mlp: int = 1536) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("positional_embedding", _sinusoids(frames // 2, d), persistent=False)
        self.blocks = nn.Sequential(*(WhisperLayer(d, heads, mlp) for _ in range(layers)))
        self.ln_post = nn.LayerNorm(d)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).permute(0, 2, 1)
        x = x + self.positional_embedding
        return self.ln_post(self.blocks(x))


class LSTMClassifier(nn.Module):
    def __init__(self, vocab: int = 1000, embed: int = 64, hidden: int = 128, layers: int = 2,
                 classes: int = 10) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True)
        self.fc = nn.Linear(hidden, classes)
        # Wider than PyTorch's default +-1/sqrt(hidden), so gates saturate and
        # the logits are O(1), as in a trained model.
        with torch.no_grad():
            for p in self.lstm.parameters():
                p.uniform_(-0.3, 0.3)
            self.fc.weight.normal_(0.0, 0.5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        outputs, _ = self.lstm(self.embedding(tokens))
        return self.fc(outputs[:, -1])


@register("whisper_encoder",
          "Whisper-style audio encoder (conv1d + GELU, sinusoids, 4 layers d=384), 1x80x128 mel")
def _whisper_encoder() -> ModelSpec:
    return zoo_spec("whisper_encoder", "Whisper-style encoder", WhisperEncoder(),
                    (torch.randn(1, 80, 128),))


@register("lstm_classifier", "embedding + 2-layer LSTM (hidden 128) + linear, 2 x 32 tokens")
def _lstm_classifier() -> ModelSpec:
    return zoo_spec("lstm_classifier", "LSTM classifier", LSTMClassifier(),
                    (torch.randint(0, 1000, (2, 32)),))
