"""The dense linear-algebra kernels (kernels/portable/linalg_kernels.inc,
op_linalg_*.cpp) against eager PyTorch: their op-table entries.

Samples are batches of small well-conditioned matrices (symmetric positive
definite ones for Cholesky and eigh, diagonally dominant ones for LU and
the triangular solves), square and rectangular, with and without batch
dims; compared under the harness's reduction tolerance (float32/float64
rtol 1e-4, atol 1e-5). Eigenvectors and singular vectors are unique only
up to sign, so those samples normalize each vector (first component
positive, V following U) in the graph, after the kernel, on both sides.
float32 and float64 only (LAPACK, which eager uses, has no other).
"""

from __future__ import annotations

from typing import Callable

import torch

from harness import Kind, OpSpec, Sample

aten = torch.ops.aten
FLOATS = (torch.float32, torch.float64)
_NOT_CORE = "not core ATen: kept whole by to_edge"


def _general(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Random entries plus n on the diagonal (square) or the leading block."""
    x = torch.randn(shape, dtype=torch.float64)
    n = min(shape[-2:])
    x[..., range(n), range(n)] += n
    return x.to(dtype)


def _spd(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    x = torch.randn(shape, dtype=torch.float64)
    return (x @ x.mT + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)).to(dtype)


def _signs_from_first_row(m: torch.Tensor) -> torch.Tensor:
    return torch.where(m[..., :1, :] < 0, -1.0, 1.0).to(m.dtype)


def _eigh(uplo: str) -> Callable:
    def fn(a: torch.Tensor):
        w, v = torch.linalg.eigh(a, UPLO=uplo)
        return w, v * _signs_from_first_row(v)
    return fn


def _svd(full: bool) -> Callable:
    def fn(a: torch.Tensor):
        u, s, vh = torch.linalg.svd(a, full_matrices=full)
        d = _signs_from_first_row(u)
        k = s.shape[-1]
        return u * d, s, vh[..., :k, :] * d[..., :k].mT
    return fn


def _spec(name: str, fn: Callable, samples: Callable, keep) -> OpSpec:
    return OpSpec(name, fn, samples, FLOATS, Kind.REDUCTION, keep=(keep,), notes=_NOT_CORE)


def _cholesky_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (_spd((4, 4), dtype),)),
            Sample("batched", (_spd((2, 3, 5, 5), dtype),)),
            Sample("upper", (_spd((3, 3), dtype),), lambda a: torch.linalg.cholesky_ex(a, upper=True)),
            Sample("empty", (torch.zeros(0, 0, dtype=dtype),)),
            Sample("not_positive_definite", (-_spd((3, 3), dtype),))]


def _lu_samples(dtype: torch.dtype) -> list[Sample]:
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dtype)
    return [Sample("regular", (_general((4, 4), dtype),)),
            Sample("batched", (_general((2, 3, 3), dtype),)),
            Sample("wide", (_general((3, 5), dtype),)),
            Sample("tall", (_general((2, 5, 3), dtype),)),
            Sample("singular", (singular,))]


def _lu_unpack_samples(dtype: torch.dtype) -> list[Sample]:
    out = []
    for case, shape in (("regular", (4, 4)), ("batched", (2, 3, 3)), ("wide", (3, 5)), ("tall", (5, 3))):
        lu, pivots = torch.linalg.lu_factor(torch.randn(shape, dtype=torch.float64))
        out.append(Sample(case, (lu.to(dtype).contiguous(), pivots)))
    return out


def _triangular_samples(dtype: torch.dtype) -> list[Sample]:
    a, b = _general((2, 4, 4), dtype), torch.randn(2, 4, 3, dtype=torch.float64).to(dtype)
    solve = torch.linalg.solve_triangular
    return [Sample("regular", (a, b)),
            Sample("lower", (a, b), lambda x, y: solve(x, y, upper=False)),
            Sample("right", (a, b.mT.contiguous()), lambda x, y: solve(x, y, upper=True, left=False)),
            Sample("unit", (a, b), lambda x, y: solve(x, y, upper=False, unitriangular=True)),
            Sample("broadcast", (a[0], b), lambda x, y: solve(x, y, upper=True))]


def _eigh_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (_spd((4, 4), dtype),)),
            Sample("batched", (torch.randn(2, 3, 5, 5, dtype=torch.float64).to(dtype),)),
            Sample("upper", (torch.randn(4, 4, dtype=torch.float64).to(dtype),), _eigh("U"))]


def _svd_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (torch.randn(4, 4, dtype=torch.float64).to(dtype),)),
            Sample("tall", (torch.randn(2, 5, 3, dtype=torch.float64).to(dtype),)),
            Sample("wide", (torch.randn(3, 6, dtype=torch.float64).to(dtype),)),
            Sample("full", (torch.randn(2, 4, 4, dtype=torch.float64).to(dtype),), _svd(True)),
            Sample("rank_deficient", (torch.ones(3, 3, dtype=dtype),),
                   lambda a: torch.linalg.svdvals(a))]


def _qr_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (torch.randn(4, 4, dtype=torch.float64).to(dtype),)),
            Sample("tall", (torch.randn(2, 5, 3, dtype=torch.float64).to(dtype),)),
            Sample("wide", (torch.randn(3, 5, dtype=torch.float64).to(dtype),))]


def _householder_samples(dtype: torch.dtype) -> list[Sample]:
    out = []
    for case, shape in (("regular", (4, 4)), ("tall", (2, 5, 3))):
        a, tau = torch.geqrf(torch.randn(shape, dtype=torch.float64))
        out.append(Sample(case, (a.to(dtype).contiguous(), tau.to(dtype))))
    a, tau = torch.geqrf(torch.randn(5, 3, dtype=torch.float64))
    out.append(Sample("fewer_reflectors", (a.to(dtype).contiguous(), tau[:2].to(dtype).contiguous())))
    return out


SPECS = [
    _spec("aten::linalg_cholesky_ex.L", torch.linalg.cholesky_ex, _cholesky_samples,
          aten.linalg_cholesky_ex.default),
    _spec("aten::linalg_lu_factor_ex.out", torch.linalg.lu_factor_ex, _lu_samples,
          aten.linalg_lu_factor_ex.default),
    _spec("aten::lu_unpack.out", torch.lu_unpack, _lu_unpack_samples, aten.lu_unpack.default),
    _spec("aten::linalg_solve_triangular.out", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
          _triangular_samples, aten.linalg_solve_triangular.default),
    _spec("aten::_linalg_eigh.eigenvalues", _eigh("L"), _eigh_samples, aten._linalg_eigh.default),
    _spec("aten::_linalg_svd.U", _svd(False), _svd_samples, aten._linalg_svd.default),
    _spec("aten::geqrf.a", torch.geqrf, _qr_samples, aten.geqrf.default),
    _spec("aten::linalg_householder_product.out", torch.linalg.householder_product, _householder_samples,
          aten.linalg_householder_product.default),
]
