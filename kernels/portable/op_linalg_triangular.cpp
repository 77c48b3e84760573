// The triangular factorizations and solves (support/dense_linalg.h), batched
// over leading dims, float32 and float64 (computed in double):
//
// aten::linalg_cholesky_ex.L(Tensor self, *, bool upper=False, bool check_errors=False,
//     Tensor(a!) L, Tensor(b!) info)
//   L lower (upper: U = L^T, from self's upper triangle); info (int32) 0 or
//   the order of the first minor that is not positive definite; with
//   check_errors a non-zero info fails the call (InvalidArgument).
// aten::linalg_lu_factor_ex.out(Tensor A, *, bool pivot=True, bool check_errors=False,
//     Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info)
//   partial pivoting (pivot=False fails, as eager on CPU); pivots 1-based int32.
// aten::lu_unpack.out(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True,
//     bool unpack_pivots=True, *, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)
//   A = P L U; outputs not unpacked are empty, as eager.
// aten::linalg_solve_triangular.out(Tensor self, Tensor B, *, bool upper, bool left=True,
//     bool unitriangular=False, Tensor(a!) out)
//   A X = B (left) or X A = B; batch dims broadcast.
// Any dense dim order for every tensor (eager's results are column-major).
#include <algorithm>

#include "kernels/portable/support/dense_linalg.h"
#include "kernels/portable/support/matrix_batch.h"

namespace torchedge {
namespace native {
namespace {

void transpose_square(double* a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) std::swap(a[i * n + j], a[j * n + i]);
  }
}

template <typename T>
Error cholesky(KernelContext& ctx, const Tensor& self, bool upper, bool check, Tensor& l, Tensor& info) {
  const BatchShape batch = batch_shape_of(self, 2);
  const int64_t n = self.size(-1);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, n * n, "linalg_cholesky_ex.L"));
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(self, matrix_at(self, batch_offset(self, 2, batch, b)), a);
    if (upper) transpose_square(a, n);  // U^T U = A: the lower factor of A's upper triangle
    const int32_t code = static_cast<int32_t>(linalg::cholesky_lower(a, n));
    if (upper) transpose_square(a, n);
    store_matrix<T>(l, matrix_at(l, batch_offset(l, 2, batch, b)), a, n);
    store_matrix<int32_t>(info, {batch_offset(info, 0, batch, b), 1, 1, 0, 0}, &code, 1);
    TE_CHECK_OR_RETURN(!check || code == 0, Error::InvalidArgument,
                       "linalg_cholesky_ex.L: the leading minor of order %d of matrix %lld is not "
                       "positive-definite", code, static_cast<long long>(b));
  }
  return Error::Ok;
}

template <typename T>
Error lu_factor(KernelContext& ctx, const Tensor& a_in, bool check, Tensor& lu, Tensor& pivots,
                Tensor& info) {
  const BatchShape batch = batch_shape_of(a_in, 2);
  const int64_t m = a_in.size(-2), n = a_in.size(-1), k = std::min(m, n);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, m * n, "linalg_lu_factor_ex.out"));
  int32_t* piv = static_cast<int32_t*>(ctx.allocate_temp(sizeof(int32_t) * (k > 0 ? k : 1)));
  TE_CHECK_OR_RETURN(piv != nullptr, Error::MemoryAllocationFailed,
                     "linalg_lu_factor_ex.out: no temp memory for the pivots");
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(a_in, matrix_at(a_in, batch_offset(a_in, 2, batch, b)), a);
    const int32_t code = static_cast<int32_t>(linalg::lu_factor(a, m, n, piv));
    store_matrix<T>(lu, matrix_at(lu, batch_offset(lu, 2, batch, b)), a, n);
    store_matrix<int32_t>(pivots, vector_at(pivots, batch_offset(pivots, 1, batch, b)), piv, 1);
    store_matrix<int32_t>(info, {batch_offset(info, 0, batch, b), 1, 1, 0, 0}, &code, 1);
    TE_CHECK_OR_RETURN(!check || code == 0, Error::InvalidArgument,
                       "linalg_lu_factor_ex.out: U(%d, %d) of matrix %lld is zero (singular)",
                       code - 1, code - 1, static_cast<long long>(b));
  }
  return Error::Ok;
}

// The permutation matrix of 1-based row swaps: P[perm[i]][i] = 1 where
// perm is the identity with row i swapped with pivots[i] - 1 in turn.
template <typename T>
Error lu_unpack(KernelContext& ctx, const Tensor& lu_in, const Tensor& pivots, bool data, bool perm_too,
                Tensor& p, Tensor& l, Tensor& u) {
  const BatchShape batch = batch_shape_of(lu_in, 2);
  const int64_t m = lu_in.size(-2), n = lu_in.size(-1), k = std::min(m, n);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, m * n + m * m + m + k, "lu_unpack.out"));
  double* pm = a + m * n;
  double* perm = pm + m * m;
  double* piv = perm + m;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(lu_in, matrix_at(lu_in, batch_offset(lu_in, 2, batch, b)), a);
    if (data) {
      MatrixAt lm = matrix_at(l, batch_offset(l, 2, batch, b));
      MatrixAt um = matrix_at(u, batch_offset(u, 2, batch, b));
      T* ld = l.mutable_data_as<T>();
      T* ud = u.mutable_data_as<T>();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          const double v = i == j ? 1 : (i > j ? a[i * n + j] : 0);
          ld[lm.base + i * lm.row_stride + j * lm.col_stride] = convert_element<T>(v);
        }
      }
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          ud[um.base + i * um.row_stride + j * um.col_stride] = convert_element<T>(j >= i ? a[i * n + j] : 0.0);
        }
      }
    }
    if (!perm_too) continue;
    switch_dtype_only<kIntegralTypes>(pivots.dtype(), "lu_unpack.out", [&](auto tag) {
      load_matrix<decltype(tag)>(pivots, vector_at(pivots, batch_offset(pivots, 1, batch, b)), piv);
      return Error::Ok;
    });
    for (int64_t i = 0; i < m; ++i) perm[i] = static_cast<double>(i);
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = static_cast<int64_t>(piv[i]) - 1;
      TE_CHECK_OR_RETURN(j >= i && j < m, Error::InvalidArgument,
                         "lu_unpack.out: pivot %lld of matrix %lld is %lld, expected %lld..%lld",
                         static_cast<long long>(i), static_cast<long long>(b),
                         static_cast<long long>(j + 1), static_cast<long long>(i + 1),
                         static_cast<long long>(m));
      std::swap(perm[i], perm[j]);
    }
    std::fill(pm, pm + m * m, 0.0);
    for (int64_t i = 0; i < m; ++i) pm[static_cast<int64_t>(perm[i]) * m + i] = 1;
    store_matrix<T>(p, matrix_at(p, batch_offset(p, 2, batch, b)), pm, m);
  }
  return Error::Ok;
}

// The broadcast batch shape of two batched operands (trailing 2 dims each).
Result<BatchShape> broadcast_batches(const Tensor& a, const Tensor& b, const char* op) {
  BatchShape sa = batch_shape_of(a, 2), sb = batch_shape_of(b, 2), out;
  out.rank = std::max(sa.rank, sb.rank);
  for (int d = 0; d < out.rank; ++d) {
    const int da = d - (out.rank - sa.rank), db = d - (out.rank - sb.rank);
    const int64_t x = da >= 0 ? sa.sizes[da] : 1, y = db >= 0 ? sb.sizes[db] : 1;
    TE_CHECK_OR_RETURN(x == y || x == 1 || y == 1, Error::InvalidArgument,
                       "%s: batch dims %lld and %lld do not broadcast", op, static_cast<long long>(x),
                       static_cast<long long>(y));
    out.sizes[d] = x == 1 ? y : x;
  }
  return out;
}

template <typename T>
Error solve_triangular(KernelContext& ctx, const Tensor& a_in, const Tensor& b_in, bool upper, bool left,
                       bool unit, const BatchShape& batch, Tensor& out) {
  const int64_t n = a_in.size(-1);
  const int64_t k = left ? b_in.size(-1) : b_in.size(-2);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, n * n + n * k, "linalg_solve_triangular.out"));
  double* x = a + n * n;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(a_in, matrix_at(a_in, batch_offset(a_in, 2, batch, b)), a);
    MatrixAt bm = matrix_at(b_in, batch_offset(b_in, 2, batch, b));
    MatrixAt om = matrix_at(out, batch_offset(out, 2, batch, b));
    if (!left) {  // X A = B  <=>  A^T X^T = B^T: work on the transposes
      std::swap(bm.rows, bm.cols);
      std::swap(bm.row_stride, bm.col_stride);
      std::swap(om.rows, om.cols);
      std::swap(om.row_stride, om.col_stride);
    }
    load_matrix<T>(b_in, bm, x);
    linalg::solve_triangular(a, n, upper, unit, /*transpose=*/!left, x, k);
    store_matrix<T>(out, om, x, k);
  }
  return Error::Ok;
}

}  // namespace

Error linalg_cholesky_ex_l(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linalg_cholesky_ex.L";
  TE_ASSIGN_OR_RETURN(FactorizationArgs a, factorization_args(args, {"self"}, {"upper", "check_errors"}, 3,
                                                               {"L", "info"}));
  const Tensor* self = a.inputs[0];
  const bool upper = a.flags[0], check = a.flags[1];
  Tensor *l = a.outs[0], *info = a.outs[1];
  TE_RETURN_IF_ERROR(expect_matrices(*self, kOp, "self", true));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *l, "self", "L"));
  TE_RETURN_IF_ERROR(expect_dtype(*info, ScalarType::Int, "info"));
  TE_RETURN_IF_ERROR(resize_like(*l, *self));
  TE_RETURN_IF_ERROR(resize_batched(*info, batch_shape_of(*self, 2), {}));
  return switch_dtype(self->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return cholesky<decltype(tag)>(ctx, *self, upper, check, *l, *info);
  });
}

Error linalg_lu_factor_ex_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linalg_lu_factor_ex.out";
  TE_ASSIGN_OR_RETURN(FactorizationArgs parsed, factorization_args(args, {"A"}, {"pivot", "check_errors"}, 3,
                                                                    {"LU", "pivots", "info"}));
  const Tensor* a = parsed.inputs[0];
  const bool pivot = parsed.flags[0], check = parsed.flags[1];
  Tensor *lu = parsed.outs[0], *pivots = parsed.outs[1], *info = parsed.outs[2];
  TE_CHECK_OR_RETURN(pivot, Error::NotSupported, "%s: LU without pivoting is not supported on the CPU",
                     kOp);
  TE_RETURN_IF_ERROR(expect_matrices(*a, kOp, "A", false));
  TE_RETURN_IF_ERROR(expect_same_dtype(*a, *lu, "A", "LU"));
  TE_RETURN_IF_ERROR(expect_dtype(*pivots, ScalarType::Int, "pivots"));
  TE_RETURN_IF_ERROR(expect_dtype(*info, ScalarType::Int, "info"));
  const BatchShape batch = batch_shape_of(*a, 2);
  TE_RETURN_IF_ERROR(resize_like(*lu, *a));
  TE_RETURN_IF_ERROR(resize_batched(*pivots, batch, {std::min(a->size(-2), a->size(-1))}));
  TE_RETURN_IF_ERROR(resize_batched(*info, batch, {}));
  return switch_dtype(a->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return lu_factor<decltype(tag)>(ctx, *a, check, *lu, *pivots, *info);
  });
}

Error lu_unpack_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "lu_unpack.out";
  TE_ASSIGN_OR_RETURN(FactorizationArgs parsed,
                      factorization_args(args, {"LU_data", "LU_pivots"}, {"unpack_data", "unpack_pivots"}, 4,
                                         {"P", "L", "U"}));
  const Tensor *lu = parsed.inputs[0], *pivots = parsed.inputs[1];
  const bool data = parsed.flags[0], perm = parsed.flags[1];
  Tensor *p = parsed.outs[0], *l = parsed.outs[1], *u = parsed.outs[2];
  TE_RETURN_IF_ERROR(expect_matrices(*lu, kOp, "LU_data", false));
  const int64_t m = lu->size(-2), n = lu->size(-1), k = std::min(m, n);
  TE_CHECK_OR_RETURN(pivots->dim() == lu->dim() - 1 && pivots->size(-1) == k, Error::InvalidArgument,
                     "%s: LU_pivots must be [..., %lld]", kOp, static_cast<long long>(k));
  const BatchShape batch = batch_shape_of(*lu, 2);
  TE_RETURN_IF_ERROR(perm ? resize_batched(*p, batch, {m, m}) : resize_empty(*p));
  TE_RETURN_IF_ERROR(data ? resize_batched(*l, batch, {m, k}) : resize_empty(*l));
  TE_RETURN_IF_ERROR(data ? resize_batched(*u, batch, {k, n}) : resize_empty(*u));
  return switch_dtype(lu->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return lu_unpack<decltype(tag)>(ctx, *lu, *pivots, data, perm, *p, *l, *u);
  });
}

Error linalg_solve_triangular_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linalg_solve_triangular.out";
  TE_ASSIGN_OR_RETURN(FactorizationArgs parsed,
                      factorization_args(args, {"self", "B"}, {"upper", "left", "unitriangular"}, 5, {"out"}));
  const Tensor *a = parsed.inputs[0], *b = parsed.inputs[1];
  const bool upper = parsed.flags[0], left = parsed.flags[1], unit = parsed.flags[2];
  Tensor* out = parsed.outs[0];
  TE_RETURN_IF_ERROR(expect_matrices(*a, kOp, "self", true));
  TE_RETURN_IF_ERROR(expect_matrices(*b, kOp, "B", false));
  TE_RETURN_IF_ERROR(expect_dtype_of(*a, {b, out}, kOp));
  const int64_t n = a->size(-1);
  TE_CHECK_OR_RETURN((left ? b->size(-2) : b->size(-1)) == n, Error::InvalidArgument,
                     "%s: B's %s dimension must be %lld", kOp, left ? "row" : "column",
                     static_cast<long long>(n));
  TE_ASSIGN_OR_RETURN(BatchShape batch, broadcast_batches(*a, *b, kOp));
  TE_RETURN_IF_ERROR(resize_batched(*out, batch, {b->size(-2), b->size(-1)}));
  return switch_dtype(a->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return solve_triangular<decltype(tag)>(ctx, *a, *b, upper, left, unit, batch, *out);
  });
}

}  // namespace native
}  // namespace torchedge
