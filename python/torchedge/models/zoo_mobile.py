"""Mobile CNNs of the zoo: MobileNetV2, MobileNetV3-Small and EfficientNet-B0.

Layouts follow the published architectures (and torchvision's definitions of
them) at 224x224 with 1000 classes; weights are seeded random, batch-norm
statistics calibrated on random images (zoo_common.calibrate_batch_norm). Dropout and stochastic
depth are identities in eval mode and are left out.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import calibrate_batch_norm, zoo_spec


def _make_divisible(value: float, divisor: int = 8) -> int:
    """Rounds channel counts to a multiple of `divisor`, never down by more than 10%."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class ConvNormAct(nn.Sequential):
    """Conv2d (no bias, "same" padding) + BatchNorm2d + optional activation."""

    def __init__(self, c_in: int, c_out: int, kernel: int = 3, stride: int = 1, groups: int = 1,
                 act: Optional[Callable[[], nn.Module]] = nn.ReLU6) -> None:
        layers: list[nn.Module] = [
            nn.Conv2d(c_in, c_out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
            nn.BatchNorm2d(c_out),
        ]
        if act is not None:
            layers.append(act())
        super().__init__(*layers)


class SqueezeExcite(nn.Module):
    """x * gate(fc2(act(fc1(mean_hw(x))))), the fcs as 1x1 convolutions."""

    def __init__(self, channels: int, squeeze: int, act: Callable[[], nn.Module],
                 gate: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.act = act()
        self.gate = gate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(self.act(self.fc1(scale))))


class Classifier(nn.Module):
    """Global average pool + flatten + the given head."""

    def __init__(self, features: nn.Module, head: nn.Module) -> None:
        super().__init__()
        self.features = features
        self.head = head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.head(torch.flatten(x, 1))


# ---- MobileNetV2 -------------------------------------------------------------------

class InvertedResidual(nn.Module):
    """1x1 expand (ReLU6) -> 3x3 depthwise (ReLU6) -> 1x1 linear project, + skip."""

    def __init__(self, c_in: int, c_out: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = c_in * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers.append(ConvNormAct(c_in, hidden, 1))
        layers += [ConvNormAct(hidden, hidden, 3, stride, groups=hidden),
                   ConvNormAct(hidden, c_out, 1, act=None)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.residual else self.block(x)


def mobilenet_v2(classes: int = 1000) -> nn.Module:
    # (expansion t, channels c, repeats n, first stride s)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    layers: list[nn.Module] = [ConvNormAct(3, 32, 3, 2)]
    c_in = 32
    for t, c, n, s in settings:
        for i in range(n):
            layers.append(InvertedResidual(c_in, c, s if i == 0 else 1, t))
            c_in = c
    layers.append(ConvNormAct(c_in, 1280, 1))
    return Classifier(nn.Sequential(*layers), nn.Linear(1280, classes))


# ---- MobileNetV3-Small ---------------------------------------------------------------

class MobileNetV3Block(nn.Module):
    """Expand (if needed) -> depthwise kxk -> optional SE (hardsigmoid) -> project, + skip."""

    def __init__(self, c_in: int, kernel: int, expanded: int, c_out: int, use_se: bool,
                 hardswish: bool, stride: int) -> None:
        super().__init__()
        act = nn.Hardswish if hardswish else nn.ReLU
        layers: list[nn.Module] = []
        if expanded != c_in:
            layers.append(ConvNormAct(c_in, expanded, 1, act=act))
        layers.append(ConvNormAct(expanded, expanded, kernel, stride, groups=expanded, act=act))
        if use_se:
            layers.append(SqueezeExcite(expanded, _make_divisible(expanded // 4), nn.ReLU,
                                        F.hardsigmoid))
        layers.append(ConvNormAct(expanded, c_out, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.residual else self.block(x)


def mobilenet_v3_small(classes: int = 1000) -> nn.Module:
    # (kernel, expanded, out, squeeze-excite, hardswish, stride)
    settings = [(3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2),
                (3, 88, 24, False, False, 1), (5, 96, 40, True, True, 2),
                (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
                (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1),
                (5, 288, 96, True, True, 2), (5, 576, 96, True, True, 1),
                (5, 576, 96, True, True, 1)]
    layers: list[nn.Module] = [ConvNormAct(3, 16, 3, 2, act=nn.Hardswish)]
    c_in = 16
    for kernel, expanded, c_out, se, hs, stride in settings:
        layers.append(MobileNetV3Block(c_in, kernel, expanded, c_out, se, hs, stride))
        c_in = c_out
    layers.append(ConvNormAct(c_in, 576, 1, act=nn.Hardswish))
    head = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, classes))
    return Classifier(nn.Sequential(*layers), head)


# ---- EfficientNet-B0 -----------------------------------------------------------------

class MBConv(nn.Module):
    """Expand 1x1 (SiLU) -> depthwise kxk (SiLU) -> SE (SiLU, sigmoid) -> project 1x1, + skip."""

    def __init__(self, c_in: int, c_out: int, kernel: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = c_in * expand
        layers: list[nn.Module] = []
        if expand != 1:
            layers.append(ConvNormAct(c_in, hidden, 1, act=nn.SiLU))
        layers += [ConvNormAct(hidden, hidden, kernel, stride, groups=hidden, act=nn.SiLU),
                   SqueezeExcite(hidden, max(1, c_in // 4), nn.SiLU, torch.sigmoid),
                   ConvNormAct(hidden, c_out, 1, act=None)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.block(x) if self.residual else self.block(x)


def efficientnet_b0(classes: int = 1000) -> nn.Module:
    # (expansion, kernel, stride, in, out, repeats)
    stages = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2),
              (6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4),
              (6, 3, 1, 192, 320, 1)]
    layers: list[nn.Module] = [ConvNormAct(3, 32, 3, 2, act=nn.SiLU)]
    for expand, kernel, stride, c_in, c_out, repeats in stages:
        for i in range(repeats):
            layers.append(MBConv(c_in if i == 0 else c_out, c_out, kernel,
                                 stride if i == 0 else 1, expand))
    layers.append(ConvNormAct(320, 1280, 1, act=nn.SiLU))
    return Classifier(nn.Sequential(*layers), nn.Linear(1280, classes))


def _spec(name: str, description: str, model: nn.Module) -> ModelSpec:
    image = torch.randn(1, 3, 224, 224)
    return zoo_spec(name, description, calibrate_batch_norm(model, image), (image,))


@register("mobilenet_v2", "MobileNetV2 (inverted residuals, ReLU6, depthwise), 1x3x224x224")
def _mobilenet_v2() -> ModelSpec:
    return _spec("mobilenet_v2", "MobileNetV2", mobilenet_v2())


@register("mobilenet_v3_small",
          "MobileNetV3-Small (hardswish, squeeze-excite with hardsigmoid), 1x3x224x224")
def _mobilenet_v3_small() -> ModelSpec:
    return _spec("mobilenet_v3_small", "MobileNetV3-Small", mobilenet_v3_small())


@register("efficientnet_b0", "EfficientNet-B0 (MBConv, SiLU, squeeze-excite), 1x3x224x224")
def _efficientnet_b0() -> ModelSpec:
    return _spec("efficientnet_b0", "EfficientNet-B0", efficientnet_b0())
