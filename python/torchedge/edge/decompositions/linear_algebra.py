"""Matrix-vector products and distances in core ops: addmv, addbmm, dist."""

from __future__ import annotations

import torch

from torchedge.edge.decompositions.reductions import linalg_vector_norm
from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _scaled_sum(input: torch.Tensor, product: torch.Tensor, beta, alpha) -> torch.Tensor:
    """beta * input + alpha * product; input is ignored when beta is 0 (as eager:
    its NaNs do not propagate)."""
    if alpha != 1:
        product = aten.mul.Scalar(product, alpha)
    if beta == 0:
        return aten.add.Tensor(aten.zeros_like.default(product), product)
    if beta != 1:
        input = aten.mul.Scalar(input, beta)
    return aten.add.Tensor(input, product)


@decomposes(aten.addmv.default)
def addmv(input: torch.Tensor, mat: torch.Tensor, vec: torch.Tensor, *, beta=1, alpha=1) -> torch.Tensor:
    product = aten.squeeze.dim(aten.mm.default(mat, aten.unsqueeze.default(vec, 1)), 1)
    return _scaled_sum(input, product, beta, alpha)


@decomposes(aten.addbmm.default)
def addbmm(input: torch.Tensor, batch1: torch.Tensor, batch2: torch.Tensor, *, beta=1,
           alpha=1) -> torch.Tensor:
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    product = aten.sum.dim_IntList(aten.bmm.default(batch1, batch2), [0], False)
    return _scaled_sum(input, product, beta, alpha)


@decomposes(aten.dist.default)
def dist(a: torch.Tensor, b: torch.Tensor, p=2) -> torch.Tensor:
    """The p-norm of a - b over all elements."""
    return linalg_vector_norm(aten.sub.Tensor(a, b), float(p))
