"""to_edge: Core ATen, no views, no numbers in Tensor slots, still runs in PyTorch."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from torch._ops import OpOverload
from torch.utils import _pytree as pytree

import torchedge
from models import MODELS
from torchedge.passes.view_copies import is_view


def _edge_nodes(edge, method="forward"):
    return [n for n in edge.exported_program(method).graph.nodes if n.op == "call_function"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_edge_program_matches_eager(name):
    model, inputs = MODELS[name]()
    programs = torchedge.export_methods(model, inputs, methods=list(inputs))
    edge = torchedge.to_edge(programs)
    assert edge.methods == tuple(inputs)
    for method, args in inputs.items():
        expected = getattr(model, method)(*args)
        got = edge.exported_program(method).module()(*args)
        for e, g in zip(pytree.tree_leaves(expected), pytree.tree_leaves(got)):
            torch.testing.assert_close(g, e)
        for node in _edge_nodes(edge, method):
            if isinstance(node.target, OpOverload):
                assert not is_view(node.target), node.format_node()
                assert torch.Tag.core in node.target.tags or torch.Tag.view_copy in node.target.tags


def test_views_become_copies_with_contiguous_strides():
    class M(nn.Module):
        def forward(self, x):
            return x.permute(1, 0).relu().reshape(-1), x.detach(), x[1:, 0]

    edge = torchedge.to_edge(torch.export.export(M(), (torch.randn(3, 4),)))
    targets = {str(n.target) for n in _edge_nodes(edge)}
    assert {"aten.permute_copy.default", "aten.view_copy.default", "aten.slice_copy.Tensor",
            "aten.select_copy.int"} <= targets
    relu = next(n for n in _edge_nodes(edge) if n.target == torch.ops.aten.relu.default)
    assert relu.meta["val"].is_contiguous()  # strides follow the copy, not the view
    ep = edge.exported_program()
    names = [spec.arg.name for spec in ep.graph_signature.output_specs]
    assert names == [n.name for n in ep.graph.output_node().args[0]]
    x = torch.randn(3, 4)
    for got, want in zip(ep.module()(x), M()(x)):
        torch.testing.assert_close(got, want)


def test_numbers_in_tensor_slots_use_scalar_overloads():
    class M(nn.Module):
        def forward(self, x):
            return x * 2, x - 1.5, torch.where(x > 0, x, 0.0), x ** 2

    edge = torchedge.to_edge(torch.export.export(M(), (torch.randn(5),)))
    for node in _edge_nodes(edge):
        schema = node.target._schema
        for argument, value in zip(schema.arguments, node.args):
            if str(argument.real_type) == "Tensor":
                assert isinstance(value, torch.fx.Node), node.format_node()
    x = torch.randn(5)
    for got, want in zip(edge.exported_program().module()(x), M()(x)):
        torch.testing.assert_close(got, want)


def test_input_program_is_not_modified():
    ep = torch.export.export(nn.Linear(3, 2), (torch.randn(1, 3),))
    before = str(ep.graph)
    torchedge.to_edge(ep)
    assert str(ep.graph) == before


def test_method_names_are_validated():
    ep = torch.export.export(nn.ReLU(), (torch.randn(2),))
    with pytest.raises(ValueError):
        torchedge.to_edge({"not a name": ep})
    with pytest.raises(KeyError, match="forward"):
        torchedge.to_edge(ep).exported_program("missing")


def test_constant_folding_transposes_weights_once():
    model, inputs = MODELS["mlp"]()
    edge = torchedge.to_edge(torchedge.export_methods(model, inputs))
    targets = [str(n.target) for n in _edge_nodes(edge)]
    assert "aten.permute_copy.default" not in targets
    ep = edge.exported_program()
    assert not ep.state_dict or all(t.startswith("_folded") for t in ep.constants)
    stored = sum(t.numel() for t in list(ep.state_dict.values()) + list(ep.constants.values()))
    assert stored == sum(p.numel() for p in model.parameters())  # moved, not duplicated
    unfolded = torchedge.to_edge(torchedge.export_methods(model, inputs), fold_constants=False)
    assert "aten.permute_copy.default" in [str(n.target) for n in _edge_nodes(unfolded)]


def test_constant_folding_computes_masks_but_not_growing_weights():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(128, 128))

        def forward(self, x):
            mask = torch.ones(4, 4, dtype=torch.bool).tril()
            big = self.w.expand(3, 128, 128)  # 3x the weight: not worth storing
            return x.masked_fill(~mask, 0.0), big * 2

    edge = torchedge.to_edge(torch.export.export(M(), (torch.randn(4, 4),)))
    targets = {str(n.target) for n in _edge_nodes(edge)}
    assert "aten.expand_copy.default" in targets
    assert not targets & {"aten.full.default", "aten.arange.start_step", "aten.bitwise_not.default"}


def test_constant_folding_keeps_weights_shared_with_other_methods():
    model, inputs = MODELS["shared_weights"]()
    edge = torchedge.to_edge(torchedge.export_methods(model, inputs, methods=list(inputs)))
    project = [str(n.target) for n in _edge_nodes(edge, "project")]
    assert "aten.permute_copy.default" in project  # W.t() computed, W stored once
