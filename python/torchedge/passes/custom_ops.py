"""Defining torchedge's runtime-only custom operators in one place.

Every such operator comes as `ns::name(arguments) -> Tensor`, implemented in
eager by a reference function (the op's definition, which the runtime's
portable kernel matches), and `ns::name.out(arguments, *, Tensor(a!) out)`,
the runtime kernel's schema. The Library objects are kept here: torch drops
a fragment's registrations when its Library is garbage collected.
"""

from __future__ import annotations

from typing import Callable

import torch

_LIBRARIES: dict[str, torch.library.Library] = {}


def define_out_op(namespace: str, name: str, arguments: str, reference: Callable,
                  fake: Callable) -> None:
    """Defines namespace::name and its .out overload (once: a reloaded module
    finds them defined and leaves them)."""
    if hasattr(getattr(torch.ops, namespace), name):
        return
    library = _LIBRARIES.get(namespace)
    if library is None:
        library = _LIBRARIES[namespace] = torch.library.Library(namespace, "FRAGMENT")
    library.define(f"{name}({arguments}) -> Tensor")
    library.define(f"{name}.out({arguments}, *, Tensor(a!) out) -> Tensor(a!)")
    library.impl(name, reference, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{namespace}::{name}", fake, lib=library)
