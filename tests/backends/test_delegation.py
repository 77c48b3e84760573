"""The delegation mechanism, proven with the test backend (no XNNPACK).

Partitioner -> to_backend -> preprocess -> blob in a segment -> runtime
init once -> execute per call -> destroy at teardown; unsupported nodes stay
on portable kernels and the report says why. Results must equal eager
exactly (the test backend computes the same float32 add/mul).
"""

from __future__ import annotations

import gc

import pytest
import torch

import torchedge
from torchedge import _C, runtime
from torchedge.backends.test_backend import TestPartitioner


class AddMulRelu(torch.nn.Module):
    def forward(self, x, y):
        a = x + y
        b = a * x
        return torch.relu(b) * y + a


def _lowered():
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    ep = torch.export.export(AddMulRelu(), (x, y))
    return torchedge.to_edge(ep).to_backend(TestPartitioner()), (x, y)


def test_report_names_what_stays_and_why():
    edge, _ = _lowered()
    report = edge.delegation_report
    assert len(report.delegated()) == 4
    (kept,) = report.rejected()
    assert "relu" in kept.operator and "only add and mul" in kept.reason
    assert "test_delegation.py" in kept.source


def test_delegated_program_matches_eager_and_cleans_up():
    edge, (x, y) = _lowered()
    pte = edge.to_pte()
    _C.register_test_backend()
    program = runtime.load(pte.buffer)
    for _ in range(3):  # init once, execute per call
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        assert torch.equal(program.forward(x, y), AddMulRelu()(x, y))
    assert _C.test_backend_live_delegates() == 2
    del program
    gc.collect()
    assert _C.test_backend_live_delegates() == 0


def test_eager_still_runs_the_delegated_graph():
    edge, (x, y) = _lowered()
    assert torch.equal(edge.exported_program().module()(x, y), AddMulRelu()(x, y))


def test_missing_backend_is_a_clear_load_error():
    edge, (x, y) = _lowered()
    data = edge.to_pte().buffer.replace(b"TorchEdgeTestBackend", b"TorchEdgeMissBackend")
    with pytest.raises(runtime.TorchEdgeRuntimeError) as e:
        runtime.load(data).forward(x, y)
    assert e.value.code_name == "NotSupported"
    assert "backend 'TorchEdgeMissBackend'" in e.value.message
