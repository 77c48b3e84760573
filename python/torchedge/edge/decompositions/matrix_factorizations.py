"""Dense linear algebra over the portable factorization kernels.

The kernels (kernels/portable/op_linalg_*.cpp, kept whole: rules.KEPT_WHOLE)
are linalg_cholesky_ex, linalg_lu_factor_ex, lu_unpack,
linalg_solve_triangular, _linalg_eigh, _linalg_svd, geqrf and
linalg_householder_product; every other linalg op here is a rule over
them and core ops:

  cholesky, cholesky_solve, cholesky_inverse      Cholesky + two triangular solves
  linalg_lu, linalg_lu_solve, _linalg_solve_ex,   LU with partial pivoting, P from
  linalg_inv_ex, _linalg_det, _linalg_slogdet     lu_unpack, triangular solves,
  triangular_solve                                the determinant from U's diagonal
  linalg_qr, ormqr                                geqrf + householder_product
  linalg_pinv                                     SVD (eigh when hermitian)

Error checks: eager's linalg.inv / cholesky / lu_factor / solve / tensorinv check their
`info` output through `_linalg_check_errors`, which export records as an
effect (a TOKEN input and output the runtime has no use for). The rules for
those composite ops call the `_ex` kernels with check_errors=True
instead, so the program carries no effect and a singular (or, for
Cholesky, non positive-definite) matrix makes the kernel return an
InvalidArgument Error at run time, naming the matrix.
"""

from __future__ import annotations

from typing import Optional

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _mT(x: torch.Tensor) -> torch.Tensor:
    return aten.transpose.int(x, -2, -1)


def _eye_like(x: torch.Tensor, n: int) -> torch.Tensor:
    """The n x n identity in x's dtype."""
    i = aten.arange.start_step(0, n, 1, dtype=torch.int64, device=x.device)
    same = aten.eq.Tensor(aten.unsqueeze.default(i, 1), aten.unsqueeze.default(i, 0))
    return aten._to_copy.default(same, dtype=x.dtype)


def _tri_mask(rows: int, cols: int, device, upper: bool) -> torch.Tensor:
    r = aten.unsqueeze.default(aten.arange.start_step(0, rows, 1, dtype=torch.int64, device=device), 1)
    c = aten.unsqueeze.default(aten.arange.start_step(0, cols, 1, dtype=torch.int64, device=device), 0)
    return aten.ge.Tensor(c, r) if upper else aten.le.Tensor(c, r)


def _solve_tri(a: torch.Tensor, b: torch.Tensor, upper: bool, unit: bool = False) -> torch.Tensor:
    return aten.linalg_solve_triangular.default(a, b, upper=upper, left=True, unitriangular=unit)


# -- Cholesky ---------------------------------------------------------------------------


@decomposes(aten.linalg_cholesky.default)
def linalg_cholesky(a: torch.Tensor, *, upper: bool = False) -> torch.Tensor:
    return aten.linalg_cholesky_ex.default(a, upper=upper, check_errors=True)[0]


@decomposes(aten.cholesky.default)
def cholesky(a: torch.Tensor, upper: bool = False) -> torch.Tensor:
    return aten.linalg_cholesky_ex.default(a, upper=upper, check_errors=True)[0]


@decomposes(aten.cholesky_solve.default)
def cholesky_solve(b: torch.Tensor, factor: torch.Tensor, upper: bool = False) -> torch.Tensor:
    """A X = B with A = L L^T (or U^T U): two triangular solves."""
    lower = _mT(factor) if upper else factor
    y = _solve_tri(lower, b, upper=False)
    return _solve_tri(_mT(lower), y, upper=True)


@decomposes(aten.cholesky_inverse.default)
def cholesky_inverse(factor: torch.Tensor, upper: bool = False) -> torch.Tensor:
    n = factor.shape[-1]
    eye = aten.expand.default(_eye_like(factor, n), list(factor.shape))
    return cholesky_solve(eye, factor, upper)


# -- LU ---------------------------------------------------------------------------------


@decomposes(aten.linalg_lu_factor.default)
def linalg_lu_factor(a: torch.Tensor, *, pivot: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    lu, pivots, _ = aten.linalg_lu_factor_ex.default(a, pivot=pivot, check_errors=True)
    return lu, pivots


@decomposes(aten.linalg_lu.default)
def linalg_lu(a: torch.Tensor, *, pivot: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    lu, pivots, _ = aten.linalg_lu_factor_ex.default(a, pivot=pivot)
    return aten.lu_unpack.default(lu, pivots)


def _lu_solve_left(lu: torch.Tensor, pivots: torch.Tensor, b: torch.Tensor, adjoint: bool) -> torch.Tensor:
    """A X = B (A^T X = B with adjoint) for A = P L U."""
    p = aten.lu_unpack.default(lu, pivots, False, True)[0]
    if not adjoint:  # X = U^-1 L^-1 P^T B
        y = _solve_tri(lu, aten.matmul.default(_mT(p), b), upper=False, unit=True)
        return _solve_tri(lu, y, upper=True)
    lu_t = _mT(lu)  # A^T = U^T L^T P^T: X = P L^-T U^-T B
    y = _solve_tri(lu_t, b, upper=False)
    return aten.matmul.default(p, _solve_tri(lu_t, y, upper=True, unit=True))


@decomposes(aten.linalg_lu_solve.default)
def linalg_lu_solve(lu: torch.Tensor, pivots: torch.Tensor, b: torch.Tensor, *, left: bool = True,
                    adjoint: bool = False) -> torch.Tensor:
    if left:
        return _lu_solve_left(lu, pivots, b, adjoint)
    # X A = B  <=>  A^T X^T = B^T
    return _mT(_lu_solve_left(lu, pivots, _mT(b), not adjoint))


def _is_vector_rhs(a: torch.Tensor, b: torch.Tensor) -> bool:
    """eager's linalg.solve reading of B: a vector (batch) when B is 1-d or
    has one dim less than A with A's batch shape."""
    return b.dim() == 1 or (b.dim() == a.dim() - 1 and list(b.shape) == list(a.shape[:-1]))


@decomposes(aten._linalg_solve_ex.default)
def linalg_solve_ex(a: torch.Tensor, b: torch.Tensor, *, left: bool = True, check_errors: bool = False
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    lu, pivots, info = aten.linalg_lu_factor_ex.default(a, check_errors=check_errors)
    vector = _is_vector_rhs(a, b)
    rhs = aten.unsqueeze.default(b, -1) if vector else b
    x = linalg_lu_solve(lu, pivots, rhs, left=left)
    if vector:  # summing the size-1 dim copies into a row-major vector; a squeeze
        # would be a view of the column-major [n, 1] solution, which views cannot alias
        x = aten.sum.dim_IntList(x, [-1], False)
    return x, lu, pivots, info


@decomposes(aten.linalg_solve.default)
def linalg_solve(a: torch.Tensor, b: torch.Tensor, *, left: bool = True) -> torch.Tensor:
    return linalg_solve_ex(a, b, left=left, check_errors=True)[0]


@decomposes(aten.linalg_inv_ex.default)
def linalg_inv_ex(a: torch.Tensor, *, check_errors: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    lu, pivots, info = aten.linalg_lu_factor_ex.default(a, check_errors=check_errors)
    eye = aten.expand.default(_eye_like(a, a.shape[-1]), list(a.shape))
    return _lu_solve_left(lu, pivots, eye, adjoint=False), info


@decomposes(aten.linalg_inv.default)
def linalg_inv(a: torch.Tensor) -> torch.Tensor:
    return linalg_inv_ex(a, check_errors=True)[0]


@decomposes(aten.linalg_tensorinv.default)
def linalg_tensorinv(a: torch.Tensor, ind: int = 2) -> torch.Tensor:
    """The inverse of `a` read as a (prod(shape[:ind]) x prod(shape[ind:]))
    matrix, shaped shape[ind:] + shape[:ind]; singular fails in the kernel."""
    rows = 1
    for size in a.shape[:ind]:
        rows = rows * size
    matrix = aten.reshape.default(a, [rows, -1])
    inverse = linalg_inv_ex(matrix, check_errors=True)[0]
    return aten.reshape.default(inverse, list(a.shape[ind:]) + list(a.shape[:ind]))


def _lu_diagonal_and_sign(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(U's diagonal, the permutation's sign (+-1 in a's dtype), LU, pivots)."""
    lu, pivots, _ = aten.linalg_lu_factor_ex.default(a)
    n = a.shape[-1]
    diagonal = aten.diagonal.default(lu, 0, -2, -1)
    positions = aten.arange.start_step(1, n + 1, 1, dtype=torch.int32, device=a.device)
    swaps = aten.sum.dim_IntList(aten.ne.Tensor(pivots, positions), [-1], False, dtype=torch.int64)
    odd = aten.remainder.Scalar(swaps, 2)
    sign = aten._to_copy.default(aten.rsub.Scalar(aten.mul.Scalar(odd, 2), 1), dtype=a.dtype)
    return diagonal, sign, lu, pivots


@decomposes(aten._linalg_det.default)
def linalg_det(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    diagonal, sign, lu, pivots = _lu_diagonal_and_sign(a)
    return aten.mul.Tensor(aten.prod.dim_int(diagonal, -1), sign), lu, pivots


@decomposes(aten._linalg_slogdet.default)
def linalg_slogdet(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    diagonal, sign, lu, pivots = _lu_diagonal_and_sign(a)
    sign = aten.mul.Tensor(aten.prod.dim_int(aten.sign.default(diagonal), -1), sign)
    logabsdet = aten.sum.dim_IntList(aten.log.default(aten.abs.default(diagonal)), [-1], False)
    return sign, logabsdet, lu, pivots


@decomposes(aten.triangular_solve.default)
def triangular_solve(b: torch.Tensor, a: torch.Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(op(A)^-1 B, A) with A's and B's batch dims broadcast."""
    batch = list(torch.broadcast_shapes(tuple(b.shape[:-2]), tuple(a.shape[:-2])))
    a = aten.expand.default(a, batch + list(a.shape[-2:]))
    b = aten.expand.default(b, batch + list(b.shape[-2:]))
    op_a = _mT(a) if transpose else a
    solution = _solve_tri(op_a, b, upper=upper != transpose, unit=unitriangular)
    return solution, aten.clone.default(a)


# -- QR ---------------------------------------------------------------------------------


def _full_q(reflectors: torch.Tensor, tau: torch.Tensor) -> torch.Tensor:
    """The m x m Q of reflectors stored in an m x c matrix (c <= m)."""
    m, c = reflectors.shape[-2], reflectors.shape[-1]
    if c < m:
        reflectors = aten.constant_pad_nd.default(reflectors, [0, m - c], 0.0)
    return aten.linalg_householder_product.default(reflectors, tau)


@decomposes(aten.linalg_qr.default)
def linalg_qr(a: torch.Tensor, mode: str = "reduced") -> tuple[torch.Tensor, torch.Tensor]:
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    reflectors, tau = aten.geqrf.default(a)
    rows = m if mode == "complete" else k
    r_full = aten.slice.Tensor(reflectors, -2, 0, rows)
    r = aten.where.self(_tri_mask(rows, n, a.device, upper=True), r_full, aten.zeros_like.default(r_full))
    if mode == "r":
        return aten.zeros.default([0], dtype=a.dtype, device=a.device), r
    if mode == "complete":
        return _full_q(aten.slice.Tensor(reflectors, -1, 0, k), tau), r
    return aten.linalg_householder_product.default(aten.slice.Tensor(reflectors, -1, 0, k), tau), r


@decomposes(aten.ormqr.default)
def ormqr(reflectors: torch.Tensor, tau: torch.Tensor, other: torch.Tensor, left: bool = True,
          transpose: bool = False) -> torch.Tensor:
    """op(Q) C (left) or C op(Q), Q the full orthogonal matrix of geqrf's reflectors."""
    q = _full_q(reflectors, tau)
    if transpose:
        q = _mT(q)
    return aten.matmul.default(q, other) if left else aten.matmul.default(other, q)


# -- pseudo-inverse ---------------------------------------------------------------------


def _threshold(magnitudes: torch.Tensor, atol: Optional[torch.Tensor], rtol: Optional[torch.Tensor],
               default_rtol: float) -> torch.Tensor:
    """max(atol, rtol * max(magnitudes)) per matrix, keepdim over the last dim
    (eager: rtol defaults to eps * max(m, n) when atol is None too, else 0)."""
    largest = aten.amax.default(magnitudes, [-1], True)
    if rtol is None:
        rtol_value: torch.Tensor | float = default_rtol if atol is None else 0.0
        relative = aten.mul.Scalar(largest, rtol_value)
    else:
        relative = aten.mul.Tensor(largest, aten.unsqueeze.default(rtol, -1))
    if atol is None:
        return relative
    return aten.maximum.default(aten.unsqueeze.default(atol, -1), relative)


@decomposes(aten.linalg_pinv.atol_rtol_tensor)
def linalg_pinv(a: torch.Tensor, *, atol: Optional[torch.Tensor] = None, rtol: Optional[torch.Tensor] = None,
                hermitian: bool = False) -> torch.Tensor:
    m, n = a.shape[-2], a.shape[-1]
    if m == 0 or n == 0:
        return aten.zeros.default(list(a.shape[:-2]) + [n, m], dtype=a.dtype, device=a.device)
    default_rtol = torch.finfo(a.dtype).eps * max(m, n)
    if hermitian:
        w, v = aten._linalg_eigh.default(a, "L", True)
        magnitude = aten.abs.default(w)
        keep = aten.gt.Tensor(magnitude, _threshold(magnitude, atol, rtol, default_rtol))
        inverse = aten.where.self(keep, aten.reciprocal.default(w), aten.zeros_like.default(w))
        return aten.matmul.default(aten.mul.Tensor(v, aten.unsqueeze.default(inverse, -2)), _mT(v))
    u, s, vh = aten._linalg_svd.default(a, False, True)
    keep = aten.gt.Tensor(s, _threshold(s, atol, rtol, default_rtol))
    inverse = aten.where.self(keep, aten.reciprocal.default(s), aten.zeros_like.default(s))
    return aten.matmul.default(aten.mul.Tensor(_mT(vh), aten.unsqueeze.default(inverse, -2)), _mT(u))


# -- shapes torch does not know ---------------------------------------------------------

# torch 2.13 has no Meta (fake-tensor) kernel for geqrf, so export with a
# dynamic dim (and the linalg_qr / ormqr rules above) could not trace it.
# This one gives eager's result layout: `a` column-major, tau [..., min(m, n)].
_META_LIBRARY = torch.library.Library("aten", "IMPL")


def _geqrf_meta(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    batch, m, n = list(a.shape[:-2]), a.shape[-2], a.shape[-1]
    reflectors = a.new_empty(batch + [n, m]).transpose(-2, -1)
    return reflectors, a.new_empty(batch + [torch.sym_min(m, n)])


if not torch._C._dispatch_has_kernel_for_dispatch_key("aten::geqrf", "Meta"):
    _META_LIBRARY.impl("geqrf", _geqrf_meta, "Meta")


# -- matrix exponential -----------------------------------------------------------------

# Higham (2005): the [13/13] Pade approximant of exp, accurate to double
# precision for ||A||_1 <= theta_13 after scaling A by 2^-s.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152
_MAX_SQUARINGS = 32  # ||A||_1 up to theta_13 * 2^32; the squarings past s are skipped by where()


@decomposes(aten.linalg_matrix_exp.default)
def linalg_matrix_exp(a: torch.Tensor) -> torch.Tensor:
    """exp(A) by scaling and squaring: A / 2^s with s = ceil(log2(||A||_1 /
    theta_13)) (per matrix, computed in the graph), the Pade approximant
    solved through LU, then _MAX_SQUARINGS conditional squarings of which
    the first s apply."""
    n = a.shape[-1]
    norm = aten.amax.default(aten.sum.dim_IntList(aten.abs.default(a), [-2], False), [-1], True)  # [..., 1]
    s = aten.clamp.default(aten.ceil.default(aten.log2.default(aten.div.Scalar(norm, _THETA13))), 0,
                           _MAX_SQUARINGS)
    s = aten.where.self(aten.isnan.default(s), aten.zeros_like.default(s), s)
    scaled = aten.div.Tensor(a, aten.unsqueeze.default(aten.pow.Scalar(2.0, s), -1))
    eye = aten.expand.default(_eye_like(a, n), list(a.shape))
    a2 = aten.matmul.default(scaled, scaled)
    a4 = aten.matmul.default(a2, a2)
    a6 = aten.matmul.default(a4, a2)
    b = _PADE13

    def combo(c6: float, c4: float, c2: float, c0: float = 0.0) -> torch.Tensor:
        total = aten.add.Tensor(aten.add.Tensor(aten.mul.Scalar(a6, c6), aten.mul.Scalar(a4, c4)),
                                aten.mul.Scalar(a2, c2))
        return aten.add.Tensor(total, aten.mul.Scalar(eye, c0)) if c0 else total

    u = aten.matmul.default(scaled, aten.add.Tensor(aten.matmul.default(a6, combo(b[13], b[11], b[9])),
                                                    combo(b[7], b[5], b[3], b[1])))
    v = aten.add.Tensor(aten.matmul.default(a6, combo(b[12], b[10], b[8])), combo(b[6], b[4], b[2], b[0]))
    result = linalg_solve_ex(aten.sub.Tensor(v, u), aten.add.Tensor(v, u))[0]
    for step in range(_MAX_SQUARINGS):
        apply = aten.unsqueeze.default(aten.gt.Scalar(s, step), -1)
        result = aten.where.self(apply, aten.matmul.default(result, result), result)
    return result
