// Symmetric eigen-decomposition and SVD (support/dense_linalg.h: Jacobi
// methods), batched over leading dims, float32 and float64 (computed in
// double). Eigenvectors and singular vectors are unique only up to sign.
//
// aten::_linalg_eigh.eigenvalues(Tensor A, str UPLO="L", bool compute_v=True, *,
//     Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)
//   reads the UPLO triangle of A; eigenvalues ascending; eigenvectors (columns)
//   empty when compute_v is false, as eager.
// aten::_linalg_svd.U(Tensor A, bool full_matrices=False, bool compute_uv=True, *,
//     str? driver=None, Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)
//   S descending; U and Vh empty when compute_uv is false; `driver` (a
//   CUDA-only choice in eager) must be None.
// Any dense dim order for every tensor.
#include <algorithm>
#include <cstring>

#include "kernels/portable/support/dense_linalg.h"
#include "kernels/portable/support/matrix_batch.h"

namespace torchedge {
namespace native {
namespace {

template <typename T>
Error eigh(KernelContext& ctx, const Tensor& a_in, bool lower, bool vectors, Tensor& w_out, Tensor& v_out) {
  const BatchShape batch = batch_shape_of(a_in, 2);
  const int64_t n = a_in.size(-1);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, 2 * n * n + n, "_linalg_eigh.eigenvalues"));
  double* v = a + n * n;
  double* w = v + n * n;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(a_in, matrix_at(a_in, batch_offset(a_in, 2, batch, b)), a);
    for (int64_t i = 0; i < n; ++i) {  // symmetric from the UPLO triangle
      for (int64_t j = i + 1; j < n; ++j) {
        if (lower) {
          a[i * n + j] = a[j * n + i];
        } else {
          a[j * n + i] = a[i * n + j];
        }
      }
    }
    linalg::eigh(a, n, w, v);
    store_matrix<T>(w_out, vector_at(w_out, batch_offset(w_out, 1, batch, b)), w, 1);
    if (vectors) store_matrix<T>(v_out, matrix_at(v_out, batch_offset(v_out, 2, batch, b)), v, n);
  }
  return Error::Ok;
}

template <typename T>
Error svd(KernelContext& ctx, const Tensor& a_in, bool full, bool uv, Tensor& u_out, Tensor& s_out,
          Tensor& vh_out) {
  const BatchShape batch = batch_shape_of(a_in, 2);
  const int64_t m = a_in.size(-2), n = a_in.size(-1), k = std::min(m, n);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  const int64_t need = m * n + m * ucols + k + vrows * n + linalg::svd_work_size(m, n);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, need, "_linalg_svd.U"));
  double* u = a + m * n;
  double* s = u + m * ucols;
  double* vh = s + k;
  double* work = vh + vrows * n;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(a_in, matrix_at(a_in, batch_offset(a_in, 2, batch, b)), a);
    linalg::svd(a, m, n, full, u, s, vh, work);
    store_matrix<T>(s_out, vector_at(s_out, batch_offset(s_out, 1, batch, b)), s, 1);
    if (!uv) continue;
    store_matrix<T>(u_out, matrix_at(u_out, batch_offset(u_out, 2, batch, b)), u, ucols);
    store_matrix<T>(vh_out, matrix_at(vh_out, batch_offset(vh_out, 2, batch, b)), vh, n);
  }
  return Error::Ok;
}

bool is_text(StringView s, const char* text) {
  return s.size == std::strlen(text) && std::memcmp(s.data, text, s.size) == 0;
}

}  // namespace

Error linalg_eigh_eigenvalues(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_linalg_eigh.eigenvalues";
  TE_ASSIGN_OR_RETURN(FactorizationArgs parsed, factorization_args(args, {"A"}, {}, 3, {"eigenvalues", "eigenvectors"}));
  TE_ASSIGN_OR_RETURN(StringView uplo, string_arg(args, 1, "UPLO"));
  TE_ASSIGN_OR_RETURN(bool vectors, bool_arg(args, 2, "compute_v"));
  const Tensor* a = parsed.inputs[0];
  Tensor *w = parsed.outs[0], *v = parsed.outs[1];
  TE_CHECK_OR_RETURN(is_text(uplo, "L") || is_text(uplo, "U"), Error::InvalidArgument,
                     "%s: UPLO must be 'L' or 'U', got '%.*s'", kOp, static_cast<int>(uplo.size),
                     uplo.data);
  TE_RETURN_IF_ERROR(expect_matrices(*a, kOp, "A", true));
  TE_RETURN_IF_ERROR(expect_dtype_of(*a, {w, v}, kOp));
  const BatchShape batch = batch_shape_of(*a, 2);
  TE_RETURN_IF_ERROR(resize_batched(*w, batch, {a->size(-1)}));
  TE_RETURN_IF_ERROR(vectors ? resize_like(*v, *a) : resize_empty(*v));
  return switch_dtype(a->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return eigh<decltype(tag)>(ctx, *a, is_text(uplo, "L"), vectors, *w, *v);
  });
}

Error linalg_svd_u(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_linalg_svd.U";
  TE_ASSIGN_OR_RETURN(FactorizationArgs parsed, factorization_args(args, {"A"}, {"full_matrices", "compute_uv"}, 4,
                                                                    {"U", "S", "Vh"}));
  TE_CHECK_OR_RETURN(args[3]->is_none(), Error::NotSupported, "%s: driver must be None on the CPU", kOp);
  const Tensor* a = parsed.inputs[0];
  const bool full = parsed.flags[0], uv = parsed.flags[1];
  Tensor *u = parsed.outs[0], *s = parsed.outs[1], *vh = parsed.outs[2];
  TE_RETURN_IF_ERROR(expect_matrices(*a, kOp, "A", false));
  TE_RETURN_IF_ERROR(expect_dtype_of(*a, {u, s, vh}, kOp));
  const BatchShape batch = batch_shape_of(*a, 2);
  const int64_t m = a->size(-2), n = a->size(-1), k = std::min(m, n);
  TE_RETURN_IF_ERROR(resize_batched(*s, batch, {k}));
  TE_RETURN_IF_ERROR(uv ? resize_batched(*u, batch, {m, full ? m : k}) : resize_empty(*u));
  TE_RETURN_IF_ERROR(uv ? resize_batched(*vh, batch, {full ? n : k, n}) : resize_empty(*vh));
  return switch_dtype(a->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return svd<decltype(tag)>(ctx, *a, full, uv, *u, *s, *vh);
  });
}

}  // namespace native
}  // namespace torchedge
