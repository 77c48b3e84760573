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
})
