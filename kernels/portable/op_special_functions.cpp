// The special functions of torch.special and their aten aliases, one
// elementwise driver for all (floating dtypes; integral and bool inputs
// compute in float32, as eager). Each value is computed in double by
// support/special_gamma.h, special_bessel.h or orthogonal_polynomials.h and
// rounded once to the output's dtype.
//
//   unary   <op>.out(Tensor self, *, Tensor(a!) out): erfinv, i0,
//           special_{i0e, i1, i1e, erfcx, ndtri, log_ndtr, airy_ai,
//           bessel_{j0,j1,y0,y1}, modified_bessel_{i0,i1,k0,k1},
//           scaled_modified_bessel_{k0,k1}, spherical_bessel_j0}
//   binary  <op>.out(Tensor a, Tensor b, *, Tensor(a!) out), broadcast:
//           igamma, igammac, special_zeta, special_<family>_polynomial_<p>
//           (x, n) and the shifted Chebyshev ones (x -> 2x - 1)
//   polygamma.out(int n, Tensor self, *, Tensor(a!) out)
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/orthogonal_polynomials.h"
#include "kernels/portable/support/special_bessel.h"
#include "kernels/portable/support/special_gamma.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

using Unary = double (*)(double);
using Binary = double (*)(double, double);

template <Unary kFn>
Error unary_special(Span<EValue*> args, const char* op) {
  return unary_floating_kernel(args, op, [](auto x) { return kFn(static_cast<double>(x)); });
}

// `fn(a, b)` on the promoted floating dtype of a and b (atan2's promotion).
Error binary_special(Span<EValue*> args, const char* op, Binary fn) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = to_floating(result_type(*a, *b));
  TE_RETURN_IF_ERROR(expect_castable(common, *out, op));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *a, *b));
  return switch_dtype_only<kFloatingTypes>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, T>(*a, *b, *out, [fn](C x, C y) {
      return static_cast<C>(fn(static_cast<double>(x), static_cast<double>(y)));
    });
  });
}

template <special::Polynomial kFamily, bool kShifted>
double polynomial(double x, double n) {
  return special::orthogonal_polynomial(kFamily, kShifted ? 2 * x - 1 : x, n);
}

double i0(double x) { return special::bessel_i(0, x, false); }
double i0e(double x) { return special::bessel_i(0, x, true); }
double i1(double x) { return special::bessel_i(1, x, false); }
double i1e(double x) { return special::bessel_i(1, x, true); }
double k0(double x) { return special::bessel_k(0, x, false); }
double k1(double x) { return special::bessel_k(1, x, false); }
double k0e(double x) { return special::bessel_k(0, x, true); }
double k1e(double x) { return special::bessel_k(1, x, true); }
double j0(double x) { return special::bessel_j(0, x); }
double j1(double x) { return special::bessel_j(1, x); }
double y0(double x) { return special::bessel_y(0, x); }
double y1(double x) { return special::bessel_y(1, x); }

}  // namespace

#define TE_SPECIAL_UNARY(kernel, fn, name) \
  Error kernel(KernelContext&, Span<EValue*> args) { return unary_special<fn>(args, name); }
#define TE_SPECIAL_BINARY(kernel, fn, name) \
  Error kernel(KernelContext&, Span<EValue*> args) { return binary_special(args, name, fn); }

TE_SPECIAL_UNARY(erfinv_out, special::erfinv, "erfinv.out")
TE_SPECIAL_UNARY(special_erfcx_out, special::erfcx, "special_erfcx.out")
TE_SPECIAL_UNARY(special_ndtri_out, special::ndtri, "special_ndtri.out")
TE_SPECIAL_UNARY(special_log_ndtr_out, special::log_ndtr, "special_log_ndtr.out")
TE_SPECIAL_UNARY(i0_out, i0, "i0.out")
TE_SPECIAL_UNARY(special_i0e_out, i0e, "special_i0e.out")
TE_SPECIAL_UNARY(special_i1_out, i1, "special_i1.out")
TE_SPECIAL_UNARY(special_i1e_out, i1e, "special_i1e.out")
TE_SPECIAL_UNARY(special_modified_bessel_i0_out, i0, "special_modified_bessel_i0.out")
TE_SPECIAL_UNARY(special_modified_bessel_i1_out, i1, "special_modified_bessel_i1.out")
TE_SPECIAL_UNARY(special_modified_bessel_k0_out, k0, "special_modified_bessel_k0.out")
TE_SPECIAL_UNARY(special_modified_bessel_k1_out, k1, "special_modified_bessel_k1.out")
TE_SPECIAL_UNARY(special_scaled_modified_bessel_k0_out, k0e, "special_scaled_modified_bessel_k0.out")
TE_SPECIAL_UNARY(special_scaled_modified_bessel_k1_out, k1e, "special_scaled_modified_bessel_k1.out")
TE_SPECIAL_UNARY(special_bessel_j0_out, j0, "special_bessel_j0.out")
TE_SPECIAL_UNARY(special_bessel_j1_out, j1, "special_bessel_j1.out")
TE_SPECIAL_UNARY(special_bessel_y0_out, y0, "special_bessel_y0.out")
TE_SPECIAL_UNARY(special_bessel_y1_out, y1, "special_bessel_y1.out")
TE_SPECIAL_UNARY(special_spherical_bessel_j0_out, special::spherical_bessel_j0,
                 "special_spherical_bessel_j0.out")
TE_SPECIAL_UNARY(special_airy_ai_out, special::airy_ai, "special_airy_ai.out")

TE_SPECIAL_BINARY(igamma_out, special::igamma, "igamma.out")
TE_SPECIAL_BINARY(igammac_out, special::igammac, "igammac.out")
TE_SPECIAL_BINARY(special_zeta_out, special::hurwitz_zeta, "special_zeta.out")

// special_<name>.out for each polynomial family (x -> 2x - 1 when shifted).
#define TE_SPECIAL_POLYNOMIAL(name, family, shifted)                                     \
  Error special_##name##_out(KernelContext&, Span<EValue*> args) {                       \
    return binary_special(args, "special_" #name ".out",                                  \
                          polynomial<special::Polynomial::family, shifted>);              \
  }
TE_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t, kChebyshevT, false)
TE_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u, kChebyshevU, false)
TE_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v, kChebyshevV, false)
TE_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w, kChebyshevW, false)
TE_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t, kChebyshevT, true)
TE_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u, kChebyshevU, true)
TE_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v, kChebyshevV, true)
TE_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w, kChebyshevW, true)
TE_SPECIAL_POLYNOMIAL(hermite_polynomial_h, kHermiteH, false)
TE_SPECIAL_POLYNOMIAL(hermite_polynomial_he, kHermiteHe, false)
TE_SPECIAL_POLYNOMIAL(laguerre_polynomial_l, kLaguerreL, false)
TE_SPECIAL_POLYNOMIAL(legendre_polynomial_p, kLegendreP, false)
#undef TE_SPECIAL_POLYNOMIAL

#undef TE_SPECIAL_UNARY
#undef TE_SPECIAL_BINARY

Error polygamma_out(KernelContext&, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(int64_t n, int_arg(args, 0, "n"));
  TE_CHECK_OR_RETURN(n >= 0, Error::InvalidArgument, "polygamma.out: n must be >= 0, got %lld",
                     static_cast<long long>(n));
  Span<EValue*> rest(args.data() + 1, args.size() - 1);
  return unary_floating_kernel(rest, "polygamma.out", [n](auto x) {
    return special::polygamma(n, static_cast<double>(x));
  });
}

}  // namespace native
}  // namespace torchedge
