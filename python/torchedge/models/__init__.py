"""Built-in models with seeded random weights, for the demo, tests and benchmarks.

    spec = torchedge.models.get("small_cnn")
    pte = torchedge.lower(spec.module, spec.example_inputs, methods=spec.methods)

Nothing is downloaded: every model is defined here in plain PyTorch.
"""

from __future__ import annotations

from torchedge.models.registry import ModelSpec, available, get

__all__ = ["ModelSpec", "available", "get"]
