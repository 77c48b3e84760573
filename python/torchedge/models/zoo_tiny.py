"""Microcontroller-sized models (docs/cortex-m.md): they run in the
Cortex-M33 firmware (targets/cortex_m) in float32 and, through the PT2E
flow, int8.

ds_cnn_kws: the MLPerf Tiny keyword-spotting DS-CNN shape: 49x10 MFCC
features, a 10x4 stride-2 convolution to 64 channels, four depthwise-
separable blocks (3x3 depthwise + 1x1 pointwise, batch norm, ReLU), global
average pooling and a 12-way classifier (23.2k parameters).
tiny_mlp: 49x10 features flattened through two hidden layers to 12 classes.
"""

from __future__ import annotations

import torch
from torch import nn

from torchedge.models.registry import ModelSpec, register


def _conv_bn_relu(c_in: int, c_out: int, kernel: tuple[int, int], stride: tuple[int, int],
                  padding: tuple[int, int], groups: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(c_in, c_out, kernel, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(c_out), nn.ReLU()]


class DsCnn(nn.Module):
    def __init__(self, channels: int = 64, blocks: int = 4, classes: int = 12) -> None:
        super().__init__()
        layers = _conv_bn_relu(1, channels, (10, 4), (2, 2), (5, 1))
        for _ in range(blocks):
            layers += _conv_bn_relu(channels, channels, (3, 3), (1, 1), (1, 1), groups=channels)
            layers += _conv_bn_relu(channels, channels, (1, 1), (1, 1), (0, 0))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(channels, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class TinyMlp(nn.Module):
    def __init__(self, features: int = 490, hidden: int = 64, classes: int = 12) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Flatten(), nn.Linear(features, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def _randomized_batch_norm(model: nn.Module) -> nn.Module:
    # Non-trivial running statistics, so folding them is exercised.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    return model


@register("ds_cnn_kws", "keyword-spotting DS-CNN (MLPerf Tiny shape), 1x1x49x10 features, 12 classes")
def _ds_cnn_kws() -> ModelSpec:
    return ModelSpec("ds_cnn_kws", "DS-CNN keyword spotting", _randomized_batch_norm(DsCnn()),
                     {"forward": (torch.randn(1, 1, 49, 10),)})


@register("tiny_mlp", "MLP for microcontrollers: 1x1x49x10 features, 64-64 hidden, 12 classes")
def _tiny_mlp() -> ModelSpec:
    return ModelSpec("tiny_mlp", "tiny MLP", TinyMlp(), {"forward": (torch.randn(1, 1, 49, 10),)})
