// Householder QR pieces (support/dense_linalg.h, LAPACK's reflector
// convention), batched over leading dims, float32 and float64 (computed in
// double). linalg_qr, ormqr and the rest are decompositions over these
// (torchedge.edge.decompositions.matrix_factorizations).
//
// aten::geqrf.a(Tensor self, *, Tensor(a!) a, Tensor(b!) tau)
//   a: R on and above the diagonal, the reflectors below; tau [..., min(m, n)].
// aten::linalg_householder_product.out(Tensor input, Tensor tau, *, Tensor(a!) out)
//   the first n columns of H_0 ... H_{k-1} (input m x n, n <= m, tau [..., k], k <= n).
// Any dense dim order for every tensor.
#include <algorithm>

#include "kernels/portable/support/dense_linalg.h"
#include "kernels/portable/support/matrix_batch.h"

namespace torchedge {
namespace native {
namespace {

template <typename T>
Error geqrf(KernelContext& ctx, const Tensor& self, Tensor& a_out, Tensor& tau_out) {
  const BatchShape batch = batch_shape_of(self, 2);
  const int64_t m = self.size(-2), n = self.size(-1), k = std::min(m, n);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, m * n + k, "geqrf.a"));
  double* tau = a + m * n;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(self, matrix_at(self, batch_offset(self, 2, batch, b)), a);
    linalg::geqrf(a, m, n, tau);
    store_matrix<T>(a_out, matrix_at(a_out, batch_offset(a_out, 2, batch, b)), a, n);
    store_matrix<T>(tau_out, vector_at(tau_out, batch_offset(tau_out, 1, batch, b)), tau, 1);
  }
  return Error::Ok;
}

template <typename T>
Error householder_product(KernelContext& ctx, const Tensor& input, const Tensor& tau_in, Tensor& out) {
  const BatchShape batch = batch_shape_of(input, 2);
  const int64_t m = input.size(-2), n = input.size(-1), k = tau_in.size(-1);
  TE_ASSIGN_OR_RETURN(double* a, double_scratch(ctx, 2 * m * n + k, "linalg_householder_product.out"));
  double* q = a + m * n;
  double* tau = q + m * n;
  for (int64_t b = 0; b < batch.count(); ++b) {
    load_matrix<T>(input, matrix_at(input, batch_offset(input, 2, batch, b)), a);
    load_matrix<T>(tau_in, vector_at(tau_in, batch_offset(tau_in, 1, batch, b)), tau);
    linalg::householder_product(a, m, n, tau, k, q);
    store_matrix<T>(out, matrix_at(out, batch_offset(out, 2, batch, b)), q, n);
  }
  return Error::Ok;
}

}  // namespace

Error geqrf_a(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* a, tensor_arg(args, 1, "a"));
  TE_ASSIGN_OR_RETURN(Tensor* tau, tensor_arg(args, 2, "tau"));
  TE_RETURN_IF_ERROR(expect_matrices(*self, "geqrf.a", "self", false));
  TE_RETURN_IF_ERROR(expect_dtype_of(*self, {a, tau}, "geqrf.a"));
  TE_RETURN_IF_ERROR(resize_like(*a, *self));
  TE_RETURN_IF_ERROR(resize_batched(*tau, batch_shape_of(*self, 2), {std::min(self->size(-2), self->size(-1))}));
  return switch_dtype(self->dtype(), kFloatingTypes, "geqrf.a", [&](auto tag) {
    return geqrf<decltype(tag)>(ctx, *self, *a, *tau);
  });
}

Error linalg_householder_product_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "linalg_householder_product.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* tau, tensor_arg(args, 1, "tau"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_matrices(*input, kOp, "input", false));
  TE_RETURN_IF_ERROR(expect_dtype_of(*input, {tau, out}, kOp));
  const int64_t m = input->size(-2), n = input->size(-1);
  TE_CHECK_OR_RETURN(n <= m && tau->dim() == input->dim() - 1 && tau->size(-1) <= n,
                     Error::InvalidArgument,
                     "%s: expected input [..., m, n] with n <= m and tau [..., k] with k <= n", kOp);
  for (int d = 0; d < tau->dim() - 1; ++d) {
    TE_CHECK_OR_RETURN(tau->size(d) == input->size(d), Error::InvalidArgument,
                       "%s: tau's batch dims must equal input's", kOp);
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *input));
  return switch_dtype(input->dtype(), kFloatingTypes, kOp, [&](auto tag) {
    return householder_product<decltype(tag)>(ctx, *input, *tau, *out);
  });
}

}  // namespace native
}  // namespace torchedge
