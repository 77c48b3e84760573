"""aten.linalg_vector_norm (F.normalize, torch.linalg.vector_norm, torch.norm)
decomposes into core ops in to_edge (torchedge/edge/decompositions.py); the
runtime matches eager for several ords, dims, keepdim and dtype (float32,
1e-5 relative)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchedge
import torchedge.runtime


class VectorNorm(torch.nn.Module):
    def __init__(self, ord, dim, keepdim, dtype=None) -> None:
        super().__init__()
        self.ord, self.dim, self.keepdim, self.dtype = ord, dim, keepdim, dtype

    def forward(self, x):
        return torch.linalg.vector_norm(x, self.ord, self.dim, self.keepdim, dtype=self.dtype)


CASES = [
    (2, 1, False), (2, -1, True), (2, None, False), (2, (0, 2), True),
    (1, 0, False), (3, 2, True), (0.5, 1, False), (float("inf"), -1, False),
    (float("-inf"), 1, True), (0, 2, False), (-1, 1, False), (2.5, None, True),
]


@pytest.mark.parametrize("ord,dim,keepdim", CASES)
def test_vector_norm_matches_eager(ord, dim, keepdim):
    torch.manual_seed(0)
    x = torch.randn(3, 5, 7)
    x[0, 0, :3] = 0.0  # zeros for ord 0 and negative ords
    model = VectorNorm(ord, dim, keepdim).eval()
    program = torchedge.to_edge(torch.export.export(model, (x,)))
    targets = {str(n.target) for n in program.exported_program().graph.nodes if n.op == "call_function"}
    assert not any("linalg_vector_norm" in t for t in targets), targets
    got = torchedge.runtime.load(program.to_pte().buffer).forward(x)
    expected = model(x)
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


def test_dtype_argument_and_f_normalize_with_dynamic_batch():
    x = torch.randn(4, 16)
    model = VectorNorm(2, 1, False, dtype=torch.float64).eval()
    program = torchedge.lower(model, (x,))
    torch.testing.assert_close(torchedge.runtime.load(program.buffer).forward(x), model(x))

    class Normalize(torch.nn.Module):
        def forward(self, y):
            return F.normalize(y, p=2, dim=-1)

    batch = torch.export.Dim("batch", min=1, max=32)
    pte = torchedge.lower(Normalize(), (x,), dynamic_shapes=({0: batch},))
    runtime = torchedge.runtime.load(pte.buffer)
    for rows in (1, 4, 9):
        y = torch.randn(rows, 16)
        torch.testing.assert_close(runtime.forward(y), F.normalize(y, dim=-1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ord", [2, 1, 0, float("inf"), 3])
def test_complex_input_is_the_norm_of_its_magnitudes(ord):
    torch.manual_seed(0)
    x = torch.randn(3, 6, dtype=torch.complex64)
    x[0, :2] = 0  # zeros for ord 0
    model = VectorNorm(ord, 1, False).eval()
    got = torchedge.runtime.load(torchedge.lower(model, (x,)).buffer).forward(x)
    expected = model(x)
    assert got.dtype == expected.dtype == torch.float32
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
