"""Audio models from `transformers` definitions, with random weights from small configs.

hf_whisper_encoder: transformers' WhisperEncoder (the encoder of WhisperModel)
from WhisperConfig(d_model=256, 3 encoder layers, 4 heads, MLP 1024, 80 mel
bins, 1500 source positions) over Whisper's full 30 s window, 1 x 80 x 3000
mel frames -> 1 x 1500 x 256: conv1d(k=3) + GELU, conv1d(k=3, stride 2) +
GELU, then attention over 1500 tokens (transformers' SDPA attention).

hf_wav2vec2: transformers' Wav2Vec2Model from Wav2Vec2Config(hidden_size=256,
3 layers, 4 heads, MLP 1024) that keeps the default feature extractor (seven
conv1d of 512 channels, kernels 10,3,3,3,3,2,2, strides 5,2,2,2,2,2,2, group
norm after the first, GELU), the grouped positional conv (k=128, 16 groups,
weight norm) and post-norm layers, on 1 s of raw 16 kHz audio: 1 x 16000
samples -> 1 x 49 x 256.

`audio_module(name, **sizes)` builds the same modules at other lengths (the
parity test runs shorter inputs).
"""

from __future__ import annotations

import torch
from torch import nn

from torchedge.models.registry import ModelSpec, register

WHISPER_FRAMES = 3000      # Whisper's 30 s of 10 ms mel frames
WAV2VEC2_SAMPLES = 16000   # 1 s at 16 kHz


class _LastHiddenState(nn.Module):
    """The encoder's last_hidden_state as a plain tensor output."""

    def __init__(self, model: nn.Module, input_name: str) -> None:
        super().__init__()
        self.model = model
        self.input_name = input_name

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(**{self.input_name: x}).last_hidden_state


def whisper_encoder(frames: int = WHISPER_FRAMES) -> nn.Module:
    """WhisperEncoder for `frames` mel frames (even; 1500 positions at 3000)."""
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = WhisperConfig(num_mel_bins=80, d_model=256, encoder_layers=3,
                           encoder_attention_heads=4, encoder_ffn_dim=1024,
                           decoder_layers=1, decoder_attention_heads=4, decoder_ffn_dim=1024,
                           max_source_positions=frames // 2, attn_implementation="sdpa")
    return _LastHiddenState(WhisperEncoder(config), "input_features").eval()


def wav2vec2(hidden: int = 256) -> nn.Module:
    """Wav2Vec2Model with the default conv feature extractor and `hidden` wide layers."""
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    from torch.nn.utils import parametrize

    config = Wav2Vec2Config(hidden_size=hidden, num_hidden_layers=3, num_attention_heads=4,
                            intermediate_size=4 * hidden, attn_implementation="sdpa")
    model = Wav2Vec2Model(config)
    # The positional conv's weight norm becomes its plain weight (the same
    # values): a parametrized module does not survive pickling, which the
    # benchmark's eager runner needs.
    conv = model.encoder.pos_conv_embed.conv
    if parametrize.is_parametrized(conv):
        parametrize.remove_parametrizations(conv, "weight")
    conv._load_state_dict_pre_hooks.clear()  # weight_norm's loader hook (a local function)
    return _LastHiddenState(model, "input_values").eval()


@register("hf_whisper_encoder",
          "transformers WhisperEncoder (d=256, 3 layers, 4 heads), 1x80x3000 mel -> 1500 tokens")
def _hf_whisper_encoder() -> ModelSpec:
    return ModelSpec("hf_whisper_encoder", "Whisper encoder (transformers)", whisper_encoder(),
                     {"forward": (torch.randn(1, 80, WHISPER_FRAMES),)})


@register("hf_wav2vec2",
          "transformers Wav2Vec2Model (conv feature extractor, d=256, 3 layers), 1 s of 16 kHz audio")
def _hf_wav2vec2() -> ModelSpec:
    return ModelSpec("hf_wav2vec2", "wav2vec2 (transformers)", wav2vec2(),
                     {"forward": (torch.randn(1, WAV2VEC2_SAMPLES),)})
