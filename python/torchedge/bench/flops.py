"""The floating-point work of one forward pass, counted once in eager PyTorch.

torch.utils.flop_counter.FlopCounterMode counts matrix products and
convolutions (2 FLOPs per multiply-add) from their shapes; elementwise work,
normalization and softmax are not counted, so achieved GFLOP/s (FLOPs /
median latency) is a lower bound, and comparable across runtimes because
every runtime runs the same model.
"""

from __future__ import annotations

import torch
from torch.utils.flop_counter import FlopCounterMode


def count_flops(module: torch.nn.Module, inputs: tuple) -> int:
    with torch.inference_mode(), FlopCounterMode(display=False) as counter:
        module(*inputs)
    return int(counter.get_total_flops())
