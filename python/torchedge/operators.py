"""What the portable kernel library implements: operators and their dtypes.

    from torchedge import operators
    operators.is_supported("aten::add.out", torch.float16)     # True / False
    operators.lookup("aten::add.out").dtypes                    # ("float32", ...)
    for entry in operators.entries(): ...

The source of truth is kernels/portable/operators.toml, one entry per
registered kernel:

    [[operator]]
    name = "aten::add.out"          # the kernel name a .pte file calls
    group = "elementwise"           # the kernels/portable/<group>_kernels.inc it is listed in
    dtypes = ["float32", "int64"]   # dtypes the op-test harness proves against eager PyTorch
    notes = "..."                   # optional

tests/ops/test_operator_listing.py keeps the file equal to the kernels
linked into the runtime, and tests/ops/test_portable_ops.py runs every
(operator, dtype) pair listed here against eager PyTorch, so the listing is
proven, not claimed. docs/operators.md is generated from it
(scripts/generate_operator_docs.py).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

# Dtype names of the listing, in the order the docs print them.
DTYPE_NAMES = (
    "float32", "float64", "float16", "bfloat16",
    "int8", "int16", "int32", "int64", "uint8", "bool",
    "complex32", "complex64", "complex128",
)

# A group names the kernels/portable/<group>_kernels.inc that registers the kernel.
_GROUP_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
_NAME_PATTERN = re.compile(r"[A-Za-z_]\w*::\w+(\.\w+)?")

# Where the listing lives in a source checkout (python/torchedge/ -> repo root).
# TORCHEDGE_OPERATORS_TOML points elsewhere (an installed package, a test).
_DEFAULT_PATH = Path(__file__).resolve().parents[2] / "kernels" / "portable" / "operators.toml"

DtypeLike = Union[str, "torch.dtype"]  # noqa: F821 (torch is imported lazily)


@dataclass(frozen=True)
class OperatorEntry:
    """One kernel of the portable library."""

    name: str                   # "aten::add.out" (prim kernels may have no overload)
    group: str                  # "elementwise", "nn", "shape", ... (its .inc file)
    dtypes: tuple[str, ...]     # proven dtypes, in DTYPE_NAMES order
    notes: str = ""

    def supports(self, dtype: DtypeLike) -> bool:
        return dtype_name(dtype) in self.dtypes


def listing_path() -> Path:
    return Path(os.environ.get("TORCHEDGE_OPERATORS_TOML", _DEFAULT_PATH))


def dtype_name(dtype: DtypeLike) -> str:
    """"float32" for torch.float32 or "float32"; ValueError for others."""
    name = dtype if isinstance(dtype, str) else str(dtype).replace("torch.", "")
    aliases = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
               "int": "int32", "short": "int16", "cfloat": "complex64", "cdouble": "complex128",
               "chalf": "complex32"}
    name = aliases.get(name, name)
    if name not in DTYPE_NAMES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPE_NAMES)}")
    return name


def parse_listing(text: str, source: str = "operators.toml") -> tuple[OperatorEntry, ...]:
    """Parses and validates the TOML text; ValueError names the bad entry."""
    data = tomllib.loads(text)
    unknown = set(data) - {"operator"}
    if unknown:
        raise ValueError(f"{source}: unexpected top-level keys {sorted(unknown)}")
    entries, seen = [], set()
    for index, raw in enumerate(data.get("operator", [])):
        where = f"{source}: operator #{index + 1} ({raw.get('name', '?')})"
        extra = set(raw) - {"name", "group", "dtypes", "notes"}
        if extra:
            raise ValueError(f"{where}: unexpected keys {sorted(extra)}")
        name, group = raw.get("name"), raw.get("group")
        if not isinstance(name, str) or not _NAME_PATTERN.fullmatch(name):
            raise ValueError(f"{where}: name must look like 'namespace::op.overload' (or 'namespace::op')")
        if name in seen:
            raise ValueError(f"{where}: listed twice")
        if not isinstance(group, str) or not _GROUP_PATTERN.fullmatch(group):
            raise ValueError(f"{where}: group must name a <group>_kernels.inc, got {group!r}")
        dtypes = raw.get("dtypes", [])
        bad = [d for d in dtypes if d not in DTYPE_NAMES]
        if bad or len(set(dtypes)) != len(dtypes):
            raise ValueError(f"{where}: dtypes must be distinct names from {DTYPE_NAMES}, got {dtypes}")
        notes = raw.get("notes", "")
        if not isinstance(notes, str):
            raise ValueError(f"{where}: notes must be a string")
        ordered = tuple(d for d in DTYPE_NAMES if d in dtypes)
        entries.append(OperatorEntry(name, group, ordered, notes))
        seen.add(name)
    return tuple(entries)


@functools.lru_cache(maxsize=None)
def _load(path: str) -> tuple[OperatorEntry, ...]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"operator listing not found at {path}; set TORCHEDGE_OPERATORS_TOML to "
            "kernels/portable/operators.toml of a torchedge checkout"
        ) from None
    return parse_listing(text, source=path)


def entries() -> tuple[OperatorEntry, ...]:
    """Every listed kernel, in file order."""
    return _load(str(listing_path()))


def lookup(name: str) -> Optional[OperatorEntry]:
    """The entry of kernel `name` ("aten::add.out"), or None when not listed."""
    return next((e for e in entries() if e.name == name), None)


def is_supported(name: str, dtype: DtypeLike) -> bool:
    """Whether kernel `name` is listed as proven for `dtype`."""
    entry = lookup(name)
    return entry is not None and entry.supports(dtype)


def pair_count() -> int:
    """The number of (operator, dtype) pairs listed."""
    return sum(len(e.dtypes) for e in entries())
