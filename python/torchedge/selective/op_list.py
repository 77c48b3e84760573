"""The op list of a selective build: operators and the dtypes each is used with.

The file (YAML) that `torchedge selective-build` writes and CMake reads
(-DTORCHEDGE_SELECTED_OPS=ops.yaml, scripts/generate_selected_kernels.py):

    # optional comments
    operators:
      aten::convolution.out: [float32]
      aten::add.out: [float32, int64]
      quantized_decomposed::quantize_per_tensor.out: [float32, int8]
      aten::relu.out: all            # hand-written: every dtype the kernel has

A dtype list names the dtypes of every tensor argument of the operator's
calls (inputs and outputs), so a kernel whose dispatch switches on any of
them finds its case compiled. `all` (or an empty list) keeps every dtype.

This module needs only the standard library (PyYAML when present): the build
runs it by path, with whatever Python CMake found, before the torchedge
package (and torch) may be importable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Union

try:
    import yaml
except ModuleNotFoundError:  # a bare interpreter: the format's own subset below
    yaml = None

# Dtype names (as kernels/portable/operators.toml spells them) and their
# ScalarType wire values (runtime/core/scalar_type.h).
WIRE_VALUE = {
    "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
    "float32": 6, "float64": 7, "bool": 11, "bfloat16": 15,
}
ALL = "all"


@dataclass
class OpList:
    """Operator name -> sorted dtype names, or None for every dtype."""

    operators: dict[str, Optional[tuple[str, ...]]] = field(default_factory=dict)

    def add(self, name: str, dtypes: Optional[Iterable[str]]) -> None:
        """Merges one use: None (every dtype) absorbs any list."""
        if name in self.operators and self.operators[name] is None:
            return
        if dtypes is None:
            self.operators[name] = None
            return
        merged = set(self.operators.get(name) or ()) | {check_dtype(d, name) for d in dtypes}
        self.operators[name] = tuple(sorted(merged, key=_dtype_order))

    def merge(self, other: "OpList") -> None:
        for name, dtypes in other.operators.items():
            self.add(name, dtypes)

    def dtype_mask(self, name: str) -> Optional[int]:
        """Bit i set for wire value i; None when every dtype is selected."""
        dtypes = self.operators[name]
        if dtypes is None:
            return None
        mask = 0
        for dtype in dtypes:
            mask |= 1 << WIRE_VALUE[dtype]
        return mask


def _dtype_order(name: str) -> int:
    return list(WIRE_VALUE).index(name)


def check_dtype(dtype: str, op: str) -> str:
    if dtype not in WIRE_VALUE:
        raise ValueError(f"{op}: unknown dtype {dtype!r}; expected one of {', '.join(WIRE_VALUE)} or '{ALL}'")
    return dtype


def parse(data: Mapping, source: str = "op list") -> OpList:
    """Validates a loaded YAML document (errors name `source` and the entry)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("operators"), Mapping):
        raise ValueError(f"{source}: expected a mapping with an 'operators' mapping "
                         "(operator name -> list of dtypes or 'all')")
    ops = OpList()
    for name, dtypes in data["operators"].items():
        if not isinstance(name, str) or "::" not in name:
            raise ValueError(f"{source}: operator names look like 'aten::add.out', found {name!r}")
        if dtypes in (None, ALL) or dtypes == []:
            ops.add(name, None)
        elif isinstance(dtypes, list) and all(isinstance(d, str) for d in dtypes):
            ops.add(name, dtypes)
        else:
            raise ValueError(f"{source}: {name}: expected a list of dtype names or '{ALL}', found {dtypes!r}")
    return ops


def _parse_subset(text: str, source: str) -> dict:
    """The YAML this module writes (and people write by hand): an
    `operators:` mapping of `name: [dtype, ...]`, `name: all` or `name: []`."""
    operators: dict = {}
    seen_header = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if line == "operators:":
            seen_header = True
            continue
        name, sep, value = line.strip().rpartition(": ") if ": " in line else (line.strip().rstrip(":"), ":", "")
        if not seen_header or not raw.startswith((" ", "\t")) or not sep:
            raise ValueError(f"{source}:{number}: expected '  operator: [dtypes]' under 'operators:'")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            operators[name] = [d.strip() for d in value[1:-1].split(",") if d.strip()]
        elif value in ("", ALL):
            operators[name] = None if value == "" else ALL
        else:
            raise ValueError(f"{source}: {name}: expected a list of dtype names or '{ALL}', found {value!r}")
    return {"operators": operators} if seen_header else {}


def load(path: Union[str, Path]) -> OpList:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = yaml.safe_load(text) if yaml is not None else _parse_subset(text, str(path))
    return parse(data, str(path))


def render(ops: OpList, header: Iterable[str] = ()) -> str:
    lines = [f"# {line}" for line in header]
    lines.append("operators:")
    for name in sorted(ops.operators):
        dtypes = ops.operators[name]
        lines.append(f"  {name}: {ALL if dtypes is None else '[' + ', '.join(dtypes) + ']'}")
    return "\n".join(lines) + "\n"


def parse_op_spec(spec: str) -> tuple[str, Optional[list[str]]]:
    """'aten::add.out:float32,int64' or 'aten::add.out' (every dtype)."""
    name, sep, dtypes = spec.rpartition(":") if spec.count(":") > 2 else (spec, "", "")
    if not sep or dtypes == ALL:
        return name, None
    return name, [d.strip() for d in dtypes.split(",") if d.strip()]
