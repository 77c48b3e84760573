"""The edge verifier: every error names the operator and the user's source line."""

from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn as nn

import torchedge
from torchedge import ExportError


def _line_of(fragment: str, obj) -> int:
    lines, start = inspect.getsourcelines(obj)
    return start + next(i for i, line in enumerate(lines) if fragment in line)


def _edge_error(model, *inputs, dynamic_shapes=None) -> ExportError:
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    with pytest.raises(ExportError) as info:
        torchedge.to_edge(ep)
    return info.value


class UsesItem(nn.Module):
    def forward(self, x):
        scale = x.max().item()
        return x * scale


class UsesComplex(nn.Module):
    """Complex values are runtime dtypes; a cumulative sum of them has no kernel."""

    def forward(self, x):
        z = x.to(torch.complex64)
        return torch.cumsum(z, 0)


@torch.library.custom_op("torchedge_test::twice", mutates_args=())
def _twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@_twice.register_fake
def _(x):
    return torch.empty_like(x)


class UsesCustomOp(nn.Module):
    def forward(self, x):
        return _twice(x) + 1


class UsesNonzero(nn.Module):
    """nonzero's size is planned at its bound; repeat_interleave's is not."""

    def forward(self, x):
        return torch.nonzero(x), torch.repeat_interleave(x.long().abs())


def test_op_without_out_variant_names_op_and_line():
    error = _edge_error(UsesItem(), torch.randn(4))
    (problem,) = [p for p in error.problems if "no out variant" in p.message]
    assert problem.operator == "aten._local_scalar_dense.default"
    assert f"{__file__}:{_line_of('.item()', UsesItem.forward)}" in problem.location
    assert "x.max().item()" in problem.location
    assert "aten._local_scalar_dense.default" in str(error) and "test_verifier.py" in str(error)


def test_complex_dtype_names_op_and_line():
    error = _edge_error(UsesComplex(), torch.randn(4))
    (problem,) = error.problems
    assert problem.operator == "aten.cumsum.default"
    assert "complex dtype torch.complex64" in problem.message and "aten::cumsum.out" in problem.message
    assert f":{_line_of('torch.cumsum(z, 0)', UsesComplex.forward)} in forward" in problem.location


def test_non_core_operator():
    error = _edge_error(UsesCustomOp(), torch.randn(4))
    (problem,) = error.problems
    assert problem.operator == "torchedge_test.twice.default"
    assert "_twice(x) + 1" in problem.location


def test_data_dependent_shape():
    error = _edge_error(UsesNonzero(), torch.randn(4))
    (problem,) = [p for p in error.problems if "data-dependent" in p.message]
    assert problem.operator == "aten.repeat_interleave.Tensor"


def test_unbounded_dynamic_dimension():
    error = _edge_error(nn.ReLU(), torch.randn(4), dynamic_shapes=({0: torch.export.Dim("n")},))
    (problem,) = error.problems
    assert "no upper bound" in problem.message and "input" in problem.message


def test_method_name_is_reported():
    ep = torch.export.export(UsesComplex(), (torch.randn(4),))
    with pytest.raises(ExportError) as info:
        torchedge.to_edge({"decode": ep})
    assert info.value.problems[0].method == "decode"


def test_verification_can_be_skipped_for_inspection():
    ep = torch.export.export(UsesComplex(), (torch.randn(4),))
    edge = torchedge.to_edge(ep, verify=False)
    assert edge.methods == ("forward",)


def test_mutated_buffers_are_accepted_but_mutated_inputs_are_reported():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(1))

        def forward(self, x):
            self.count.add_(1)
            return x + self.count

    class MutatesInput(nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    torchedge.to_edge(torch.export.export(Counter(), (torch.randn(1),)))  # state is supported
    error = _edge_error(MutatesInput(), torch.randn(1))
    assert any("mutates its input 'x'" in p.message for p in error.problems)
    # The problem names the in-place op, the user's line and what to change.
    problem = next(p for p in error.problems if "mutates its input 'x'" in p.message)
    assert problem.operator == "aten.add.Scalar", problem
    assert "x.add_(1)" in (problem.location or ""), problem
    assert "x.clone()" in problem.message and "register_buffer" in problem.message
