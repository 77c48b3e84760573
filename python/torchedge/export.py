"""Capturing a model's methods with torch.export, and the one-call `lower`."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

import torch
from torch.export import ExportedProgram

from torchedge.program import PteProgram

ExampleInputs = Union[tuple, Mapping[str, tuple]]


class _MethodAsForward(torch.nn.Module):
    """Exposes `model.<method>` as forward, so torch.export can capture it."""

    def __init__(self, model: torch.nn.Module, method: str) -> None:
        super().__init__()
        self.model = model
        self.method = method

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.model, self.method)(*args, **kwargs)


def _per_method(value: Any, methods: Sequence[str], what: str) -> dict[str, Any]:
    """{method: value}: `value` keyed by method names, or one value for all."""
    if isinstance(value, Mapping) and value and set(value) <= set(methods):
        missing = [m for m in methods if m not in value]
        if missing and what == "example_inputs":
            raise ValueError(f"{what} has no entry for method(s) {missing}")
        return {m: value.get(m) for m in methods}
    if len(methods) > 1 and what == "example_inputs":
        raise ValueError(f"with several methods, {what} must map each method name to its inputs")
    return {m: value for m in methods}


def export_methods(
    model: torch.nn.Module,
    example_inputs: ExampleInputs,
    dynamic_shapes: Optional[Any] = None,
    methods: Optional[Sequence[str]] = None,
) -> dict[str, ExportedProgram]:
    """torch.export of each method of `model` ("forward" by default).

    With several methods, `example_inputs` (and `dynamic_shapes`, if given)
    map method name -> that method's value.
    """
    methods = list(methods or ["forward"])
    inputs = _per_method(example_inputs, methods, "example_inputs")
    shapes = _per_method(dynamic_shapes, methods, "dynamic_shapes")
    programs = {}
    for name in methods:
        module = model if name == "forward" else _MethodAsForward(model, name)
        args = inputs[name]
        if not isinstance(args, tuple):
            args = (args,)
        programs[name] = torch.export.export(module, args, dynamic_shapes=shapes[name])
    return programs


def lower(
    model: torch.nn.Module,
    example_inputs: ExampleInputs,
    dynamic_shapes: Optional[Any] = None,
    methods: Optional[Sequence[str]] = None,
    **pte_options: Any,
) -> PteProgram:
    """Export, to_edge and to_pte in one call.

        pte = torchedge.lower(model, (x,))
        pte = torchedge.lower(model, {"forward": (x,), "encode": (t,)},
                              methods=["forward", "encode"])
    """
    from torchedge.edge import to_edge

    programs = export_methods(model, example_inputs, dynamic_shapes, methods)
    return to_edge(programs).to_pte(**pte_options)
