// See the header for the contract; comments here say why a step is as it is.
#include "kernels/portable/support/dense_linalg.h"

#include <cmath>

namespace torchedge {
namespace linalg {
namespace {

constexpr int kMaxSweeps = 100;

// The Jacobi rotation (c, s) that zeroes the off-diagonal of the symmetric
// 2 x 2 [[app, apq], [apq, aqq]] (Golub & Van Loan's sym.schur2).
void jacobi_rotation(double app, double aqq, double apq, double* c, double* s) {
  const double tau = (aqq - app) / (2 * apq);
  const double t = (tau >= 0 ? 1.0 : -1.0) / (std::fabs(tau) + std::sqrt(1 + tau * tau));
  *c = 1 / std::sqrt(1 + t * t);
  *s = t * *c;
}

void swap_columns(double* m, int64_t rows, int64_t cols, int64_t i, int64_t j) {
  for (int64_t r = 0; r < rows; ++r) {
    const double x = m[r * cols + i];
    m[r * cols + i] = m[r * cols + j];
    m[r * cols + j] = x;
  }
}

// Sorts `values[count]` (descending or ascending) and permutes alongside the
// columns of `a` (a_rows x count) and, if given, of `b` (b_rows x count)
// (selection sort: count is small).
void sort_with_columns(double* values, int64_t count, bool descending, double* a, int64_t a_rows,
                       double* b = nullptr, int64_t b_rows = 0) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t best = i;
    for (int64_t j = i + 1; j < count; ++j) {
      if (descending ? values[j] > values[best] : values[j] < values[best]) best = j;
    }
    if (best == i) continue;
    const double v = values[i];
    values[i] = values[best];
    values[best] = v;
    swap_columns(a, a_rows, count, i, best);
    if (b != nullptr) swap_columns(b, b_rows, count, i, best);
  }
}

// Columns [from, cols) of the rows x cols `q` (columns before `from`
// orthonormal) filled with unit vectors orthogonalized against all earlier
// columns (twice, for accuracy), skipping candidates that are dependent.
void complete_orthonormal(double* q, int64_t rows, int64_t cols, int64_t from) {
  int64_t candidate = 0;
  for (int64_t c = from; c < cols && candidate < rows; ++candidate) {
    for (int64_t r = 0; r < rows; ++r) q[r * cols + c] = r == candidate ? 1 : 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t k = 0; k < c; ++k) {
        double dot = 0;
        for (int64_t r = 0; r < rows; ++r) dot += q[r * cols + k] * q[r * cols + c];
        for (int64_t r = 0; r < rows; ++r) q[r * cols + c] -= dot * q[r * cols + k];
      }
    }
    double norm = 0;
    for (int64_t r = 0; r < rows; ++r) norm += q[r * cols + c] * q[r * cols + c];
    norm = std::sqrt(norm);
    if (norm < 1e-8) continue;  // dependent on the columns so far: next unit vector
    for (int64_t r = 0; r < rows; ++r) q[r * cols + c] /= norm;
    ++c;
  }
}

}  // namespace

int64_t cholesky_lower(double* a, int64_t n) {
  int64_t info = 0;
  for (int64_t j = 0; j < n && info == 0; ++j) {
    double d = a[j * n + j];
    for (int64_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) {  // not positive definite (or NaN): stop, as LAPACK
      info = j + 1;
      break;
    }
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double x = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) x -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = x / d;
    }
  }
  for (int64_t i = 0; i < n; ++i) {  // eager returns the lower triangle only
    for (int64_t k = i + 1; k < n; ++k) a[i * n + k] = 0;
  }
  return info;
}

int64_t lu_factor(double* a, int64_t m, int64_t n, int32_t* pivots) {
  const int64_t k = m < n ? m : n;
  int64_t info = 0;
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;  // the first row of largest |a(i, j)|, as LAPACK's idamax
    for (int64_t i = j + 1; i < m; ++i) {
      if (std::fabs(a[i * n + j]) > std::fabs(a[p * n + j])) p = i;
    }
    pivots[j] = static_cast<int32_t>(p + 1);
    if (p != j) {
      for (int64_t c = 0; c < n; ++c) {
        const double x = a[j * n + c];
        a[j * n + c] = a[p * n + c];
        a[p * n + c] = x;
      }
    }
    const double pivot = a[j * n + j];
    if (pivot == 0) {
      if (info == 0) info = j + 1;
      continue;
    }
    for (int64_t i = j + 1; i < m; ++i) {
      const double l = a[i * n + j] / pivot;
      a[i * n + j] = l;
      for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= l * a[j * n + c];
    }
  }
  return info;
}

void solve_triangular(const double* a, int64_t n, bool upper, bool unit, bool transpose, double* b,
                      int64_t k) {
  auto at = [&](int64_t i, int64_t j) { return transpose ? a[j * n + i] : a[i * n + j]; };
  const bool backward = upper != transpose;  // op(A) is upper triangular
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = backward ? n - 1 - step : step;
    for (int64_t c = 0; c < k; ++c) {
      double x = b[i * k + c];
      if (backward) {
        for (int64_t j = i + 1; j < n; ++j) x -= at(i, j) * b[j * k + c];
      } else {
        for (int64_t j = 0; j < i; ++j) x -= at(i, j) * b[j * k + c];
      }
      b[i * k + c] = unit ? x : x / at(i, i);
    }
  }
}

void geqrf(double* a, int64_t m, int64_t n, double* tau) {
  const int64_t k = m < n ? m : n;
  for (int64_t j = 0; j < k; ++j) {
    const double alpha = a[j * n + j];
    double xnorm = 0;
    for (int64_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, a[i * n + j]);
    if (xnorm == 0) {  // already upper triangular here: H = I
      tau[j] = 0;
      continue;
    }
    // LAPACK's dlarfg: beta = -sign(alpha) ||(alpha, x)||, v = x / (alpha - beta).
    const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    tau[j] = (beta - alpha) / beta;
    const double scale = 1 / (alpha - beta);
    for (int64_t i = j + 1; i < m; ++i) a[i * n + j] *= scale;
    a[j * n + j] = beta;
    for (int64_t c = j + 1; c < n; ++c) {  // a[j:, c] -= tau v (v^T a[j:, c])
      double w = a[j * n + c];
      for (int64_t i = j + 1; i < m; ++i) w += a[i * n + j] * a[i * n + c];
      w *= tau[j];
      a[j * n + c] -= w;
      for (int64_t i = j + 1; i < m; ++i) a[i * n + c] -= a[i * n + j] * w;
    }
  }
}

void householder_product(const double* a, int64_t m, int64_t n, const double* tau, int64_t k,
                         double* q) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) q[i * n + j] = i == j ? 1 : 0;
  }
  for (int64_t h = k - 1; h >= 0; --h) {  // q = H_h q, the last reflector first
    for (int64_t c = 0; c < n; ++c) {
      double w = q[h * n + c];
      for (int64_t i = h + 1; i < m; ++i) w += a[i * n + h] * q[i * n + c];
      w *= tau[h];
      q[h * n + c] -= w;
      for (int64_t i = h + 1; i < m; ++i) q[i * n + c] -= a[i * n + h] * w;
    }
  }
}

void eigh(double* a, int64_t n, double* w, double* v) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) v[i * n + j] = i == j ? 1 : 0;
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double off = 0, diagonal = 0;
    for (int64_t p = 0; p < n; ++p) {
      diagonal += a[p * n + p] * a[p * n + p];
      for (int64_t q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    }
    if (!(off > 1e-32 * diagonal)) break;  // converged (or NaN: stop)
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        if (a[p * n + q] == 0) continue;
        double c, s;
        jacobi_rotation(a[p * n + p], a[q * n + q], a[p * n + q], &c, &s);
        for (int64_t r = 0; r < n; ++r) {  // A J, V J
          const double ap = a[r * n + p], aq = a[r * n + q];
          a[r * n + p] = c * ap - s * aq;
          a[r * n + q] = s * ap + c * aq;
          const double vp = v[r * n + p], vq = v[r * n + q];
          v[r * n + p] = c * vp - s * vq;
          v[r * n + q] = s * vp + c * vq;
        }
        for (int64_t r = 0; r < n; ++r) {  // J^T (A J)
          const double ap = a[p * n + r], aq = a[q * n + r];
          a[p * n + r] = c * ap - s * aq;
          a[q * n + r] = s * ap + c * aq;
        }
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) w[i] = a[i * n + i];
  sort_with_columns(w, n, /*descending=*/false, v, n);
}

void svd(double* a, int64_t m, int64_t n, bool full, double* u, double* s, double* vh, double* work) {
  // Work on W = A (or A^T when m < n) with rows >= cols, so that
  // W = Q diag(s) V^T; for m < n, A = V diag(s) Q^T swaps the roles.
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = tall ? n : m;
  double* wm = work;                      // rows x cols
  double* v = wm + rows * cols;           // cols x cols
  double* q = v + cols * cols;            // rows x rows
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) wm[i * cols + j] = tall ? a[i * n + j] : a[j * n + i];
  }
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < cols; ++j) v[i * cols + j] = i == j ? 1 : 0;
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < cols; ++p) {
      for (int64_t r = p + 1; r < cols; ++r) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < rows; ++i) {
          alpha += wm[i * cols + p] * wm[i * cols + p];
          beta += wm[i * cols + r] * wm[i * cols + r];
          gamma += wm[i * cols + p] * wm[i * cols + r];
        }
        if (!(std::fabs(gamma) > 1e-15 * std::sqrt(alpha * beta))) continue;
        rotated = true;
        double c, sn;
        jacobi_rotation(alpha, beta, gamma, &c, &sn);
        for (int64_t i = 0; i < rows; ++i) {
          const double x = wm[i * cols + p], y = wm[i * cols + r];
          wm[i * cols + p] = c * x - sn * y;
          wm[i * cols + r] = sn * x + c * y;
        }
        for (int64_t i = 0; i < cols; ++i) {
          const double x = v[i * cols + p], y = v[i * cols + r];
          v[i * cols + p] = c * x - sn * y;
          v[i * cols + r] = sn * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  for (int64_t j = 0; j < cols; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < rows; ++i) norm = std::hypot(norm, wm[i * cols + j]);
    s[j] = norm;
  }
  sort_with_columns(s, cols, /*descending=*/true, wm, rows, v, cols);
  // Q's leading columns: W's normalized (those of non-zero s), then completed.
  int64_t nonzero = 0;
  while (nonzero < cols && s[nonzero] > 1e-300) ++nonzero;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < rows; ++j) q[i * rows + j] = j < nonzero ? wm[i * cols + j] / s[j] : 0;
  }
  complete_orthonormal(q, rows, rows, nonzero);
  const int64_t k = cols;  // min(m, n)
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ucols; ++j) u[i * ucols + j] = tall ? q[i * rows + j] : v[i * cols + j];
  }
  for (int64_t i = 0; i < vrows; ++i) {
    for (int64_t j = 0; j < n; ++j) vh[i * n + j] = tall ? v[j * cols + i] : q[j * rows + i];
  }
}

}  // namespace linalg
}  // namespace torchedge
