"""torchedge.runtime.load from a path (mmap or read) and from bytes in any
alignment runs the same program to identical outputs. Loading from bytes
once ran up to 2.3x slower (prepacked weights lost their 64-byte alignment
and were repacked on every call); the C++ side now serves every range
aligned (extension/test/load_paths_test.cpp), and the benchmark's load-path
configurations compare the speeds."""

import numpy as np
import pytest
import torch

import torchedge
from torchedge import runtime


class _ConvLinear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 32, 3, padding=1)
        self.fc = torch.nn.Linear(32 * 8 * 8, 48)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.conv(x)).flatten(1))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    torch.manual_seed(0)
    model = _ConvLinear().eval()
    x = torch.randn(2, 3, 8, 8)
    path = tmp_path_factory.mktemp("load_paths") / "model.pte"
    pte = torchedge.lower(model, (x,))
    pte.save(str(path))
    return path, pte, x, model(x)


def test_every_load_path_gives_identical_outputs(program):
    path, pte, x, expected = program
    reference = runtime.load(path).forward(x)
    torch.testing.assert_close(reference, expected, rtol=1e-4, atol=1e-5)
    data = path.read_bytes()
    assert bytes(pte.buffer) == data
    sources = {"read": dict(source=path, mmap=False), "bytes": dict(source=data),
               "bytearray": dict(source=bytearray(data)), "pte.buffer": dict(source=pte.buffer)}
    for misalignment in (1, 8, 16, 33):
        padded = np.zeros(len(data) + misalignment, dtype=np.uint8)
        padded[misalignment:] = np.frombuffer(data, dtype=np.uint8)
        sources[f"memoryview+{misalignment}"] = dict(source=memoryview(padded)[misalignment:])
    for name, kwargs in sources.items():
        source = kwargs.pop("source")
        out = runtime.load(source, **kwargs).forward(x)
        assert torch.equal(out, reference), name
