"""How far one tensor is from another: max abs error, relative error, SQNR.

All three take the reference first and compute in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ErrorMetrics:
    max_abs_error: float
    # ||other - reference||_2 / ||reference||_2 (inf when the reference is 0 and other is not)
    relative_error: float
    # 10 log10(||reference||^2 / ||other - reference||^2) in dB; inf when equal
    sqnr_db: float


def error_metrics(reference: torch.Tensor, other: torch.Tensor) -> ErrorMetrics:
    """Errors of `other` against `reference` (same shape). NaNs or infinities
    in the same places count as equal; in different places, as infinite error."""
    reference = reference.detach().to(torch.float64)
    other = other.detach().to(torch.float64)
    same = (reference == other) | (torch.isnan(reference) & torch.isnan(other))
    difference = torch.where(same, torch.zeros_like(reference), other - reference)
    finite = torch.isfinite(difference)
    if not bool(finite.all()):
        return ErrorMetrics(math.inf, math.inf, -math.inf)
    signal = torch.where(torch.isfinite(reference), reference, torch.zeros_like(reference))
    noise = float(difference.pow(2).sum())
    power = float(signal.pow(2).sum())
    max_abs = float(difference.abs().max()) if difference.numel() else 0.0
    if noise == 0.0:
        return ErrorMetrics(max_abs, 0.0, math.inf)
    if power == 0.0:
        return ErrorMetrics(max_abs, math.inf, -math.inf)
    return ErrorMetrics(max_abs, math.sqrt(noise / power), 10.0 * math.log10(power / noise))
