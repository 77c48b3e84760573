"""ResNet-18 and ResNet-50 of the zoo (He et al. 2015, torchvision's layout):
7x7 stem + max pool, four stages of basic (18) or bottleneck (50) blocks with
projection shortcuts, global average pool and a 1000-way linear head, at
1x3x224x224 with seeded random weights and batch-norm statistics calibrated on
random images.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import calibrate_batch_norm, zoo_spec


def _conv_bn(c_in: int, c_out: int, kernel: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, kernel, stride, kernel // 2, bias=False),
                         nn.BatchNorm2d(c_out))


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, c_in: int, width: int, stride: int) -> None:
        super().__init__()
        self.conv1 = _conv_bn(c_in, width, 3, stride)
        self.conv2 = _conv_bn(width, width, 3)
        self.shortcut = (_conv_bn(c_in, width, 1, stride)
                         if stride != 1 or c_in != width else nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(F.relu(self.conv1(x)))
        return F.relu(y + self.shortcut(x))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, c_in: int, width: int, stride: int) -> None:
        super().__init__()
        c_out = width * self.expansion
        self.conv1 = _conv_bn(c_in, width, 1)
        self.conv2 = _conv_bn(width, width, 3, stride)  # stride on the 3x3 (ResNet v1.5)
        self.conv3 = _conv_bn(width, c_out, 1)
        self.shortcut = (_conv_bn(c_in, c_out, 1, stride)
                         if stride != 1 or c_in != c_out else nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv3(F.relu(self.conv2(F.relu(self.conv1(x)))))
        return F.relu(y + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, block: type, repeats: tuple[int, ...], classes: int = 1000) -> None:
        super().__init__()
        self.stem = _conv_bn(3, 64, 7, 2)
        stages = []
        c_in = 64
        for i, (width, n) in enumerate(zip((64, 128, 256, 512), repeats)):
            blocks = []
            for j in range(n):
                blocks.append(block(c_in, width, 2 if (j == 0 and i > 0) else 1))
                c_in = width * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.stem(x)), 3, 2, 1)
        x = F.adaptive_avg_pool2d(self.stages(x), 1)
        return self.fc(torch.flatten(x, 1))


@register("resnet18", "ResNet-18 (basic blocks, max pool, projection shortcuts), 1x3x224x224")
def _resnet18() -> ModelSpec:
    image = torch.randn(1, 3, 224, 224)
    model = calibrate_batch_norm(ResNet(BasicBlock, (2, 2, 2, 2)), image)
    return zoo_spec("resnet18", "ResNet-18", model, (image,))


@register("resnet50", "ResNet-50 (bottleneck blocks), 1x3x224x224")
def _resnet50() -> ModelSpec:
    image = torch.randn(1, 3, 224, 224)
    model = calibrate_batch_norm(ResNet(Bottleneck, (3, 4, 6, 3)), image)
    return zoo_spec("resnet50", "ResNet-50", model, (image,))
