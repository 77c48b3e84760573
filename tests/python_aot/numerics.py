"""Comparing runtime outputs with eager ones in the to_pte rewrite tests."""

from __future__ import annotations

import torch


def scaled_error(reference: torch.Tensor, actual: torch.Tensor) -> float:
    """Largest absolute difference over the finite reference values, relative
    to the reference's largest magnitude (at least 1)."""
    finite = torch.isfinite(reference)
    scale = max(1.0, reference[finite].abs().max().item())
    return (reference[finite].double() - actual[finite].double()).abs().max().item() / scale
