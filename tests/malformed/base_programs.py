"""The well-formed programs the malformed cases start from, decoded.

conv_linear: constants (a conv weight, a prepacked linear weight), planned
inputs, intermediates and outputs, a view without memory, an IntList, a
TensorList, index_select on an input index tensor. cond: torch.cond as
jumps and moves (tests/dynamic_state_models.py). xnnpack: one delegate.
counter: a mutable buffer. Each base is exported once per process.
"""

from __future__ import annotations

import copy
import functools
import sys
from pathlib import Path

import torch
from torch import nn

import torchedge
from torchedge.serialize.pte_file import PteFile, deserialize_pte

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class ConvLinear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(64, 8)

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        y = self.fc(torch.relu(self.conv(x)).flatten(1))
        return torch.cat([y, y[:, :2]], 1).index_select(1, idx)


class XnnpackSmall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


class IntOps(nn.Module):
    """TFLite's hostile-input classes: integer division, strided slices,
    gathers from constant indices, segment (scatter) ids."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("ids", torch.tensor([1, 2, 5]))

    def forward(self, a, b, x, seg):
        return (torch.div(a, b, rounding_mode="floor"), torch.remainder(a, b), x[1::2],
                x.index_select(0, self.ids), torch.zeros(5).scatter_add(0, seg, x[:3]))


@functools.lru_cache(maxsize=None)
def _exported(name: str) -> tuple[bytes, tuple]:
    torch.manual_seed(0)
    if name == "conv_linear":
        inputs = (torch.randn(1, 3, 4, 4), torch.tensor([0, 3]))
        return bytes(torchedge.lower(ConvLinear().eval(), inputs).buffer), inputs
    if name == "int_ops":
        inputs = (torch.tensor([7, -7, 9, 3], dtype=torch.int32),
                  torch.tensor([2, 3, -4, 1], dtype=torch.int32), torch.randn(8),
                  torch.tensor([0, 4, 2]))
        return bytes(torchedge.lower(IntOps().eval(), inputs).buffer), inputs
    if name == "xnnpack":
        from torchedge.backends.xnnpack import XnnpackPartitioner

        inputs = (torch.randn(2, 16),)
        ep = torch.export.export(XnnpackSmall().eval(), inputs)
        pte = torchedge.to_edge(ep).to_backend(XnnpackPartitioner()).to_pte()
        return bytes(pte.buffer), inputs
    from dynamic_state_models import build

    module, inputs, dynamic_shapes = build({"cond": "data_cond", "counter": "counter"}[name])
    ep = torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes)
    if name == "cond":  # ones take the true branch, whose end jumps over the false one
        inputs = (torch.ones_like(inputs[0]),)
    return bytes(torchedge.to_edge(ep).to_pte().buffer), inputs


def base(name: str) -> tuple[PteFile, tuple]:
    """A fresh decoded copy of base `name` (mutate freely) and its inputs."""
    data, inputs = _exported(name)
    return copy.deepcopy(deserialize_pte(data)), inputs


def base_bytes(name: str) -> bytes:
    return _exported(name)[0]
