"""Built-in models with seeded random weights, for the demo, tests and benchmarks.

    spec = torchedge.models.get("small_cnn")
    pte = torchedge.lower(spec.module, spec.example_inputs, methods=spec.methods)

Nothing is downloaded: every model is defined here in plain PyTorch.
"""

from __future__ import annotations

from torchedge.models.registry import ModelSpec, available, get

# The definition modules: importing one registers its models (@register).
from torchedge.models import basic  # noqa: F401,E402
from torchedge.models import zoo_dense, zoo_mobile, zoo_resnet, zoo_sequence, zoo_text, zoo_vit  # noqa: F401,E402
from torchedge.models import zoo_audio  # noqa: F401,E402
from torchedge.models import zoo_hf  # noqa: F401,E402
from torchedge.models import zoo_tiny  # noqa: F401,E402

__all__ = ["ModelSpec", "available", "get"]
