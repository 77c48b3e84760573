"""Quantization configurations of the TorchEdgeQuantizer (PT2E flows).

A `QuantConfig` says how activations and weights of quantized operators are
represented. The numerics the runtime implements are fixed:

* weights: int8 symmetric per output channel, range [-127, 127] (zero point
  0; the symmetric range keeps -w representable and lets int8 GEMMs skip
  the weight zero point), or with weight_bits=7 the range [-63, 63]: half
  the resolution, and on x86 CPUs without VNNI (AVX2 only) about 1.4x
  faster int8 convolutions (u8 x s8 products that cannot saturate; ONNX
  Runtime's reduce_range trade);
* activations: int8 per-tensor affine, range [-128, 127], either observed
  during calibration (static, QAT) or computed per call from the tensor
  itself (dynamic: choose_qparams at run time; only linear layers).
Biases stay float32: after convert_pt2e the quantized operators run as
dequantize -> float op -> quantize, which the runtime executes exactly as
eager PyTorch does; a delegate may fuse the pattern into int8 kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import torch


class QuantMode(str, Enum):
    STATIC = "static"  # post-training, activations calibrated (prepare_pt2e)
    DYNAMIC = "dynamic"  # activations quantized per call (linear only)
    QAT = "qat"  # quantization-aware training (prepare_qat_pt2e)


ACTIVATION_QMIN, ACTIVATION_QMAX = -128, 127
WEIGHT_QMIN, WEIGHT_QMAX = -127, 127
SEVEN_BIT_WEIGHT_QMIN, SEVEN_BIT_WEIGHT_QMAX = -63, 63


@dataclass(frozen=True)
class QuantConfig:
    """How the TorchEdgeQuantizer quantizes a model.

    mode: static / dynamic / qat (see QuantMode).
    activation_observer: "histogram" (static default: clips outliers, better
        accuracy) or "minmax" (faster calibration). Ignored for dynamic/QAT.
    weight_bits: 8 (weights in [-127, 127]) or 7 ([-63, 63]: faster int8
        convolutions on AVX2 CPUs without VNNI, at half the weight resolution).
    """

    mode: QuantMode = QuantMode.STATIC
    activation_observer: str = "histogram"
    weight_bits: int = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", _parse_mode(self.mode))
        if self.activation_observer not in ("histogram", "minmax"):
            raise ValueError(
                f"unsupported activation_observer {self.activation_observer!r}; "
                "use 'histogram' or 'minmax'"
            )
        if self.weight_bits not in (7, 8):
            raise ValueError(f"unsupported weight_bits {self.weight_bits!r}; use 8 or 7")

    @property
    def weight_range(self) -> tuple[int, int]:
        """(quant_min, quant_max) of the weights."""
        if self.weight_bits == 7:
            return SEVEN_BIT_WEIGHT_QMIN, SEVEN_BIT_WEIGHT_QMAX
        return WEIGHT_QMIN, WEIGHT_QMAX

    @property
    def is_qat(self) -> bool:
        return self.mode is QuantMode.QAT

    @property
    def is_dynamic(self) -> bool:
        return self.mode is QuantMode.DYNAMIC


def _parse_mode(mode: object) -> QuantMode:
    try:
        return QuantMode(mode)
    except ValueError:
        raise ValueError(
            f"unsupported quantization mode {mode!r}; supported: "
            + ", ".join(m.value for m in QuantMode)
        ) from None


def static_config(activation_observer: str = "histogram", weight_bits: int = 8) -> QuantConfig:
    """Post-training static int8 (calibrated activations)."""
    return QuantConfig(QuantMode.STATIC, activation_observer, weight_bits)


def dynamic_config() -> QuantConfig:
    """Dynamic int8 activations for linear layers (transformers)."""
    return QuantConfig(QuantMode.DYNAMIC)


def qat_config(weight_bits: int = 8) -> QuantConfig:
    """Quantization-aware training: fake-quantized weights and activations."""
    return QuantConfig(QuantMode.QAT, weight_bits=weight_bits)


def weight_dtype() -> torch.dtype:
    return torch.int8
