"""Fixtures of the quantization tests: digits data, trained models, quantized flows.

Everything is computed once per session and kept in memory.
"""

from __future__ import annotations

import os
import sys
import warnings

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # digits.py

import digits  # noqa: E402

warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)


@pytest.fixture(scope="session")
def data() -> digits.Digits:
    return digits.load_digits()


@pytest.fixture(scope="session")
def models(data) -> dict:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny models: threads only add contention on a shared machine
    try:
        return digits.trained_models(data)
    finally:
        torch.set_num_threads(threads)


class FlowCache:
    """(model name, flow) -> digits.Quantized, computed on first use."""

    def __init__(self, data: digits.Digits, models: dict) -> None:
        self.data, self.models, self._cache = data, models, {}

    def get(self, model: str, flow: str) -> digits.Quantized:
        key = (model, flow)
        if key not in self._cache:
            self._cache[key] = digits.quantize(flow, self.models[model], self.data, flat=model == "mlp")
        return self._cache[key]


@pytest.fixture(scope="session")
def flows(data, models) -> FlowCache:
    return FlowCache(data, models)
