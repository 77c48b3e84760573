"""torchao QuantizationSpecs for a QuantConfig (see configs.py for the numerics).

Static activations use a histogram (or min/max) observer, QAT activations
and weights fake-quantize with moving-average observers, dynamic
activations use a placeholder observer that convert_pt2e turns into
choose_qparams -> quantize -> dequantize evaluated at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from torchao.quantization.pt2e import (
    FusedMovingAvgObsFakeQuantize,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
)
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from torchedge.quantization.configs import (
    ACTIVATION_QMAX,
    ACTIVATION_QMIN,
    QuantConfig,
)

# Smallest scale an observer may choose: keeps 1/scale finite for constant tensors.
_EPS = 2.0**-12


@dataclass(frozen=True)
class OperatorSpecs:
    """The specs of one config: activation (None: leave activations float) and weight."""

    activation: Optional[QuantizationSpec]
    weight: QuantizationSpec
    dynamic_activation: bool


def _static_activation(config: QuantConfig) -> QuantizationSpec:
    observer = HistogramObserver if config.activation_observer == "histogram" else MinMaxObserver
    return QuantizationSpec(
        dtype=torch.int8, quant_min=ACTIVATION_QMIN, quant_max=ACTIVATION_QMAX,
        qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=observer.with_args(eps=_EPS),
    )


def _qat_activation() -> QuantizationSpec:
    return QuantizationSpec(
        dtype=torch.int8, quant_min=ACTIVATION_QMIN, quant_max=ACTIVATION_QMAX,
        qscheme=torch.per_tensor_affine,
        observer_or_fake_quant_ctr=FusedMovingAvgObsFakeQuantize.with_args(
            observer=MovingAverageMinMaxObserver, eps=_EPS),
    )


def _dynamic_activation() -> QuantizationSpec:
    return QuantizationSpec(
        dtype=torch.int8, quant_min=ACTIVATION_QMIN, quant_max=ACTIVATION_QMAX,
        qscheme=torch.per_tensor_affine, is_dynamic=True,
        observer_or_fake_quant_ctr=PlaceholderObserver.with_args(is_dynamic=True),
    )


def _weight(config: QuantConfig) -> QuantizationSpec:
    if config.is_qat:
        ctr = FusedMovingAvgObsFakeQuantize.with_args(
            observer=MovingAveragePerChannelMinMaxObserver, eps=_EPS)
    else:
        ctr = PerChannelMinMaxObserver.with_args(eps=_EPS)
    quant_min, quant_max = config.weight_range
    return QuantizationSpec(
        dtype=torch.int8, quant_min=quant_min, quant_max=quant_max,
        qscheme=torch.per_channel_symmetric, ch_axis=0,
        observer_or_fake_quant_ctr=ctr,
    )


def operator_specs(config: QuantConfig) -> OperatorSpecs:
    if config.is_dynamic:
        return OperatorSpecs(_dynamic_activation(), _weight(config), True)
    activation = _qat_activation() if config.is_qat else _static_activation(config)
    return OperatorSpecs(activation, _weight(config), False)
