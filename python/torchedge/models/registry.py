"""The table of built-in models: name -> how to build it with example inputs.

Definition modules (models/basic.py, models/zoo_*.py) register their builders
here with @register; this module imports none of them. The package
(models/__init__.py) imports every definition module, so the table is full
once `torchedge.models` is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import torch


@dataclass
class ModelSpec:
    name: str
    description: str
    module: torch.nn.Module
    # Per method: the example inputs (a tuple). "forward" for single-method models.
    example_inputs: Mapping[str, tuple]
    methods: tuple[str, ...] = ("forward",)
    extra: dict[str, Any] = field(default_factory=dict)

    def inputs(self, method: str = "forward") -> tuple:
        return self.example_inputs[method]

    def lower_inputs(self) -> Any:
        """example_inputs in the form torchedge.lower expects."""
        if self.methods == ("forward",):
            return self.example_inputs["forward"]
        return dict(self.example_inputs)


_BUILDERS: dict[str, tuple[str, Callable[[], ModelSpec]]] = {}


def register(name: str, description: str) -> Callable[[Callable[[], ModelSpec]], Callable[[], ModelSpec]]:
    def wrap(builder: Callable[[], ModelSpec]) -> Callable[[], ModelSpec]:
        _BUILDERS[name] = (description, builder)
        return builder

    return wrap


def available() -> dict[str, str]:
    """Model name -> one-line description."""
    return {name: description for name, (description, _) in _BUILDERS.items()}


def get(name: str, seed: int = 0) -> ModelSpec:
    """Builds model `name` in eval mode with weights drawn from `seed`."""
    if name not in _BUILDERS:
        raise KeyError(f"unknown model '{name}'; available: {', '.join(sorted(_BUILDERS))}")
    torch.manual_seed(seed)
    spec = _BUILDERS[name][1]()
    spec.module.eval()
    return spec

