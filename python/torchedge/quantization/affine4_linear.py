"""4-bit affine group-wise linear layers (GGUF Q4_1's arithmetic) and their operator.

    torchedge::linear_q4a(input, packed_weight, scales, mins, group_size, activation_bits, bias)

Weight [N, K] in groups of `group_size` values along K; each group (row n,
group j) has a scale and a min, stored as float16 (as GGUF's Q4_1 stores
them: 4.5 + 0.5 bits per weight at g = 32, where float32 would add 25 % to
the bytes a decode step streams), and 4-bit codes q in [0, 15]:

    w[n, k] = q[n, k] * float(scales[n, k / g]) + float(mins[n, k / g])

packed two per byte along K, low nibble first (byte[n, i] = q[n, 2i] |
q[n, 2i + 1] << 4; uint8 [N, K / 2]); scales and mins float16 [N, K / g].
Quantizing a group: lo = min(w), hi = max(w), scale = fp16((hi - lo) / 15),
min = fp16(lo), q = clamp(round((w - min) / scale), 0, 15) with the stored
(float16) scale and min; a group whose scale is 0 gets q = 0. A weight that is
already Q4_1 (a GGUF checkpoint dequantized to float) whose groups use codes
0 and 15 is recovered exactly; unlike a 4-bit format with an integer zero
point, the offset is not rounded to a multiple of the scale, which keeps
requantized Q4_1 checkpoints near their original perplexity.

Activations (`activation_bits`):
  32: float32, out = input @ dequant(W)^T + bias (4-bit weight-only);
   8: int8 dynamic, per row and per group of the same g values along K
      (as GGUF's Q8 activations): s = max|x| / 127 over the group (a zero
      group: s = 0, codes 0), xq = clamp(round(x / s), -127, 127), then
      out = sum_j s_j * (scale_j * sum(xq * q) + min_j * sum(xq)) + bias,
      whose integer sums are exact; the reference below computes the same
      value as (xq * s) @ dequant(W)^T, equal up to float rounding.
Per-group activation scales follow the outlier channels of decoder LLMs
far better than one scale per row (per-token int8 doubled SmolLM2's
perplexity; see docs/llm.md).
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.quantization.groupwise import check_group_size

NAMESPACE = "torchedge"
OP_NAME = "linear_q4a"
ACTIVATION_BITS = (8, 32)
_ARGUMENTS = ("Tensor input, Tensor packed_weight, Tensor scales, Tensor mins, int group_size, "
              "int activation_bits, Tensor? bias")

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def quantize_affine4(weight: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(q uint8 [N, K] in [0, 15], scales float16 [N, K/g], mins float16 [N, K/g])."""
    if weight.dim() != 2:
        raise ValueError(f"expected a 2-d weight [N, K], got shape {list(weight.shape)}")
    n, k = weight.shape
    check_group_size(k, group_size)
    groups = weight.detach().to(torch.float32).reshape(n, k // group_size, group_size)
    lo = groups.amin(dim=-1).to(torch.float16)
    hi = groups.amax(dim=-1)
    scales = ((hi - lo.float()) / 15.0).to(torch.float16)
    scale32 = scales.float()
    safe = torch.where(scale32 > 0, scale32, torch.ones_like(scale32))
    q = torch.clamp(torch.round((groups - lo.float().unsqueeze(-1)) / safe.unsqueeze(-1)), 0, 15)
    q = torch.where(scale32.unsqueeze(-1) > 0, q, torch.zeros_like(q))
    return q.reshape(n, k).to(torch.uint8), scales, lo


def pack_affine4(q: torch.Tensor) -> torch.Tensor:
    """uint8 [N, K] codes in [0, 15] -> uint8 [N, K/2], low nibble first."""
    if q.dim() != 2 or q.shape[1] % 2:
        raise ValueError(f"expected [N, K] with even K, got {list(q.shape)}")
    q = q.to(torch.int16)
    return (q[:, 0::2] | (q[:, 1::2] << 4)).to(torch.uint8)


def unpack_affine4(packed: torch.Tensor) -> torch.Tensor:
    """uint8 [N, K/2] -> uint8 [N, K] codes in [0, 15]."""
    b = packed.to(torch.int16)
    q = torch.stack([b & 0xF, (b >> 4) & 0xF], dim=-1)
    return q.reshape(packed.shape[0], packed.shape[1] * 2).to(torch.uint8)


def dequantize_affine4(packed: torch.Tensor, scales: torch.Tensor, mins: torch.Tensor,
                       group_size: int) -> torch.Tensor:
    q = unpack_affine4(packed).to(torch.float32)
    n, k = q.shape
    groups = q.reshape(n, k // group_size, group_size)
    return (groups * scales.float().unsqueeze(-1) + mins.float().unsqueeze(-1)).reshape(n, k)


def quantize_activations_per_group(x: torch.Tensor, group_size: int) -> torch.Tensor:
    """x with each group of `group_size` values along the last dim replaced by
    its int8 dequantization xq * s (see the module docstring)."""
    shape = x.shape
    groups = x.reshape(*shape[:-1], shape[-1] // group_size, group_size)
    s = groups.abs().amax(dim=-1, keepdim=True) / 127.0
    safe = torch.where(s > 0, s, torch.ones_like(s))
    xq = torch.clamp(torch.round(groups / safe), -127.0, 127.0)
    return (xq * s).reshape(shape)


def _check(input, packed_weight, scales, mins, group_size, activation_bits, bias) -> None:
    where = f"{NAMESPACE}::{OP_NAME}"
    if packed_weight.dtype != torch.uint8 or packed_weight.dim() != 2:
        raise ValueError(f"{where}: packed_weight must be uint8 [N, K/2], got {packed_weight.dtype} "
                         f"{list(packed_weight.shape)}")
    n, k = packed_weight.shape[0], packed_weight.shape[1] * 2
    check_group_size(k, group_size, where)
    if input.dtype != torch.float32 or input.shape[-1] != k:
        raise ValueError(f"{where}: input must be float32 with {k} features, got {input.dtype} "
                         f"{list(input.shape)}")
    groups = [n, k // group_size]
    for name, t in (("scales", scales), ("mins", mins)):
        if t.dtype != torch.float16 or list(t.shape) != groups:
            raise ValueError(f"{where}: {name} must be float16 {groups}, got {t.dtype} {list(t.shape)}")
    if activation_bits not in ACTIVATION_BITS:
        raise ValueError(f"{where}: activation_bits must be one of {ACTIVATION_BITS}, got {activation_bits}")
    if bias is not None and list(bias.shape) != [n]:
        raise ValueError(f"{where}: bias must have shape [{n}], got {list(bias.shape)}")


def linear_q4a_reference(input, packed_weight, scales, mins, group_size, activation_bits, bias):
    _check(input, packed_weight, scales, mins, group_size, activation_bits, bias)
    weight = dequantize_affine4(packed_weight, scales, mins, group_size)
    x = input if activation_bits == 32 else quantize_activations_per_group(input, group_size)
    return F.linear(x, weight, bias)


def _fake(input, packed_weight, scales, mins, group_size, activation_bits, bias):
    return input.new_empty((*input.shape[:-1], packed_weight.shape[0]))


def _register() -> None:
    packet = getattr(torch.ops, NAMESPACE)
    if hasattr(packet, OP_NAME):
        return
    _library.define(f"{OP_NAME}({_ARGUMENTS}) -> Tensor")
    _library.define(f"{OP_NAME}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(OP_NAME, linear_q4a_reference, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{OP_NAME}", _fake, lib=_library)


_register()


class Affine4Linear(nn.Module):
    """nn.Linear with a 4-bit affine group-wise weight (see the module docstring)."""

    def __init__(self, linear: nn.Linear, group_size: int, activation_bits: int) -> None:
        super().__init__()
        if activation_bits not in ACTIVATION_BITS:
            raise ValueError(f"activation_bits must be one of {ACTIVATION_BITS}, got {activation_bits}")
        q, scales, mins = quantize_affine4(linear.weight, group_size)
        self.register_buffer("packed_weight", pack_affine4(q))
        self.register_buffer("scales", scales)
        self.register_buffer("mins", mins)
        bias = linear.bias.detach().to(torch.float32).clone() if linear.bias is not None else None
        self.register_buffer("bias", bias)
        self.group_size, self.activation_bits = group_size, activation_bits
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.linear_q4a(x, self.packed_weight, self.scales, self.mins,
                                              self.group_size, self.activation_bits, self.bias)

    def extra_repr(self) -> str:
        return (f"{self.in_features}, {self.out_features}, 4-bit affine g{self.group_size}, "
                f"activations {'int8' if self.activation_bits == 8 else 'float32'}")


def quantize_linear_affine4(model: nn.Module, group_size: int = 32, activation_bits: int = 8,
                            filter_fn: Optional[Callable[[str, nn.Linear], bool]] = None) -> nn.Module:
    """Replaces every nn.Linear (for which filter_fn(name, module) holds) by an
    Affine4Linear, in place; returns the model. ValueError naming the first
    layer whose in_features is not a multiple of group_size."""
    targets = [(name, m) for name, m in model.named_modules()
               if type(m) is nn.Linear and (filter_fn is None or filter_fn(name, m))]
    for name, linear in targets:
        check_group_size(linear.in_features, group_size, f"layer '{name}'")
    for name, linear in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Affine4Linear(linear, group_size, activation_bits))
    return model
