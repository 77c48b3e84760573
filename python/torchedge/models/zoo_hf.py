"""`transformers` architectures at deployment sizes, with seeded random weights,
for `make bench` beside the zoo (tests/hf covers 36 architectures at tiny sizes).

hf_bert:      BertModel, MiniLM-L12's shape (d=384, 12 layers, 12 heads), 1 x 128 tokens
hf_vit:       ViTModel, ViT-S/16 (d=384, 12 layers, 6 heads), 1x3x224x224
hf_mobilevit: MobileViTModel with the default MobileViTConfig (MobileViT-S), 1x3x256x256
hf_convnext:  ConvNextModel with the default ConvNextConfig (ConvNeXt-T), 1x3x224x224
hf_gpt2:      GPT2LMHeadModel (d=768, 6 layers, 12 heads), logits of 1 x 64 tokens, no KV cache

Weights: transformers draws every linear and convolution from N(0, 0.02)
whatever its fan-in, which in deep CNNs shrinks activations stage by stage
until they are subnormal numbers (MobileViT's last stage at ~1e-39): slow on
every x86 engine and numerically meaningless. `redraw_weights` gives linear
and convolution layers N(0, 1/fan_in) and batch norms statistics off the
identity, as trained networks have.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch
from torch import nn

from torchedge.models.registry import ModelSpec, register


class _Read(nn.Module):
    """model(*inputs) -> the one tensor a user reads from its output."""

    def __init__(self, model: nn.Module, read: Callable[[Any], torch.Tensor], **kwargs: Any) -> None:
        super().__init__()
        self.model, self.read, self.kwargs = model, read, kwargs

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.read(self.model(*inputs, **self.kwargs))


def redraw_weights(module: nn.Module, seed: int = 1) -> nn.Module:
    """N(0, 1/fan_in) linear and convolution weights, small biases, batch-norm
    statistics near (0, 1) but not the identity; returns `module` in eval mode."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Linear)):
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) / math.sqrt(m.weight[0].numel()))
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
    return module.eval()


def _hidden(out: Any) -> torch.Tensor:
    return out.last_hidden_state


def _logits(out: Any) -> torch.Tensor:
    return out.logits


def _spec(name: str, description: str, model: nn.Module, inputs: tuple, read=_hidden, **kwargs) -> ModelSpec:
    module = _Read(redraw_weights(model), read, **kwargs).eval()
    return ModelSpec(name, description, module, {"forward": inputs}, extra={"hf": True})


@register("hf_bert", "transformers BertModel, MiniLM-L12 shape (d=384, 12 layers), 1 x 128 tokens")
def _hf_bert() -> ModelSpec:
    from transformers import BertConfig, BertModel
    config = BertConfig(hidden_size=384, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=1536, attn_implementation="sdpa")
    return _spec("hf_bert", "BERT, MiniLM-L12 shape (transformers)", BertModel(config),
                 (torch.randint(1000, 20000, (1, 128)),))


@register("hf_vit", "transformers ViTModel, ViT-S/16 (d=384, 12 layers, 6 heads), 1x3x224x224")
def _hf_vit() -> ModelSpec:
    from transformers import ViTConfig, ViTModel
    config = ViTConfig(hidden_size=384, num_hidden_layers=12, num_attention_heads=6,
                       intermediate_size=1536, attn_implementation="sdpa")
    return _spec("hf_vit", "ViT-S/16 (transformers)", ViTModel(config, add_pooling_layer=False),
                 (torch.randn(1, 3, 224, 224),))


@register("hf_mobilevit", "transformers MobileViTModel, default config (MobileViT-S), 1x3x256x256")
def _hf_mobilevit() -> ModelSpec:
    from transformers import MobileViTConfig, MobileViTModel
    return _spec("hf_mobilevit", "MobileViT-S (transformers)", MobileViTModel(MobileViTConfig()),
                 (torch.randn(1, 3, 256, 256),))


@register("hf_convnext", "transformers ConvNextModel, default config (ConvNeXt-T), 1x3x224x224")
def _hf_convnext() -> ModelSpec:
    from transformers import ConvNextConfig, ConvNextModel
    return _spec("hf_convnext", "ConvNeXt-T (transformers)", ConvNextModel(ConvNextConfig()),
                 (torch.randn(1, 3, 224, 224),))


@register("hf_gpt2", "transformers GPT2LMHeadModel (d=768, 6 layers), logits of 1 x 64 tokens")
def _hf_gpt2() -> ModelSpec:
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_layer=6, attn_implementation="sdpa")
    return _spec("hf_gpt2", "GPT-2, 6 layers (transformers)", GPT2LMHeadModel(config),
                 (torch.randint(0, 50257, (1, 64)),), read=_logits, use_cache=False)
