"""compare(): how far a quantized program is from its eager reference and from float.

    report = compare(float_model, ep.module(), torchedge.runtime.load(pte.buffer),
                     batches, labels=y)
    print(report)        # SQNR (dB) / max |error| for runtime~reference, reference~float,
                         # runtime~float; top-1 agreement and accuracies when asked

SQNR(signal, other) = 10 log10(sum signal^2 / sum (signal - other)^2) over all
outputs of all batches (inf when identical). Top-1 compares argmax over the
last dimension of the first output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

import torch
from torch.utils import _pytree as pytree


def sqnr_db(signal: torch.Tensor, other: torch.Tensor) -> float:
    """Signal-to-quantization-noise ratio of `other` against `signal`, in dB."""
    signal, other = signal.to(torch.float64), other.to(torch.float64)
    noise = (signal - other).pow(2).sum().item()
    power = signal.pow(2).sum().item()
    if noise == 0.0:
        return math.inf
    if power == 0.0:
        return -math.inf
    return 10.0 * math.log10(power / noise)


@dataclass
class Difference:
    sqnr_db: float
    max_abs_error: float

    @staticmethod
    def between(signal: torch.Tensor, other: torch.Tensor) -> "Difference":
        max_error = (signal - other).abs().max().item() if signal.numel() else 0.0
        return Difference(sqnr_db(signal, other), max_error)


@dataclass
class ComparisonReport:
    runtime_vs_reference: Difference
    reference_vs_float: Difference
    runtime_vs_float: Difference
    top1: dict[str, float] = field(default_factory=dict)  # agreement and accuracies, when asked

    def __str__(self) -> str:
        rows = [("runtime vs eager-quantized", self.runtime_vs_reference),
                ("eager-quantized vs float", self.reference_vs_float),
                ("runtime vs float", self.runtime_vs_float)]
        width = max(len(name) for name in [r[0] for r in rows] + list(self.top1))
        lines = [f"{'':{width}s} {'SQNR dB':>9s} {'max |err|':>11s}"]
        lines += [f"{name:{width}s} {d.sqnr_db:9.2f} {d.max_abs_error:11.3g}" for name, d in rows]
        lines += [f"{name:{width}s} {value:9.4f}" for name, value in self.top1.items()]
        return "\n".join(lines)


def _eval_mode(model: Any) -> None:
    """Eval mode for eager modules; exported modules refuse eval() (they are fixed already)."""
    if isinstance(model, torch.nn.Module):
        try:
            model.eval()
        except NotImplementedError:
            pass


def _call(runner: Any) -> Callable[..., Any]:
    """A loaded torchedge program runs its `forward`; anything else is called."""
    forward = getattr(runner, "forward", None)
    if forward is not None and not isinstance(runner, torch.nn.Module):
        return forward
    return runner


def _run(runner: Any, batches: list[tuple]) -> tuple[torch.Tensor, torch.Tensor]:
    """(all float outputs of all batches flattened and concatenated,
    the first output of every batch concatenated along dim 0)."""
    call = _call(runner)
    flat, first = [], []
    with torch.no_grad():
        for batch in batches:
            leaves = [t.detach() for t in pytree.tree_leaves(call(*batch)) if isinstance(t, torch.Tensor)]
            if not leaves:
                raise ValueError(f"{type(runner).__name__} returned no tensor")
            flat += [t.to(torch.float32).reshape(-1) for t in leaves]
            first.append(leaves[0])
    return torch.cat(flat), torch.cat(first)


def compare(reference_float: Any, quantized_reference: Any, program: Any,
            inputs: Iterable[Any], *, top1: bool = False,
            labels: Optional[torch.Tensor] = None) -> ComparisonReport:
    """Runs float model, eager quantized reference and the runtime program on
    `inputs` (an iterable of batches: a tensor or a tuple of inputs each) and
    reports their differences. With `top1` (or `labels`), also the fraction
    of predictions (argmax of the first output) where runtime and reference,
    and reference and float, agree; with `labels`, the three accuracies.
    """
    batches = [tuple(b) if isinstance(b, (tuple, list)) else (b,) for b in inputs]
    if not batches:
        raise ValueError("compare() needs at least one batch of inputs")
    for model in (reference_float, quantized_reference):
        _eval_mode(model)
    (y_float, first_float), (y_ref, first_ref), (y_run, first_run) = (
        _run(r, batches) for r in (reference_float, quantized_reference, program))
    if not (y_float.shape == y_ref.shape == y_run.shape):
        raise ValueError(f"outputs differ in size: float {tuple(y_float.shape)}, eager-quantized "
                         f"{tuple(y_ref.shape)}, runtime {tuple(y_run.shape)}")
    report = ComparisonReport(Difference.between(y_ref, y_run), Difference.between(y_float, y_ref),
                              Difference.between(y_float, y_run))
    if top1 or labels is not None:
        predictions = {"float": first_float.argmax(dim=-1), "eager-quantized": first_ref.argmax(dim=-1),
                       "runtime": first_run.argmax(dim=-1)}
        agree = lambda a, b: (predictions[a] == predictions[b]).double().mean().item()  # noqa: E731
        report.top1["top-1 agreement runtime~eager-quantized"] = agree("runtime", "eager-quantized")
        report.top1["top-1 agreement eager-quantized~float"] = agree("eager-quantized", "float")
        if labels is not None:
            for name, predicted in predictions.items():
                correct = predicted == labels.reshape(predicted.shape)
                report.top1[f"accuracy {name}"] = correct.double().mean().item()
    return report
