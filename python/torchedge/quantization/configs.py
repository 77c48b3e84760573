"""Quantization configurations of the TorchEdgeQuantizer (PT2E flows).

A `QuantConfig` says how activations and weights of quantized operators are
represented. The numerics the runtime implements are fixed:

* weights: int8 symmetric per output channel, range [-127, 127] (zero point
  0; the symmetric range keeps -w representable and lets int8 GEMMs skip
  the weight zero point);
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


@dataclass(frozen=True)
class QuantConfig:
    """How the TorchEdgeQuantizer quantizes a model.

    mode: static / dynamic / qat (see QuantMode).
    activation_observer: "histogram" (static default: clips outliers, better
        accuracy) or "minmax" (faster calibration). Ignored for dynamic/QAT.
    """

    mode: QuantMode = QuantMode.STATIC
    activation_observer: str = "histogram"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", _parse_mode(self.mode))
        if self.activation_observer not in ("histogram", "minmax"):
            raise ValueError(
                f"unsupported activation_observer {self.activation_observer!r}; "
                "use 'histogram' or 'minmax'"
            )

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


def static_config(activation_observer: str = "histogram") -> QuantConfig:
    """Post-training static int8 (calibrated activations)."""
    return QuantConfig(QuantMode.STATIC, activation_observer)


def dynamic_config() -> QuantConfig:
    """Dynamic int8 activations for linear layers (transformers)."""
    return QuantConfig(QuantMode.DYNAMIC)


def qat_config() -> QuantConfig:
    """Quantization-aware training: fake-quantized weights and activations."""
    return QuantConfig(QuantMode.QAT)


def weight_dtype() -> torch.dtype:
    return torch.int8
