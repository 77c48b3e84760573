"""Decomposition-test cases (tests/opinfo/test_edge_decompositions.py) for
the special functions and the dense linear algebra that to_edge keeps
whole (rules.KEPT_WHOLE) or rewrites (decompositions/
matrix_factorizations.py): (name, fn, make(rows), op). The first dim of
the first input is the dynamic one: a batch of matrices for the linear
algebra. Eigenvectors and singular vectors are normalized in the graph
(first component positive, V following U): they are unique only up to sign.
"""

from __future__ import annotations

import torch

aten = torch.ops.aten
S = torch.special


def _uniform(rows: int, cols: int, low: float, high: float) -> torch.Tensor:
    return torch.rand(rows, cols) * (high - low) + low


def _unary(name: str, low: float, high: float) -> tuple:
    return (name, getattr(S, name), lambda n: (_uniform(n, 6, low, high),),
            getattr(aten, f"special_{name}").default)


_UNARY_DOMAINS = {
    "erfcx": (-4, 20), "ndtri": (0.001, 0.999), "log_ndtr": (-20, 6), "i0e": (-30, 30), "i1": (-20, 20),
    "i1e": (-30, 30), "airy_ai": (-10, 8), "bessel_j0": (-20, 20), "bessel_j1": (-20, 20),
    "bessel_y0": (0.1, 30), "bessel_y1": (0.1, 30), "modified_bessel_i0": (-20, 20),
    "modified_bessel_i1": (-20, 20), "modified_bessel_k0": (0.01, 30), "modified_bessel_k1": (0.01, 30),
    "scaled_modified_bessel_k0": (0.01, 100), "scaled_modified_bessel_k1": (0.01, 100),
    "spherical_bessel_j0": (-30, 30),
}
_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p")

SPECIAL_CASES = [_unary(name, *domain) for name, domain in _UNARY_DOMAINS.items()] + [
    (name, getattr(S, name), lambda n: (_uniform(n, 5, -1, 1), torch.randint(0, 8, (n, 5)).float()),
     getattr(aten, f"special_{name}").default) for name in _POLYNOMIALS] + [
    ("erfinv", torch.erfinv, lambda n: (_uniform(n, 6, -0.999, 0.999),), aten.erfinv.default),
    ("i0", torch.i0, lambda n: (_uniform(n, 6, -20, 20),), aten.i0.default),
    ("polygamma", lambda x: torch.polygamma(2, x), lambda n: (_uniform(n, 6, 0.2, 9),), aten.polygamma.default),
    ("igamma", torch.igamma, lambda n: (_uniform(n, 4, 0.1, 10), _uniform(n, 4, 0, 15)), aten.igamma.default),
    ("igammac", torch.igammac, lambda n: (_uniform(n, 4, 0.1, 10), _uniform(n, 4, 0, 15)),
     aten.igammac.default),
    ("zeta", S.zeta, lambda n: (_uniform(n, 4, 1.5, 8), _uniform(n, 4, 0.5, 6)), aten.special_zeta.default),
]


def _spd(n: int, size: int = 4) -> torch.Tensor:
    x = torch.randn(n, size, size)
    return x @ x.mT + size * torch.eye(size)


def _general(n: int, rows: int = 4, cols: int = 4) -> torch.Tensor:
    x = torch.randn(n, rows, cols)
    k = min(rows, cols)
    x[:, range(k), range(k)] += 4
    return x


def _first_positive(m: torch.Tensor) -> torch.Tensor:
    return torch.where(m[..., :1, :] < 0, -1.0, 1.0)


def _eigh(a):
    w, v = torch.linalg.eigh(a)
    return w, v * _first_positive(v)


def _svd(a):
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    d = _first_positive(u)
    return u * d, s, vh * d.mT


def _lu_inputs(n: int) -> tuple:
    lu, pivots = torch.linalg.lu_factor(_general(n))
    return lu.contiguous(), pivots


def _qr_inputs(n: int) -> tuple:
    a, tau = torch.geqrf(torch.randn(n, 5, 3))
    return a.contiguous(), tau


LINALG_CASES = [
    ("linalg_cholesky_ex", lambda a: torch.linalg.cholesky_ex(a, upper=True), lambda n: (_spd(n),),
     aten.linalg_cholesky_ex.default),
    ("linalg_cholesky", torch.linalg.cholesky, lambda n: (_spd(n),), aten.linalg_cholesky.default),
    ("cholesky", lambda a: torch.cholesky(a, upper=True), lambda n: (_spd(n),), aten.cholesky.default),
    ("cholesky_solve", lambda b, l: torch.cholesky_solve(b, l),
     lambda n: (torch.randn(n, 4, 2), torch.linalg.cholesky(_spd(n)).contiguous()), aten.cholesky_solve.default),
    ("cholesky_inverse", lambda l: torch.cholesky_inverse(l, upper=True),
     lambda n: (torch.linalg.cholesky(_spd(n), upper=True).contiguous(),), aten.cholesky_inverse.default),
    ("linalg_lu_factor_ex", torch.linalg.lu_factor_ex, lambda n: (_general(n, 3, 5),),
     aten.linalg_lu_factor_ex.default),
    ("linalg_lu_factor", torch.linalg.lu_factor, lambda n: (_general(n),), aten.linalg_lu_factor.default),
    ("linalg_lu", torch.linalg.lu, lambda n: (_general(n, 5, 3),), aten.linalg_lu.default),
    ("lu_unpack", torch.lu_unpack, _lu_inputs, aten.lu_unpack.default),
    ("linalg_lu_solve", lambda lu, p, b: torch.linalg.lu_solve(lu, p, b, adjoint=True),
     lambda n: _lu_inputs(n) + (torch.randn(n, 4, 3),), aten.linalg_lu_solve.default),
    ("linalg_solve_triangular", lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False),
     lambda n: (_general(n), torch.randn(n, 2, 4)), aten.linalg_solve_triangular.default),
    ("triangular_solve", lambda b, a: torch.triangular_solve(b, a, transpose=True),
     lambda n: (torch.randn(n, 4, 2), _general(n)), aten.triangular_solve.default),
    ("linalg_solve", torch.linalg.solve, lambda n: (_general(n), torch.randn(n, 4)), aten.linalg_solve.default),
    ("linalg_solve_ex", lambda a, b: torch.linalg.solve_ex(a, b, left=False),
     lambda n: (_general(n), torch.randn(n, 3, 4)), aten._linalg_solve_ex.default),
    ("linalg_inv", torch.linalg.inv, lambda n: (_general(n),), aten.linalg_inv.default),
    ("linalg_inv_ex", torch.linalg.inv_ex, lambda n: (_general(n),), aten.linalg_inv_ex.default),
    ("linalg_det", torch.linalg.det, lambda n: (torch.randn(n, 4, 4),), aten._linalg_det.default),
    ("linalg_slogdet", torch.linalg.slogdet, lambda n: (torch.randn(n, 4, 4),), aten._linalg_slogdet.default),
    ("linalg_eigh", _eigh, lambda n: (torch.randn(n, 4, 4),), aten._linalg_eigh.default),
    ("linalg_svd", _svd, lambda n: (torch.randn(n, 5, 3),), aten._linalg_svd.default),
    ("geqrf", torch.geqrf, lambda n: (torch.randn(n, 5, 3),), aten.geqrf.default),
    ("householder_product", torch.linalg.householder_product, _qr_inputs,
     aten.linalg_householder_product.default),
    ("linalg_qr", lambda a: torch.linalg.qr(a, mode="complete"), lambda n: (torch.randn(n, 5, 3),),
     aten.linalg_qr.default),
    ("ormqr", lambda a, t, c: torch.ormqr(a, t, c, left=False, transpose=True),
     lambda n: _qr_inputs(n) + (torch.randn(n, 2, 5),), aten.ormqr.default),
    ("linalg_pinv", torch.linalg.pinv, lambda n: (torch.randn(n, 4, 3),), aten.linalg_pinv.atol_rtol_tensor),
]

SPECIAL_CASES += [
    ("gcd", torch.gcd, lambda n: (torch.randint(-30, 30, (n, 5)), torch.randint(-30, 30, (n, 5))),
     aten.gcd.default),
    ("lcm", torch.lcm, lambda n: (torch.randint(-30, 30, (n, 5)), torch.randint(-30, 30, (n, 5))),
     aten.lcm.default),
    ("bitwise_left_shift", torch.bitwise_left_shift,
     lambda n: (torch.randint(-99, 99, (n, 5)), torch.randint(-2, 66, (n, 5))), aten.bitwise_left_shift.Tensor),
    ("bitwise_right_shift", torch.bitwise_right_shift,
     lambda n: (torch.randint(-99, 99, (n, 5)), torch.randint(-2, 66, (n, 5))), aten.bitwise_right_shift.Tensor),
    ("nextafter", torch.nextafter, lambda n: (torch.randn(n, 5), torch.randn(n, 5)), aten.nextafter.default),
    ("frexp", torch.frexp, lambda n: (torch.randn(n, 5) * 1e3,), aten.frexp.Tensor),
]


def _segments(n: int) -> tuple:
    return torch.randn(n, 3), torch.tensor([1, 0, n - 1])


BINNING_CASES = [
    ("diagonal_scatter", lambda x, s: torch.diagonal_scatter(x, s, 1, 1, 2),
     lambda n: (torch.randn(n, 4, 5), torch.randn(n, 4)), aten.diagonal_scatter.default),
    ("as_strided_scatter", lambda x, s: torch.as_strided_scatter(x, s, (2, 2), (1, 3), 1),
     lambda n: (torch.randn(n, 6), torch.randn(2, 2)), aten.as_strided_scatter.default),
    ("histc", lambda x: torch.histc(x, 7), lambda n: (torch.randn(n, 6),), aten.histc.default),
    ("histogram", lambda x, w: torch.histogram(x, 5, range=(-2.0, 2.0), weight=w, density=True),
     lambda n: (torch.randn(n, 6), torch.rand(n, 6)), aten.histogram.bin_ct),
    ("segment_reduce_max", lambda d, l: torch.segment_reduce(d, "max", lengths=l, initial=0.5),
     _segments, aten.segment_reduce.default),
    ("segment_reduce_mean", lambda d, l: torch.segment_reduce(d, "mean", lengths=l), _segments,
     aten.segment_reduce.default),
]

BINNING_CASES.append(
    ("trilinear", lambda a, b, w: torch.nn.functional.bilinear(a, b, w),
     lambda n: (torch.randn(n, 3), torch.randn(n, 4), torch.randn(5, 3, 4)), aten._trilinear.default))
BINNING_CASES.append(
    ("grid_sampler_3d", lambda x, g: torch.nn.functional.grid_sample(x, g, padding_mode="border", align_corners=True),
     lambda n: (torch.randn(n, 2, 3, 4, 5), torch.rand(n, 2, 3, 4, 3) * 2.4 - 1.2), aten.grid_sampler_3d.default))
BINNING_CASES.append(
    ("embedding_bag", lambda i, w: torch.nn.functional.embedding_bag(i, w, torch.tensor([0, 2, 2]), mode="max"),
     lambda n: (torch.randint(0, 7, (n,)), torch.randn(7, 3)), aten._embedding_bag_forward_only.default))
BINNING_CASES.append(
    ("embedding_bag_sum", lambda i, w, p: torch.nn.functional.embedding_bag(
        i, w, torch.tensor([0, 1]), mode="sum", per_sample_weights=p, padding_idx=2),
     lambda n: (torch.randint(0, 7, (n,)), torch.randn(7, 3), torch.rand(n)), aten._embedding_bag_forward_only.default))
BINNING_CASES.append(
    ("upsample_bilinear2d_aa", lambda x: torch.nn.functional.interpolate(x, size=(3, 7), mode="bilinear",
                                                                        antialias=True),
     lambda n: (torch.randn(n, 2, 9, 12),), aten._upsample_bilinear2d_aa.default))
LINALG_CASES.append(
    ("matrix_exp", torch.linalg.matrix_exp,
     lambda n: (torch.randn(n, 4, 4) * torch.tensor([0.1, 1.0, 3.0, 8.0]).repeat(n)[:n].view(n, 1, 1),),
     aten.linalg_matrix_exp.default))
BINNING_CASES.append(
    ("mode", lambda x: torch.mode(x, 1).values, lambda n: (torch.randint(0, 4, (n, 7)).float(),), aten.mode.default))
LINALG_CASES.append(
    ("tensorinv", lambda a: torch.linalg.tensorinv(a[0].reshape(2, 2, 4), ind=2),
     lambda n: (torch.randn(n, 4, 4) + 4 * torch.eye(4),), aten.linalg_tensorinv.default))
