"""Small text helpers shared by the subcommands."""

from __future__ import annotations

import torch


def size(nbytes: int) -> str:
    """'1,234 B (1.2 KiB)' style byte counts."""
    if nbytes < 1024:
        return f"{nbytes:,} B"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes:,} B ({nbytes / scale:.1f} {unit})"
    return f"{nbytes:,} B"


def tensor_summary(t: torch.Tensor) -> str:
    """dtype[shape] with min/mean/max (floats) or sum/min/max (integers)."""
    dtype = str(t.dtype).replace("torch.", "")
    shape = "[" + ", ".join(map(str, t.shape)) + "]"
    if t.numel() == 0:
        return f"{dtype}{shape} (empty)"
    if t.dtype.is_floating_point:
        v = t.double()
        return f"{dtype}{shape} min={v.min():.6g} mean={v.mean():.6g} max={v.max():.6g}"
    v = t.long()
    return f"{dtype}{shape} sum={int(v.sum())} min={int(v.min())} max={int(v.max())}"
