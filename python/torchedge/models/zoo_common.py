"""Shared pieces of the model zoo: its list of models, the spec helper, weight
randomization, and how zoo parity against eager is measured.

Zoo models are common architectures written in plain PyTorch (torchvision and
transformers are not used), built with seeded random weights. Each is
registered with `extra={"zoo": True}`. ZOO_MODELS lists them in a stable order
for the zoo test and scripts/zoo_report.py.
"""

from __future__ import annotations

import torch
from torch import nn

from torchedge.models.registry import ModelSpec

# The zoo, in report order; every name is registered by a models/zoo_*.py module.
ZOO_MODELS = (
    "mobilenet_v2",
    "mobilenet_v3_small",
    "resnet18",
    "resnet50",
    "efficientnet_b0",
    "vit_tiny",
    "swin_block",
    "bert_minilm",
    "llama_decoder",
    "whisper_encoder",
    "lstm_classifier",
    "unet_small",
    "detection_head",
)

# Zoo parity: max |runtime - eager| / max(1, max |eager|) over every output.
PARITY_TOLERANCE = 1e-4


def zoo_spec(name: str, description: str, module: nn.Module, inputs: tuple, **extra) -> ModelSpec:
    """A single-method ModelSpec marked as a zoo model."""
    return ModelSpec(name, description, module, {"forward": inputs}, extra={"zoo": True, **extra})


def calibrate_batch_norm(module: nn.Module, example: torch.Tensor, downscale: int = 2) -> nn.Module:
    """Gives every BatchNorm random affine terms (from the global seed) and
    running statistics measured on random images like `example` (N, C, H, W),
    as training would, so eval-mode activations keep unit scale through deep
    networks and the outputs are O(1) rather than vanishing.

    For speed the statistics come from one batch of two images at 1/downscale
    of the example's resolution (1 for models tied to their input size).
    Returns `module` in eval mode.
    """
    norms = [m for m in module.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    n, c, h, w = example.shape
    with torch.no_grad():
        for m in norms:
            m.reset_running_stats()
            m.momentum = None  # cumulative average: exactly this batch's statistics
            m.weight.uniform_(0.7, 1.3)
            m.bias.normal_(0.0, 0.1)
        module.train()
        module(torch.randn(2, c, h // downscale, w // downscale))
        for m in norms:
            m.momentum = 0.1
    return module.eval()


def parity_error(reference, actual) -> float:
    """Max relative difference between two (nested) outputs.

    Float tensors: max |a - r| / max(1, max |r|); integer and bool tensors: 0 when
    equal, else inf. A structure, shape or dtype mismatch is inf.
    """
    ref = [t for t in torch.utils._pytree.tree_leaves(reference) if isinstance(t, torch.Tensor)]
    act = [t for t in torch.utils._pytree.tree_leaves(actual) if isinstance(t, torch.Tensor)]
    if len(ref) != len(act):
        return float("inf")
    worst = 0.0
    for r, a in zip(ref, act):
        if r.shape != a.shape or r.dtype != a.dtype:
            return float("inf")
        if r.numel() == 0:
            continue
        if not r.dtype.is_floating_point:
            if not torch.equal(r, a):
                return float("inf")
            continue
        diff = (r.double() - a.double()).abs().max().item()
        if diff != diff:  # NaN in either output
            return float("inf")
        worst = max(worst, diff / max(1.0, r.abs().max().item()))
    return worst
