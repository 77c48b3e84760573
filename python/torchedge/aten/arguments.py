"""Binding a node's args/kwargs to the names of an ATen schema."""

from __future__ import annotations

from typing import Any

import torch

def bind_arguments(schema: torch.FunctionSchema, args: tuple, kwargs: dict) -> dict[str, Any]:
    """{argument name: value} for the arguments the call passes explicitly."""
    if len(args) > len(schema.arguments):
        raise TypeError(f"{schema.name}: {len(args)} positional arguments, schema has {len(schema.arguments)}")
    bound = {a.name: v for a, v in zip(schema.arguments, args)}
    for name, value in kwargs.items():
        if name in bound:
            raise TypeError(f"{schema.name}: argument '{name}' passed twice")
        bound[name] = value
    return bound


def default_value(argument: torch.Argument) -> Any:
    """The schema default; None for an Optional without one; raises if required."""
    if argument.has_default_value():
        return argument.default_value
    if isinstance(argument.type, torch.OptionalType):
        return None
    raise TypeError(f"argument '{argument.name}' has no value and no default")


def with_defaults(schema: torch.FunctionSchema, bound: dict[str, Any]) -> list[tuple[torch.Argument, Any]]:
    """Every argument of `schema` in order, with its bound or default value."""
    return [
        (a, bound[a.name] if a.name in bound else default_value(a))
        for a in schema.arguments
    ]


def call_arguments(schema: torch.FunctionSchema, values: dict[str, Any]) -> tuple[tuple, dict]:
    """(args, kwargs) calling `schema` with `values`; absent names are left out.

    Positional as far as every earlier positional argument is present,
    keywords after that.
    """
    args = []
    for argument in schema.arguments:
        if argument.kwarg_only or argument.name not in values:
            break
        args.append(values[argument.name])
    kwargs = {
        a.name: values[a.name] for a in schema.arguments[len(args):] if a.name in values
    }
    return tuple(args), kwargs
