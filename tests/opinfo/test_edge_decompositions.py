"""Each decomposition of torchedge/edge/decompositions against eager.

Every case is exported with a dynamic first dimension (2..16, on every input
whose first dimension has the rows), lowered with
to_edge / to_pte and run at two sizes: the rewritten operator must be gone
from the edge graph (or, for rules.KEPT_WHOLE, be there), the dimension
must stay symbolic, and the runtime must match eager: float outputs within
1e-5 of max(1, max |eager|), integer and bool outputs exactly, NaN and
infinities where eager has them (complex outputs: on the real and imaginary
parts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
from torch.export import Dim

import torchedge
import torchedge.runtime
from torchedge.edge.decompositions import KEPT_WHOLE, RULES

from opinfo.edge_cases_special_linalg import BINNING_CASES, LINALG_CASES, SPECIAL_CASES

aten = torch.ops.aten


@dataclass
class Case:
    name: str
    fn: Callable[..., object]
    make: Callable[[int], tuple]  # rows -> inputs (dim 0 of the first input is dynamic)
    op: object                    # the ATen overload the rule replaces (or keeps whole)


class Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _randn(*shape):
    return torch.randn(*shape)


def _with_specials(rows: int, cols: int = 6) -> torch.Tensor:
    x = torch.randn(rows, cols)
    x[0, 1] = float("nan")
    x[1, 2] = -0.0
    x[1, 3] = float("inf")
    return x


def _gamma_inputs(rows: int) -> tuple:
    x = torch.linspace(-6.75, 25.0, rows * 8).reshape(rows, 8)
    x[0, :4] = torch.tensor([0.0, -2.0, float("inf"), 1.0])
    return (x,)


CASES = [
    Case("var_mean", lambda x: torch.var_mean(x, dim=1, correction=0), lambda n: (_randn(n, 7),),
         aten.var_mean.correction),
    Case("median", torch.median, lambda n: (_randn(n, 5),), aten.median.default),
    Case("median_dim", lambda x: torch.median(x, 1), lambda n: (_randn(n, 5),), aten.median.dim),
    Case("nanmedian", torch.nanmedian, lambda n: (_with_specials(n),), aten.nanmedian.default),
    Case("nanmedian_dim", lambda x: torch.nanmedian(x, 1), lambda n: (_with_specials(n),),
         aten.nanmedian.dim),
    Case("kthvalue", lambda x: torch.kthvalue(x, 2, 1), lambda n: (_randn(n, 5),), aten.kthvalue.default),
    Case("cummax", lambda x: torch.cummax(x, 0), lambda n: (_with_specials(n),), aten.cummax.default),
    Case("cummin", lambda x: torch.cummin(x, 1), lambda n: (_with_specials(n),), aten.cummin.default),
    Case("cummax_int", lambda x: torch.cummax(x, 0),
         lambda n: (torch.randint(-3, 3, (n, 4)),), aten.cummax.default),
    Case("logcumsumexp", lambda x: torch.logcumsumexp(x, 0),
         lambda n: (torch.randn(n, 3) * 40 - torch.tensor([0.0, 90.0, float("inf")]),),
         aten.logcumsumexp.default),
    Case("exp2", torch.exp2, lambda n: (_randn(n, 4) * 10,), aten.exp2.default),
    Case("exp2_complex", torch.exp2, lambda n: (torch.randn(n, 4, dtype=torch.complex64) * 3,),
         aten.exp2.default),
    Case("copysign", torch.copysign, lambda n: (_randn(n, 6), _with_specials(n)), aten.copysign.Tensor),
    Case("copysign_scalar", lambda x: torch.copysign(x, -0.0), lambda n: (_randn(n, 3),),
         aten.copysign.Scalar),
    Case("signbit", lambda x: torch.signbit(x[:, 1:]), lambda n: (_with_specials(n),), aten.signbit.default),
    Case("fmax", torch.fmax, lambda n: (_with_specials(n), _with_specials(n).flip(1)), aten.fmax.default),
    Case("fmin", torch.fmin, lambda n: (_with_specials(n), _with_specials(n).flip(1)), aten.fmin.default),
    Case("hypot", torch.hypot, lambda n: (_randn(n, 4) * 1e30, _randn(n, 4)), aten.hypot.default),
    Case("angle", torch.angle, lambda n: (_with_specials(n),), aten.angle.default),
    Case("angle_complex", torch.angle,
         lambda n: (torch.complex(_with_specials(n), _randn(n, 6)),), aten.angle.default),
    Case("convert_element_type",
         lambda x: torch.ops.prims.convert_element_type.default(x, torch.float16),
         lambda n: (_with_specials(n) * 1e3,), torch.ops.prims.convert_element_type.default),
    Case("erfc", torch.erfc, lambda n: (_randn(n, 4) * 3,), aten.erfc.default),
    Case("lgamma", torch.lgamma, _gamma_inputs, aten.lgamma.default),
    Case("digamma", torch.digamma, _gamma_inputs, aten.digamma.default),
    Case("addmv", lambda i, m, v: torch.addmv(i, m, v, beta=0.5, alpha=2.0),
         lambda n: (_randn(n), _randn(n, 3), _randn(3)), aten.addmv.default),
    Case("addbmm_beta0", lambda b1, i, b2: torch.addbmm(i, b1, b2, beta=0),
         lambda n: (_randn(n, 3, 4), torch.full((3, 5), float("nan")), _randn(n, 4, 5)),
         aten.addbmm.default),
    Case("dist", lambda a, b: torch.dist(a, b, 3), lambda n: (_randn(n, 4), _randn(n, 4)), aten.dist.default),
    Case("index_reduce", lambda x, s: x.index_reduce(1, torch.tensor([0, 2, 0]), s, "amax"),
         lambda n: (_randn(n, 4), _randn(n, 3)), aten.index_reduce.default),
    Case("put", lambda x, s: x.put(torch.tensor([0, -1, 2]), s, accumulate=True),
         lambda n: (_randn(n, 3), _randn(3)), aten.put.default),
    Case("bucketize", lambda x: torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5]), right=True),
         lambda n: (torch.cat([_randn(n, 3), torch.tensor([[0.0, 0.5, float("nan")]] * n)], 1),),
         aten.bucketize.Tensor),
    Case("searchsorted", lambda s, x: torch.searchsorted(s, x),
         lambda n: (torch.sort(_randn(n, 5), 1).values, _randn(n, 3)), aten.searchsorted.Tensor),
    Case("cumprod", lambda x: torch.cumprod(x, 1), lambda n: (_randn(n, 5),), aten.cumprod.default),
    Case("round_decimals", lambda x: torch.round(x, decimals=2), lambda n: (_randn(n, 5) * 10,),
         aten.round.decimals),
    Case("sort_stable", lambda x: torch.sort(x, dim=1, stable=True),
         lambda n: (torch.randint(0, 3, (n, 6)).float(),), aten.sort.stable),
    Case("adaptive_max_pool2d", lambda x: torch.nn.functional.adaptive_max_pool2d(x, (2, 3), True),
         lambda n: (_randn(n, 3, 7, 8),), aten.adaptive_max_pool2d.default),
    # Complex values (compared through view_as_real) and data-dependent sizes.
    Case("complex", lambda a, b: torch.view_as_real(torch.complex(a, b)),
         lambda n: (_randn(n, 3), _randn(n, 3)), aten.complex.default),
    Case("polar", lambda a, b: torch.view_as_real(torch.polar(a, b)),
         lambda n: (_randn(n, 3).abs(), _randn(n, 3)), aten.polar.default),
    Case("conj_physical", lambda x: torch.view_as_real(torch.conj_physical(torch.complex(x, -x))),
         lambda n: (_randn(n, 4),), aten._conj_physical.default),
    Case("fft_c2c", lambda x: torch.view_as_real(torch.fft.fft(torch.complex(x, 2 * x), dim=1)),
         lambda n: (_randn(n, 6),), aten._fft_c2c.default),
    Case("masked_select", lambda x: torch.masked_select(x, x > 0), lambda n: (_randn(n, 5),),
         aten.masked_select.default),
    Case("nonzero_static", lambda x: torch.nonzero_static(x, size=6),
         lambda n: (torch.randint(0, 2, (n, 3)),), aten.nonzero_static.default),
    Case("unique", lambda x: torch.unique(x, return_inverse=True, return_counts=True),
         lambda n: (torch.randint(0, 4, (n, 3)),), aten._unique2.default),
    Case("unique_consecutive", lambda x: torch.unique_consecutive(x, return_counts=True),
         lambda n: (torch.randint(0, 2, (n, 4)),), aten.unique_consecutive.default),
]
CASES += [Case(*case) for case in SPECIAL_CASES + LINALG_CASES + BINNING_CASES]


def _targets(program) -> set:
    return {n.target for n in program.exported_program().graph.nodes if n.op == "call_function"}


def _assert_matches(expected, actual, name: str) -> None:
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    actual = actual if isinstance(actual, (tuple, list)) else (actual,)
    assert len(expected) == len(actual), name
    for e, a in zip(expected, actual):
        assert e.shape == a.shape and e.dtype == a.dtype, (name, e.shape, a.shape, e.dtype, a.dtype)
        if e.is_complex():  # real and imaginary parts, each to the float tolerance
            e, a = torch.view_as_real(e), torch.view_as_real(a)
        if e.is_floating_point():
            finite = torch.isfinite(e)
            scale = max(1.0, float(e[finite].abs().max())) if finite.any() else 1.0
            torch.testing.assert_close(a, e, rtol=0, atol=1e-5 * scale, equal_nan=True, msg=name)
        else:
            assert torch.equal(a, e), (name, a, e)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_decomposition_matches_eager_with_a_dynamic_dimension(case: Case) -> None:
    torch.manual_seed(0)
    inputs = case.make(4)
    rows = Dim("rows", min=2, max=16)
    shapes = tuple({0: rows} if t.dim() and t.shape[0] == 4 else None for t in inputs)
    module = Fn(case.fn)
    program = torchedge.to_edge(torch.export.export(module, inputs, dynamic_shapes=(shapes,)))
    if case.op in KEPT_WHOLE:
        assert case.op in _targets(program)
    else:
        assert case.op in RULES or case.op is aten.ldexp.Tensor
        assert case.op not in _targets(program)
    ep = program.exported_program()
    first = next(n for n in ep.graph.nodes if n.name == ep.graph_signature.user_inputs[0])
    assert isinstance(first.meta["val"].shape[0], torch.SymInt), "the dynamic dimension was specialized"
    runtime = torchedge.runtime.load(program.to_pte().buffer)
    for n in (3, 9):
        torch.manual_seed(n)
        values = case.make(n)
        _assert_matches(module(*values), runtime.forward(*values), f"{case.name} at {n} rows")


def test_every_rule_has_a_case() -> None:
    covered = {c.op for c in CASES}
    missing = [str(op) for op in list(RULES) + list(KEPT_WHOLE) if op not in covered]
    # The norm family has its own test (tests/python_aot/test_linalg_vector_norm.py).
    missing = [m for m in missing if m not in ("aten.linalg_vector_norm.default", "aten.max.default",
                                               "aten.min.default")]
    assert not missing, f"decompositions without a test case: {missing}"


def test_return_types_survive_the_file() -> None:
    x = torch.randn(3, 5)
    pte = torchedge.lower(Fn(lambda t: torch.max(t, 1)), (x,))
    out = torchedge.runtime.load(pte.buffer).forward(x)
    assert type(out).__name__ == "max" and torch.equal(out.indices, torch.max(x, 1).indices)
    assert math.isclose(float(out.values.sum()), float(torch.max(x, 1).values.sum()), rel_tol=1e-6)
