"""torchedge's fused dynamic int8 linear operator (a torch custom op).

    torchedge::linear_dynamic_int8(input, weight_q, weight_scales, bias) -> Tensor

and its `.out` overload (the runtime kernel's name,
kernels/quantized/op_linear_dynamic_int8.cpp). It is the dynamic int8
linear that PT2E's dynamic flow emits as five ops, in one:

    scale, zp = choose_qparams.tensor(input, -128, 127, float32 eps, int8)   # per tensor
    x = dequantize_per_tensor(quantize_per_tensor(input, scale, zp, -128, 127, int8), ...)
    w = dequantize_per_channel(weight_q, weight_scales, None, axis=0, ...)  # symmetric int8
    out = linear(x, w, bias)

The CPU implementation below is exactly that composition (so the eager
quantized reference is unchanged by the fusion); the runtime kernel
computes the same integers and differs by float rounding only (it sums in
int32). weight_q: int8 [N, K]; weight_scales: float32 [N]; bias: float32
[N] or None; input: float32 [..., K].
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed)
import torch.nn.functional as F

NAMESPACE = "torchedge"
OP_NAME = "linear_dynamic_int8"
_ARGUMENTS = "Tensor input, Tensor weight_q, Tensor weight_scales, Tensor? bias"
FLOAT32_EPS = torch.finfo(torch.float32).eps

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(input: torch.Tensor, weight_q: torch.Tensor, weight_scales: torch.Tensor,
           bias: Optional[torch.Tensor]) -> None:
    where = f"torchedge::{OP_NAME}"
    if weight_q.dtype != torch.int8 or weight_q.dim() != 2:
        raise ValueError(f"{where}: weight_q must be int8 [N, K], got {weight_q.dtype} "
                         f"{list(weight_q.shape)}")
    n, k = weight_q.shape
    if input.dtype != torch.float32 or input.shape[-1] != k:
        raise ValueError(f"{where}: input must be float32 [..., {k}], got {input.dtype} "
                         f"{list(input.shape)}")
    if weight_scales.dtype != torch.float32 or list(weight_scales.shape) != [n]:
        raise ValueError(f"{where}: weight_scales must be float32 [{n}], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    if bias is not None and list(bias.shape) != [n]:
        raise ValueError(f"{where}: bias must have shape [{n}], got {list(bias.shape)}")


def linear_dynamic_int8_reference(input: torch.Tensor, weight_q: torch.Tensor,
                                  weight_scales: torch.Tensor,
                                  bias: Optional[torch.Tensor]) -> torch.Tensor:
    _check(input, weight_q, weight_scales, bias)
    qd = torch.ops.quantized_decomposed
    scale, zp = qd.choose_qparams.tensor(input, -128, 127, FLOAT32_EPS, torch.int8)
    xq = qd.quantize_per_tensor.tensor(input, scale, zp, -128, 127, torch.int8)
    x = qd.dequantize_per_tensor.tensor(xq, scale, zp, -128, 127, torch.int8)
    w = qd.dequantize_per_channel(weight_q, weight_scales, None, 0, -128, 127, torch.int8)
    return F.linear(x, w, bias)


def _fake(input, weight_q, weight_scales, bias):
    return input.new_empty((*input.shape[:-1], weight_q.shape[0]))


def _register() -> None:
    if hasattr(getattr(torch.ops, NAMESPACE), OP_NAME):  # module reloaded: already registered
        return
    _library.define(f"{OP_NAME}({_ARGUMENTS}) -> Tensor")
    _library.define(f"{OP_NAME}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(OP_NAME, linear_dynamic_int8_reference, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{OP_NAME}", _fake, lib=_library)


_register()
