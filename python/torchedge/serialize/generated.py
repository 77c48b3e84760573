"""Access to the Python code flatc generates from schema/program.fbs.

The generated package lives in `torchedge/serialize/_generated/` and is built,
not committed (`make build` runs the command below). flatc writes absolute
imports such as `from executorch_flatbuffer.Chain import Chain` inside the
accessors of nested tables, so the package is also registered under its
top-level name `executorch_flatbuffer`.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

_PACKAGE = "torchedge.serialize._generated.executorch_flatbuffer"
FLATC_COMMAND = (
    "flatc --python -o python/torchedge/serialize/_generated "
    "schema/program.fbs schema/scalar_type.fbs"
)


def _load_package() -> ModuleType:
    try:
        package = importlib.import_module(_PACKAGE)
    except ImportError as error:
        raise ImportError(
            "torchedge's flatbuffer code is not generated yet: run `make build`, "
            f"or from the repository root `{FLATC_COMMAND}`"
        ) from error
    sys.modules.setdefault("executorch_flatbuffer", package)
    return package


_load_package()


def table(name: str) -> ModuleType:
    """The generated module of one schema table, e.g. table("Tensor")."""
    return importlib.import_module(f"{_PACKAGE}.{name}")
