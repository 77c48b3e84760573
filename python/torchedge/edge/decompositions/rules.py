"""The registry the decomposition modules of this package write into.

A rule is a function with the ATen overload's signature that computes the
same result from Core ATen operators (traced by `run_decompositions()`, so
it must not read tensor data or turn a symbolic size into a number: dynamic
dimensions stay dynamic). Register it with `@decomposes(op, ...)`.
`KEPT_WHOLE` lists non-core operators that the runtime runs as one portable
kernel instead; the verifier accepts exactly those.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import torch
from torch._ops import OpOverload

Rule = Callable[..., Any]
F = TypeVar("F", bound=Rule)

RULES: dict[OpOverload, Rule] = {}


def decomposes(*ops: OpOverload) -> Callable[[F], F]:
    """Registers the decorated function as the decomposition of `ops`."""
    def register(rule: F) -> F:
        for op in ops:
            if op in RULES:
                raise ValueError(f"{op} already has the decomposition {RULES[op].__name__}")
            RULES[op] = rule
        return rule
    return register


aten = torch.ops.aten

# Non-core operators with a portable kernel (kernels/portable/operators.toml):
# kept as they are, so the kernel runs them in one pass.
KEPT_WHOLE: frozenset[OpOverload] = frozenset({
    aten.adaptive_max_pool2d.default,
    aten.cumprod.default,
    aten.round.decimals,
    aten.sort.stable,
    # Complex values and data-dependent output sizes (complex_kernels.inc,
    # data_dependent_kernels.inc).
    aten.complex.default,
    aten.polar.default,
    aten._conj_physical.default,
    aten._fft_c2c.default,
    aten.masked_select.default,
    aten.nonzero_static.default,
    aten._unique2.default,
    aten.unique_consecutive.default,
}) | frozenset({
    # Special functions (kernels/portable/op_special_functions.cpp).
    aten.erfinv.default, aten.i0.default, aten.polygamma.default, aten.igamma.default,
    aten.igammac.default, aten.special_zeta.default, aten.special_erfcx.default,
    aten.special_ndtri.default, aten.special_log_ndtr.default, aten.special_i0e.default,
    aten.special_i1.default, aten.special_i1e.default, aten.special_airy_ai.default,
    aten.special_bessel_j0.default, aten.special_bessel_j1.default,
    aten.special_bessel_y0.default, aten.special_bessel_y1.default,
    aten.special_modified_bessel_i0.default, aten.special_modified_bessel_i1.default,
    aten.special_modified_bessel_k0.default, aten.special_modified_bessel_k1.default,
    aten.special_scaled_modified_bessel_k0.default, aten.special_scaled_modified_bessel_k1.default,
    aten.special_spherical_bessel_j0.default,
    aten.special_chebyshev_polynomial_t.default, aten.special_chebyshev_polynomial_u.default,
    aten.special_chebyshev_polynomial_v.default, aten.special_chebyshev_polynomial_w.default,
    aten.special_shifted_chebyshev_polynomial_t.default,
    aten.special_shifted_chebyshev_polynomial_u.default,
    aten.special_shifted_chebyshev_polynomial_v.default,
    aten.special_shifted_chebyshev_polynomial_w.default,
    aten.special_hermite_polynomial_h.default, aten.special_hermite_polynomial_he.default,
    aten.special_laguerre_polynomial_l.default, aten.special_legendre_polynomial_p.default,
    # Dense linear algebra (kernels/portable/op_linalg_*.cpp).
    aten.linalg_cholesky_ex.default, aten.linalg_lu_factor_ex.default, aten.lu_unpack.default,
    aten.linalg_solve_triangular.default, aten._linalg_eigh.default, aten._linalg_svd.default,
    aten.geqrf.default, aten.linalg_householder_product.default,
    # Integer arithmetic and float bits (kernels/portable/op_integer_bits.cpp).
    aten.gcd.default, aten.lcm.default, aten.bitwise_left_shift.Tensor,
    aten.bitwise_right_shift.Tensor, aten.nextafter.default, aten.frexp.Tensor,
    aten.grid_sampler_3d.default,  # kernels/portable/op_grid_sampler_3d.cpp
    aten._upsample_bilinear2d_aa.default,  # kernels/portable/op_upsample_bilinear2d_aa.cpp
})
