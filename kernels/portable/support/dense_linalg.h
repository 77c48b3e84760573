// torchedge/kernels/portable/support/dense_linalg.h
//
// Small dense factorizations on row-major double matrices (a[i * cols + j]),
// one matrix at a time, for the linear-algebra kernels. The algorithms are
// the numerically stable textbook ones, chosen to return what LAPACK (and
// so eager PyTorch) returns where the answer is unique:
//   cholesky          column by column (dpotrf2's result)
//   lu_factor         partial pivoting, the first largest |pivot| (dgetrf)
//   geqrf / orgqr     Householder reflections with LAPACK's sign choice
//                     (beta = -sign(alpha) ||x||), so Q and R match
//   eigh              cyclic Jacobi rotations; ascending eigenvalues
//   svd               one-sided (Hestenes) Jacobi; descending singular values
// Eigenvectors and singular vectors are unique only up to sign (and within
// repeated values); callers compare them as such.
// `work` arguments are caller-provided scratch of the stated size.
#pragma once

#include <cstdint>

namespace torchedge {
namespace linalg {

/// Lower Cholesky factor of the n x n matrix whose lower triangle is `a`,
/// in place (upper triangle set to 0). Returns 0, or k + 1 when the leading
/// minor of order k + 1 is not positive definite (as LAPACK's info).
int64_t cholesky_lower(double* a, int64_t n);

/// P A = L U of the m x n matrix `a` in place (L unit lower below the
/// diagonal, U on and above); pivots[i] is the 1-based row swapped with row i.
/// Returns 0, or i + 1 for the first exactly zero pivot U(i, i).
int64_t lu_factor(double* a, int64_t m, int64_t n, int32_t* pivots);

/// Solves op(A) X = B in place of B (n x k), A n x n triangular (`upper`
/// reads the upper triangle, else the lower; `unit` takes its diagonal as
/// ones; `transpose` uses A^T).
void solve_triangular(const double* a, int64_t n, bool upper, bool unit, bool transpose, double* b,
                      int64_t k);

/// Householder QR of the m x n `a` in place (R on and above the diagonal,
/// the reflectors' tails below it), tau[min(m, n)].
void geqrf(double* a, int64_t m, int64_t n, double* tau);

/// q (m x n) = the first n columns of H_0 ... H_{k-1}, the reflectors stored
/// in `a` (m x n, below the diagonal) with tau[k], k <= n <= m.
void householder_product(const double* a, int64_t m, int64_t n, const double* tau, int64_t k,
                         double* q);

/// Eigen-decomposition of the symmetric n x n `a` (destroyed): w[n]
/// ascending, v (n x n) with the eigenvectors as columns.
void eigh(double* a, int64_t n, double* w, double* v);

/// A = U diag(s) Vh for the m x n `a` (destroyed). u is m x ucols
/// (ucols = m when full, else min(m, n)), vh is vrows x n (n when full,
/// else min(m, n)); s[min(m, n)] descending. `work` holds
/// svd_work_size(m, n) doubles.
inline int64_t svd_work_size(int64_t m, int64_t n) {
  const int64_t big = m > n ? m : n;
  return 3 * big * big + big;
}
void svd(double* a, int64_t m, int64_t n, bool full, double* u, double* s, double* vh, double* work);

}  // namespace linalg
}  // namespace torchedge
