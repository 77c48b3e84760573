"""Names for torch.return_types in pytree specs, so that programs returning
them (torch.max(x, dim), sort, topk, cummax, kthvalue, ...) can be saved.

torch registers each torch.return_types class as a pytree node without a
serialized name, so `treespec_dumps` (the emitter's output structure) and
`treespec_loads` (the runtime's) refuse them. `name_return_types()` gives
each class its qualified name, "torch.return_types.<name>", in both
directions; it runs when torchedge.edge is imported (the runtime's import
of torchedge does that too) and leaves named types alone.
"""

from __future__ import annotations

import torch
from torch.utils import _pytree as pytree

def name_return_types() -> int:
    """Names every unnamed torch.return_types node type; returns how many."""
    named = 0
    for cls, node_def in list(pytree.SUPPORTED_SERIALIZED_TYPES.items()):
        if getattr(cls, "__module__", None) != "torch.return_types":
            continue
        if node_def.serialized_type_name != pytree.NO_SERIALIZED_TYPE_NAME_FOUND:
            continue
        name = f"torch.return_types.{cls.__name__}"
        if pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE.get(name, cls) is not cls:
            continue
        pytree.SUPPORTED_SERIALIZED_TYPES[cls] = node_def._replace(serialized_type_name=name)
        pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls
        named += 1
    return named

name_return_types()
del torch
