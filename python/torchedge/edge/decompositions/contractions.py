"""_trilinear (F.bilinear's core) as broadcast products and a sum: each
input is unsqueezed at its `expand` dims, the three are multiplied and
`sumdim` is summed away. Memory is the full broadcast product
(batch x out x in1 x in2 for bilinear), where a kernel would contract in
two matmuls; fine for the small layers that use it."""

from __future__ import annotations

from typing import Sequence

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _expanded(x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
    for d in sorted(dims):
        x = aten.unsqueeze.default(x, d)
    return x


@decomposes(aten._trilinear.default)
def trilinear(i1: torch.Tensor, i2: torch.Tensor, i3: torch.Tensor, expand1: Sequence[int],
              expand2: Sequence[int], expand3: Sequence[int], sumdim: Sequence[int],
              unroll_dim: int = 1) -> torch.Tensor:
    product = aten.mul.Tensor(aten.mul.Tensor(_expanded(i1, expand1), _expanded(i2, expand2)),
                              _expanded(i3, expand3))
    return aten.sum.dim_IntList(product, list(sumdim), False) if sumdim else product
