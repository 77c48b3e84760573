"""Which OpInfo ops and samples the sweep runs, and the module each becomes.

An OpInfo op is swept with the first sample (`op.sample_inputs(cpu, dtype)`)
whose input, args and kwargs are plain: nested lists / tuples / dicts whose
leaves are strided CPU tensors (complex only when the sweep's dtype is),
Python bool / int / float,
None, str or torch.dtype (factory ops have no tensor at all). The sample's
tensors become the exported module's inputs; everything else is a constant
of the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch.utils import _pytree as pytree

# Ops whose output is drawn at random or is uninitialized memory: no eager
# value to compare against, so they are not counted (matched by OpInfo name).
RANDOM_OR_UNINITIALIZED = frozenset({
    "bernoulli", "cauchy", "empty", "empty_like", "empty_permuted", "empty_strided",
    "exponential", "geometric", "log_normal", "multinomial", "new_empty", "new_empty_strided",
    "normal", "rand_like", "randint", "randint_like", "randn", "randn_like", "uniform",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
    "nn.functional.rrelu", "torch._C._nn.rrelu", "randperm", "rand", "poisson",
    "_refs.empty", "_refs.rand", "_refs.randn",
    "svd_lowrank", "pca_lowrank",  # random projections
})

_SCALARS = (bool, int, float, str, type(None), torch.dtype)


def op_key(op: Any) -> str:
    """The OpInfo entry's name: `name` or `name.variant_test_name`."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def is_random(op: Any) -> bool:
    return op.name in RANDOM_OR_UNINITIALIZED or op.name.startswith(("rand", "empty"))


def _is_plain(sample: Any, dtype: torch.dtype) -> bool:
    leaves = pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            if (leaf.layout != torch.strided or leaf.device.type != "cpu"
                    or (leaf.is_complex() and not dtype.is_complex)):
                return False
        elif not isinstance(leaf, _SCALARS):
            return False
    return True


def first_plain_sample(op: Any, dtype: torch.dtype) -> Optional[Any]:
    """The first plain sample of `op` in `dtype`, or None. The samples are
    drawn from a generator seeded with 0, so every run sees the same values."""
    torch.manual_seed(0)
    try:
        for sample in op.sample_inputs("cpu", dtype, requires_grad=False):
            if _is_plain(sample, dtype):
                return sample
    except Exception:  # an OpInfo without samples for this dtype
        return None
    return None


class OpModule(torch.nn.Module):
    """`op(sample.input, *sample.args, **sample.kwargs)` with the sample's
    tensors as the module's inputs, in pytree order."""

    def __init__(self, op: Callable[..., Any], structure: Any, leaves: list[Any]) -> None:
        super().__init__()
        self._op = op
        self._structure = structure
        self._leaves = leaves  # None where a tensor input goes

    def forward(self, *tensors: torch.Tensor) -> Any:
        it = iter(tensors)
        leaves = [next(it) if leaf is None and is_slot else leaf
                  for leaf, is_slot in self._leaves]
        inp, args, kwargs = pytree.tree_unflatten(leaves, self._structure)
        return self._op(inp, *args, **kwargs)


@dataclass
class Case:
    """One sample, ready to export: the module and its tensor inputs."""

    module: OpModule
    inputs: tuple[torch.Tensor, ...]

    def fresh_inputs(self) -> tuple[torch.Tensor, ...]:
        return tuple(t.clone() for t in self.inputs)


def make_case(op: Any, sample: Any) -> Case:
    leaves, structure = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    slots = [(None, True) if isinstance(x, torch.Tensor) else (x, False) for x in leaves]
    tensors = tuple(x.detach().clone() for x in leaves if isinstance(x, torch.Tensor))
    return Case(OpModule(op.op, structure, slots), tensors)
