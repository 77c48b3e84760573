"""Group-wise weight quantization and the packed int4 format.

A weight [N, K] is split along K into groups of `group_size` values; each
group (row n, group j) gets its own float32 scale (and, asymmetric, an int8
zero point). int4 values q lie in [-8, 7]; dequantized w = (q - zp) * scale
(zp = 0 when symmetric). Packed: two values per byte along K,
    byte[n, j] = (q[n, 2j] & 0xF) | ((q[n, 2j + 1] & 0xF) << 4)
a uint8 tensor [N, K / 2] (the quantization contract).

Blocked (symmetric weights only; what torchedge::linear_8da4w_packed reads,
kernels/quantized/support/int4_packed.h): uint8 [ceil(N / 16), K / g, 64 + 8 g].
Record (nb, j) holds rows 16 nb .. 16 nb + 15 of group j: their 16 float32
scales (64 bytes, little endian), then g / 32 sub-blocks of 256 bytes; in
sub-block s (k0 = j g + 32 s) byte 64 i + 4 r + b (i < 4, r < 16, b < 4)
holds q[16 nb + r, k0 + 8 i + b] + 8 in its low nibble and
q[16 nb + r, k0 + 8 i + 4 + b] + 8 in its high nibble. Rows past N are
padding (q = 0, scale 0). One 64-byte load is then one SIMD register of 16
rows x 8 k: the kernels' vpdpbusd / vpmaddubsw operands without shuffles.
"""

from __future__ import annotations

from typing import Optional

import torch

GROUP_SIZES = (32, 64, 128, 256)
INT4_QMIN, INT4_QMAX = -8, 7
INT8_WEIGHT_QMIN, INT8_WEIGHT_QMAX = -127, 127
_EPS = torch.finfo(torch.float32).eps


def check_group_size(in_features: int, group_size: int, where: str = "weight") -> None:
    """Raises ValueError unless group_size is supported and divides in_features."""
    if group_size not in GROUP_SIZES:
        raise ValueError(f"{where}: group_size {group_size} is not supported; use one of {GROUP_SIZES}")
    if in_features % group_size != 0:
        raise ValueError(
            f"{where}: in_features (K) {in_features} is not a multiple of group_size {group_size}")


def quantize_int4_groupwise(
    weight: torch.Tensor, group_size: int, symmetric: bool = True
) -> tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
    """(q int8 [N, K] in [-8, 7], scales float32 [N, K/g], zero_points int8 [N, K/g] or None).

    Symmetric: scale = max|w| / 7.5 over the group, so the largest magnitude
    maps to +-7.5, rounding to -8 or clamping to 7 (error <= scale / 2, the
    rounding error bound). Asymmetric: scale = (max - min) / 15 with the
    group range widened to include 0, zp = clamp(round(-8 - min / scale)).
    """
    if weight.dim() != 2:
        raise ValueError(f"expected a 2-d weight [N, K], got shape {list(weight.shape)}")
    n, k = weight.shape
    check_group_size(k, group_size)
    groups = weight.detach().to(torch.float32).reshape(n, k // group_size, group_size)
    if symmetric:
        scales = (groups.abs().amax(dim=-1) / 7.5).clamp(min=_EPS)
        q = torch.clamp(torch.round(groups / scales.unsqueeze(-1)), INT4_QMIN, INT4_QMAX)
        return q.reshape(n, k).to(torch.int8), scales, None
    low = groups.amin(dim=-1).clamp(max=0.0)
    high = groups.amax(dim=-1).clamp(min=0.0)
    scales = ((high - low) / float(INT4_QMAX - INT4_QMIN)).clamp(min=_EPS)
    zero_points = torch.clamp(torch.round(INT4_QMIN - low / scales), INT4_QMIN, INT4_QMAX)
    q = torch.clamp(torch.round(groups / scales.unsqueeze(-1)) + zero_points.unsqueeze(-1),
                    INT4_QMIN, INT4_QMAX)
    return q.reshape(n, k).to(torch.int8), scales, zero_points.to(torch.int8)


def pack_int4(q: torch.Tensor) -> torch.Tensor:
    """int8 [N, K] values in [-8, 7] -> uint8 [N, K/2], low nibble first."""
    if q.dim() != 2 or q.shape[1] % 2:
        raise ValueError(f"expected [N, K] with even K, got {list(q.shape)}")
    if q.numel() and (int(q.min()) < INT4_QMIN or int(q.max()) > INT4_QMAX):
        raise ValueError("int4 values must lie in [-8, 7]")
    nibbles = q.to(torch.int16) & 0xF
    return (nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)).to(torch.uint8)


def unpack_int4(packed: torch.Tensor) -> torch.Tensor:
    """uint8 [N, K/2] -> int8 [N, K] in [-8, 7] (sign-extended nibbles)."""
    bytes_ = packed.to(torch.int16)
    low, high = bytes_ & 0xF, (bytes_ >> 4) & 0xF
    q = torch.stack([low, high], dim=-1).reshape(packed.shape[0], packed.shape[1] * 2)
    return torch.where(q >= 8, q - 16, q).to(torch.int8)


_BLOCK_ROWS = 16
_HEADER_BYTES = 64


def pack_int4_blocked(q: torch.Tensor, scales: torch.Tensor, group_size: int) -> torch.Tensor:
    """int8 [N, K] in [-8, 7] and float32 scales [N, K/g] -> the blocked uint8 layout above."""
    if q.dim() != 2:
        raise ValueError(f"expected q [N, K], got {list(q.shape)}")
    n, k = q.shape
    check_group_size(k, group_size)
    groups, subs = k // group_size, group_size // 32
    if list(scales.shape) != [n, groups] or scales.dtype != torch.float32:
        raise ValueError(f"scales must be float32 [{n}, {groups}], got {scales.dtype} {list(scales.shape)}")
    if q.numel() and (int(q.min()) < INT4_QMIN or int(q.max()) > INT4_QMAX):
        raise ValueError("int4 values must lie in [-8, 7]")
    blocks = (n + _BLOCK_ROWS - 1) // _BLOCK_ROWS
    rows = blocks * _BLOCK_ROWS
    u = torch.full((rows, k), 8, dtype=torch.uint8)
    u[:n] = (q.to(torch.int16) + 8).to(torch.uint8)
    # [block, r, group, sub, i, half, b] -> [block, group, sub, i, r, b] per half.
    u = u.reshape(blocks, _BLOCK_ROWS, groups, subs, 4, 2, 4)
    nibbles = (u[..., 0, :] | (u[..., 1, :] << 4)).permute(0, 2, 3, 4, 1, 5)
    weights = nibbles.reshape(blocks, groups, 8 * group_size)
    padded = torch.zeros(rows, groups, dtype=torch.float32)
    padded[:n] = scales
    header = padded.reshape(blocks, _BLOCK_ROWS, groups).permute(0, 2, 1).contiguous()
    header = header.view(torch.uint8).reshape(blocks, groups, _HEADER_BYTES)
    return torch.cat([header, weights], dim=-1).contiguous()


def unpack_int4_blocked(packed: torch.Tensor, out_features: int,
                        group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The blocked layout -> (q int8 [N, K], scales float32 [N, K/g]); inverse of pack_int4_blocked."""
    if group_size not in GROUP_SIZES:
        raise ValueError(f"group_size {group_size} is not supported; use one of {GROUP_SIZES}")
    blocks = (out_features + _BLOCK_ROWS - 1) // _BLOCK_ROWS
    record = _HEADER_BYTES + 8 * group_size
    if packed.dtype != torch.uint8 or packed.dim() != 3 or packed.shape[0] != blocks \
            or packed.shape[2] != record:
        raise ValueError(f"packed weight must be uint8 [{blocks}, K/{group_size}, {record}] for "
                         f"{out_features} outputs, got {packed.dtype} {list(packed.shape)}")
    groups, subs = packed.shape[1], group_size // 32
    header = packed[..., :_HEADER_BYTES].contiguous().view(torch.float32)   # [blocks, groups, 16]
    scales = header.permute(0, 2, 1).reshape(blocks * _BLOCK_ROWS, groups)[:out_features]
    nibbles = packed[..., _HEADER_BYTES:].reshape(blocks, groups, subs, 4, _BLOCK_ROWS, 4)
    halves = torch.stack([nibbles & 0xF, nibbles >> 4], dim=-2)            # [.., r, half, b]
    u = halves.permute(0, 4, 1, 2, 3, 5, 6).reshape(blocks * _BLOCK_ROWS, groups * group_size)
    q = (u[:out_features].to(torch.int16) - 8).to(torch.int8)
    return q, scales.contiguous()


def dequantize_int4_groupwise(
    packed: torch.Tensor, scales: torch.Tensor, zero_points: Optional[torch.Tensor], group_size: int
) -> torch.Tensor:
    """float32 [N, K]: (q - zp) * scale per group."""
    q = unpack_int4(packed).to(torch.float32)
    n, k = q.shape
    groups = q.reshape(n, k // group_size, group_size)
    if zero_points is not None:
        groups = groups - zero_points.to(torch.float32).unsqueeze(-1)
    return (groups * scales.to(torch.float32).unsqueeze(-1)).reshape(n, k)


def quantize_int8_per_channel(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(q int8 [N, K] in [-127, 127], scales float32 [N]); symmetric, scale = max|w| / 127.

    Rounds as quantized_decomposed.quantize_per_channel does (w * (1 / scale)).
    """
    w = weight.detach().to(torch.float32)
    scales = (w.abs().amax(dim=1) / INT8_WEIGHT_QMAX).clamp(min=_EPS)
    q = torch.clamp(torch.round(w * (1.0 / scales).unsqueeze(1)), INT8_WEIGHT_QMIN, INT8_WEIGHT_QMAX)
    return q.to(torch.int8), scales
