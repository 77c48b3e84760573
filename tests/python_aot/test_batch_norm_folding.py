"""fold_batch_norms: conv + inference batch norm become one convolution."""

from __future__ import annotations

import torch
from torch import nn

import torchedge
from torchedge import runtime


def _edge_ops(module: nn.Module, x: torch.Tensor, **options) -> tuple[list[str], torchedge.EdgeProgram]:
    edge = torchedge.to_edge(torch.export.export(module.eval(), (x,)), **options)
    ops = [str(n.target) for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    return ops, edge


def _conv_bn(conv: nn.Conv2d) -> nn.Sequential:
    bn = nn.BatchNorm2d(conv.out_channels)
    with torch.no_grad():  # non-trivial statistics and affine parameters
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    return nn.Sequential(conv, bn, nn.ReLU())


def test_conv_batch_norm_is_one_convolution_matching_eager():
    torch.manual_seed(0)
    model = nn.Sequential(_conv_bn(nn.Conv2d(3, 8, 3, padding=1)),
                          _conv_bn(nn.Conv2d(8, 8, 3, groups=8, bias=False)))
    x = torch.randn(2, 3, 10, 10)
    ops, edge = _edge_ops(model, x)
    assert not any("batch_norm" in op for op in ops), ops
    assert ops.count("aten.convolution.default") == 2
    unfolded_ops, unfolded = _edge_ops(model, x, fold_constants=False)
    assert sum("batch_norm" in op for op in unfolded_ops) == 2
    folded_bytes = sum(t.nbytes for t in edge.exported_program().state_dict.values())
    assert folded_bytes < sum(t.nbytes for t in unfolded.exported_program().state_dict.values())
    with torch.no_grad():
        expected = model(x)
    actual = runtime.load(edge.to_pte().buffer).forward(x)
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-5)


def test_a_shared_weight_is_left_alone():
    conv = nn.Conv2d(3, 4, 1)
    bn = nn.BatchNorm2d(4)

    class SharedWeight(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = conv, bn

        def forward(self, x):  # the weight feeds a second op: folding would store it twice
            return self.bn(self.conv(x)) + self.conv.weight.sum()

    ops, _ = _edge_ops(SharedWeight(), torch.randn(1, 3, 4, 4))
    assert any("batch_norm" in op for op in ops), ops
