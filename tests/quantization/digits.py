"""Small models trained on scikit-learn's bundled digits (8x8 images, 1797
samples, offline), and the quantization flows applied to them.

Shared by tests/quantization and scripts/quant_report.py. Everything is
deterministic (fixed seeds) and held in memory: nothing is cached on disk.
Models are exported with a static batch of BATCH rows: calibration, QAT
batches and evaluation use that shape.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F

import torchedge
from torchedge import quantization as tq

BATCH = 120  # test split: 360 rows = 3 batches; train split: 1437 rows -> 11 full batches
SEED = 0


@dataclass
class Digits:
    x_train: torch.Tensor  # [N, 1, 8, 8] float32 in [0, 1]
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor

    def batches(self, split: str = "test", flat: bool = False) -> list[torch.Tensor]:
        x = self.x_test if split == "test" else self.x_train
        x = x.reshape(len(x), -1) if flat else x
        return [x[i:i + BATCH] for i in range(0, len(x) - BATCH + 1, BATCH)]

    def labels(self, split: str = "test") -> torch.Tensor:
        y = self.y_test if split == "test" else self.y_train
        return y[: len(y) // BATCH * BATCH]


def load_digits() -> Digits:
    from sklearn.datasets import load_digits as sklearn_digits
    from sklearn.model_selection import train_test_split

    data = sklearn_digits()
    x = torch.tensor(data.images, dtype=torch.float32).unsqueeze(1) / 16.0
    y = torch.tensor(data.target, dtype=torch.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=360, random_state=SEED, stratify=y)
    return Digits(x_train, y_train, x_test, y_test)


class DigitsCNN(nn.Module):
    """conv-relu x2, max pool, a residual add, concatenation, adaptive avg pool, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.fc = nn.Linear(64 * 2 * 2, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x))
        y = F.max_pool2d(F.relu(self.conv2(x)), 2)            # [B, 32, 4, 4]
        z = F.relu(self.conv3(y) + y)                          # residual add + relu
        z = torch.cat([z, y], dim=1)                           # [B, 64, 4, 4]
        z = F.adaptive_avg_pool2d(z, 2).flatten(1)             # [B, 256]
        return self.fc(z)


class DigitsMLP(nn.Module):
    """64 -> 128 -> 64 -> 10; every K is a multiple of 32 (group-wise 4-bit)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(64, 128), nn.Linear(128, 64), nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def train(model: nn.Module, data: Digits, epochs: int, flat: bool, lr: float = 3e-3,
          batch: int = 64) -> nn.Module:
    torch.manual_seed(SEED)
    x = data.x_train.reshape(len(data.x_train), -1) if flat else data.x_train
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(x))
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            optimizer.zero_grad()
            F.cross_entropy(model(x[idx]), data.y_train[idx]).backward()
            optimizer.step()
    return model.eval()


def trained_models(data: Digits) -> dict[str, nn.Module]:
    torch.manual_seed(SEED)
    cnn = train(DigitsCNN(), data, epochs=8, flat=False, lr=5e-3)
    torch.manual_seed(SEED)
    mlp = train(DigitsMLP(), data, epochs=25, flat=True, lr=1e-2)
    return {"cnn": cnn, "mlp": mlp}


def accuracy(run: Callable, batches: list[torch.Tensor], labels: torch.Tensor) -> float:
    return (predictions(run, batches) == labels).double().mean().item()


def predictions(run: Callable, batches: list[torch.Tensor]) -> torch.Tensor:
    with torch.no_grad():
        return torch.cat([run(b).argmax(dim=-1) for b in batches])


# -- flows ---------------------------------------------------------------------------

# "dynamic" fuses each linear into torchedge::linear_dynamic_int8 (int8 GEMM at run time);
# "dynamic_unfused" keeps convert_pt2e's quantize/dequantize + float linear form.
FLOWS = ("static", "dynamic", "dynamic_unfused", "qat", "int8_weight_only", "int4_weight_only",
         "8da4w")


@dataclass
class Quantized:
    flow: str
    reference: Callable  # the eager quantized reference model
    program: torchedge.PteProgram


def _qat(model: nn.Module, data: Digits, flat: bool, epochs: int = 2,
         weight_bits: int = 8) -> torch.export.ExportedProgram:
    example = data.batches("train", flat)[0]
    prepared = tq.prepare(copy.deepcopy(model), (example,), tq.qat_config(weight_bits))
    optimizer = torch.optim.SGD(prepared.parameters(), lr=1e-3, momentum=0.9)
    torch.manual_seed(SEED)
    batches, labels = data.batches("train", flat), data.labels("train")
    for _ in range(epochs):
        for i in torch.randperm(len(batches)).tolist():
            optimizer.zero_grad()
            F.cross_entropy(prepared(batches[i]), labels[i * BATCH:(i + 1) * BATCH]).backward()
            optimizer.step()
    return tq.convert(prepared, (example,))


def quantize(flow: str, model: nn.Module, data: Digits, flat: bool, group_size: int = 32) -> Quantized:
    """Applies `flow` to a copy of `model`; lowers it to a .pte. A "_w7" suffix on
    "static" / "qat" quantizes the weights to 7 bits (weight_bits=7)."""
    example = data.batches("train", flat)[0]
    weight_bits = 7 if flow.endswith("_w7") else 8
    base = flow.removesuffix("_w7") if weight_bits == 7 else flow
    if weight_bits == 7 and base not in ("static", "qat"):
        raise ValueError(f"unknown flow {flow!r}")
    if base in ("static", "dynamic", "dynamic_unfused"):
        config = tq.static_config(weight_bits=weight_bits) if base == "static" else tq.dynamic_config()
        calibration = data.batches("train", flat)[:4] if base == "static" else None
        ep = tq.quantize_pt2e(copy.deepcopy(model), (example,), calibration, config=config,
                              fuse_dynamic_linear=flow != "dynamic_unfused")
    elif base == "qat":
        ep = _qat(model, data, flat, weight_bits=weight_bits)
    elif flow in tq.LINEAR_SCHEMES:
        quantized = tq.quantize_linear_weights(copy.deepcopy(model), flow, group_size=group_size)
        ep = torch.export.export(quantized, (example,))
    else:
        raise ValueError(f"unknown flow {flow!r}")
    return Quantized(flow, ep.module(), torchedge.to_edge(ep).to_pte())


def float_program(model: nn.Module, data: Digits, flat: bool) -> torchedge.PteProgram:
    example = data.batches("train", flat)[0]
    return torchedge.to_edge(torch.export.export(model, (example,))).to_pte()
