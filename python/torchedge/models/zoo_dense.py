"""Dense-prediction models of the zoo: a UNet segmenter and a detection head.

unet_small: a three-level UNet on 1x3x128x128 (16/32/64 channels, 128 in the
bottleneck, conv + batch norm + ReLU), decoding with all three usual
upsamplers: a transposed convolution, bilinear interpolation + conv, nearest
interpolation + conv; each concatenated with its encoder skip. 4 classes.

detection_head: a YOLO-style detector on 1x3x224x224: a strided conv backbone
(SiLU) with heads on the 14x14 and 7x7 maps, 3 anchors x (4 box + 1 objectness
+ 20 classes) per cell; sigmoid, split into xy / wh / objectness / classes,
decoded against the cell grid and anchors, concatenated over the two scales:
1 x 735 x 25 (boxes as fractions of the image size, scores in [0, 1]).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import calibrate_batch_norm, zoo_spec


# ---- UNet ------------------------------------------------------------------------------

def _double_conv(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
        nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
    )


class UNetSmall(nn.Module):
    def __init__(self, classes: int = 4) -> None:
        super().__init__()
        self.enc1 = _double_conv(3, 16)
        self.enc2 = _double_conv(16, 32)
        self.enc3 = _double_conv(32, 64)
        self.bottleneck = _double_conv(64, 128)
        self.up3 = nn.ConvTranspose2d(128, 64, 2, stride=2)
        self.dec3 = _double_conv(128, 64)
        self.up2 = nn.Conv2d(64, 32, 3, padding=1)   # after bilinear x2
        self.dec2 = _double_conv(64, 32)
        self.up1 = nn.Conv2d(32, 16, 3, padding=1)   # after nearest x2
        self.dec1 = _double_conv(32, 16)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        b = self.bottleneck(F.max_pool2d(e3, 2))
        d3 = self.dec3(torch.cat([self.up3(b), e3], dim=1))
        up = F.interpolate(d3, scale_factor=2, mode="bilinear", align_corners=False)
        d2 = self.dec2(torch.cat([self.up2(up), e2], dim=1))
        up = F.interpolate(d2, scale_factor=2, mode="nearest")
        d1 = self.dec1(torch.cat([self.up1(up), e1], dim=1))
        return self.head(d1)


# ---- Detection head --------------------------------------------------------------------

class DetectionScale(nn.Module):
    """One output scale: 1x1 conv to anchors x (5 + classes), decoded boxes."""

    def __init__(self, channels: int, size: int, image: int, anchors: list[tuple[float, float]],
                 classes: int) -> None:
        super().__init__()
        self.anchors_count, self.outputs, self.size = len(anchors), 5 + classes, size
        self.conv = nn.Conv2d(channels, len(anchors) * self.outputs, 1)
        ys, xs = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
        # (1, 1, H, W, 2) cell offsets and (1, A, 1, 1, 2) anchor sizes (fractions of the image).
        grid = torch.stack((xs, ys), -1).float()[None, None]
        self.register_buffer("grid", grid, persistent=False)
        self.register_buffer("anchor_wh", torch.tensor(anchors)[None, :, None, None] / image,
                             persistent=False)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        b, _, h, w = features.shape
        p = self.conv(features).reshape(b, self.anchors_count, self.outputs, h, w)
        p = torch.sigmoid(p.permute(0, 1, 3, 4, 2))
        xy, wh, objectness, scores = p.split((2, 2, 1, self.outputs - 5), dim=-1)
        xy = (xy * 2 - 0.5 + self.grid) / self.size
        wh = (wh * 2) ** 2 * self.anchor_wh
        return torch.cat((xy, wh, objectness, scores), -1).reshape(b, -1, self.outputs)


def _conv_silu(c_in: int, c_out: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out),
                         nn.SiLU())


class DetectionHead(nn.Module):
    def __init__(self, classes: int = 20, image: int = 224) -> None:
        super().__init__()
        self.stem = nn.Sequential(_conv_silu(3, 16, 2), _conv_silu(16, 32, 2),
                                  _conv_silu(32, 64, 2), _conv_silu(64, 128, 2))   # /16
        self.down = _conv_silu(128, 256, 2)                                           # /32
        p4_anchors = [(30, 61), (62, 45), (59, 119)]       # YOLOv3's, in pixels
        p5_anchors = [(116, 90), (156, 198), (373, 326)]
        self.p4 = DetectionScale(128, image // 16, image, p4_anchors, classes)
        self.p5 = DetectionScale(256, image // 32, image, p5_anchors, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.stem(x)
        f5 = self.down(f4)
        return torch.cat((self.p4(f4), self.p5(f5)), dim=1)


@register("unet_small",
          "UNet (conv-transpose, bilinear and nearest upsampling, skip concat), 1x3x128x128")
def _unet_small() -> ModelSpec:
    image = torch.randn(1, 3, 128, 128)
    model = calibrate_batch_norm(UNetSmall(), image)
    return zoo_spec("unet_small", "UNet (small)", model, (image,))


@register("detection_head", "YOLO-style detector: conv features, sigmoid, split, grid decode, cat")
def _detection_head() -> ModelSpec:
    image = torch.randn(1, 3, 224, 224)
    return zoo_spec("detection_head", "detection head",
                    calibrate_batch_norm(DetectionHead(), image, downscale=1), (image,))
