"""Serialization of programs to and from .pte bytes.

`schema` mirrors schema/program.fbs as dataclasses; `program_writer` and
`program_reader` translate those to and from the flatbuffer (with flatc's
generated code, see `generated`); `pte_file` adds the extended header and the
data segments. The names below load lazily so that `schema` can be used
before the flatbuffer code is generated.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DEFAULT_SEGMENT_ALIGNMENT": "torchedge.serialize.pte_file",
    "ExtendedHeader": "torchedge.serialize.pte_file",
    "PteFile": "torchedge.serialize.pte_file",
    "deserialize_pte": "torchedge.serialize.pte_file",
    "serialize_pte": "torchedge.serialize.pte_file",
}

__all__ = list(_EXPORTS)

try:  # registers the generated package's top-level alias, if it is built
    from torchedge.serialize import generated as _generated  # noqa: F401
except ImportError:
    pass


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'torchedge.serialize' has no attribute {name!r}")
