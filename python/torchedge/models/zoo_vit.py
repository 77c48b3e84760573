"""Vision transformers of the zoo: ViT-Tiny/16 and a Swin-style stage.

vit_tiny: 16x16 patch convolution, class token, learned positions, 12 pre-norm
blocks (d=192, 3 heads, MLP 768, GELU), attention through
F.scaled_dot_product_attention as timm writes it, at 1x3x224x224.

swin_block: Swin-T's first stage: 4x4 patch embedding to 56x56x96, then a pair
of blocks, window attention (7x7 windows, 3 heads) with a learned relative
position bias, the second with windows shifted by torch.roll and the
cross-window attention mask, then a final LayerNorm.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register
from torchedge.models.zoo_common import zoo_spec


class Mlp(nn.Sequential):
    def __init__(self, d: int, hidden: int) -> None:
        super().__init__(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d))


# ---- ViT -------------------------------------------------------------------------------

class ViTBlock(nn.Module):
    def __init__(self, d: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d, eps=1e-6)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d, eps=1e-6)
        self.mlp = Mlp(d, mlp)

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(b, n, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image: int = 224, patch: int = 16, d: int = 192, depth: int = 12,
                 heads: int = 3, mlp: int = 768, classes: int = 1000) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d, patch, patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, d) * 0.02)
        self.blocks = nn.Sequential(*(ViTBlock(d, heads, mlp) for _ in range(depth)))
        self.norm = nn.LayerNorm(d, eps=1e-6)
        self.head = nn.Linear(d, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


# ---- Swin ------------------------------------------------------------------------------

def _relative_position_index(window: int) -> torch.Tensor:
    """(w*w, w*w) index into the (2w-1)^2 bias table for each query/key pair."""
    coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window),
                                        indexing="ij")).flatten(1)
    relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
    return relative[..., 0] * (2 * window - 1) + relative[..., 1]


def _shift_mask(size: int, window: int, shift: int) -> torch.Tensor:
    """(windows, w*w, w*w): 0 within a region, -100 across the regions torch.roll joined."""
    regions = torch.zeros(size, size)
    bounds = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
    label = 0
    for h in bounds:
        for w in bounds:
            regions[h, w] = label
            label += 1
    windows = _partition(regions[None, :, :, None], window).squeeze(-1)
    diff = windows[:, None, :] - windows[:, :, None]
    return torch.where(diff != 0, -100.0, 0.0)


def _partition(x: torch.Tensor, window: int) -> torch.Tensor:
    """(B, H, W, C) -> (B * windows, w*w, C)."""
    b, h, w, c = x.shape
    x = x.reshape(b, h // window, window, w // window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window * window, c)


def _merge(windows: torch.Tensor, window: int, h: int, w: int) -> torch.Tensor:
    """Inverse of _partition."""
    c = windows.shape[-1]
    x = windows.reshape(-1, h // window, w // window, window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, h, w, c)


class SwinBlock(nn.Module):
    def __init__(self, d: int, heads: int, size: int, window: int, shift: int) -> None:
        super().__init__()
        self.heads, self.window, self.shift = heads, window, shift
        self.scale = (d // heads) ** -0.5
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = Mlp(d, 4 * d)
        self.bias_table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.02)
        self.register_buffer("bias_index", _relative_position_index(window), persistent=False)
        if shift:
            self.register_buffer("mask", _shift_mask(size, window, shift), persistent=False)
        else:
            self.mask = None

    def window_attention(self, windows: torch.Tensor) -> torch.Tensor:
        bw, n, d = windows.shape
        qkv = self.qkv(windows).reshape(bw, n, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.bias_table[self.bias_index.reshape(-1)].reshape(n, n, -1).permute(2, 0, 1)
        scores = scores + bias.unsqueeze(0)
        if self.mask is not None:
            windows_per_image = self.mask.shape[0]
            scores = scores.reshape(-1, windows_per_image, self.heads, n, n) + self.mask[:, None]
            scores = scores.reshape(-1, self.heads, n, n)
        out = torch.softmax(scores, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(bw, n, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        y = self.norm1(x)
        if self.shift:
            y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = _merge(self.window_attention(_partition(y, self.window)), self.window, h, w)
        if self.shift:
            y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))
        x = x + y
        return x + self.mlp(self.norm2(x))


class SwinStage(nn.Module):
    def __init__(self, image: int = 224, patch: int = 4, d: int = 96, heads: int = 3,
                 window: int = 7) -> None:
        super().__init__()
        size = image // patch
        self.patch_embed = nn.Conv2d(3, d, patch, patch)
        self.patch_norm = nn.LayerNorm(d)
        self.blocks = nn.Sequential(SwinBlock(d, heads, size, window, 0),
                                    SwinBlock(d, heads, size, window, window // 2))
        self.norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_norm(self.patch_embed(x).permute(0, 2, 3, 1))  # (B, H, W, C)
        return self.norm(self.blocks(x))


@register("vit_tiny", "ViT-Tiny/16 (12 blocks, d=192, 3 heads, SDPA attention), 1x3x224x224")
def _vit_tiny() -> ModelSpec:
    return zoo_spec("vit_tiny", "ViT-Tiny/16", VisionTransformer(), (torch.randn(1, 3, 224, 224),))


@register("swin_block",
          "Swin-T stage 1: window attention, torch.roll shifted windows, relative position bias")
def _swin_block() -> ModelSpec:
    return zoo_spec("swin_block", "Swin-style block pair", SwinStage(),
                    (torch.randn(1, 3, 224, 224),))
