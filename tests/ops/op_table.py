"""The op table: one OpSpec (harness.py) per portable kernel, by group.

    spec = op_table.spec("aten::add.out")

Groups mirror kernels/portable/<group>_kernels.inc. The elementwise, shape,
nn and nn3 entries live in op_table_<group>.py; the math and nn2
entries' `dtypes` are exactly the dtypes eager CPU accepts for the op, and
test_operator_listing.py checks each of them is listed (so proven). A kernel without an entry here cannot
be listed with dtypes in kernels/portable/operators.toml
(test_operator_listing.py).
"""

from __future__ import annotations

import dataclasses
import importlib

import torch

from harness import OpSpec

_GROUP_MODULES = {
    "elementwise": "op_table_elementwise",
    "shape": "op_table_shape",
    "nn": "op_table_nn",
    "math": "op_table_math",
    "nn2": "op_table_nn2",
    "nn3": "op_table_nn3",
    "strided": "op_table_strided",
    "complex": "op_table_complex",
    "data_dependent": "op_table_data_dependent",
    "special": "op_table_special",
    "linalg": "op_table_linalg",
}


def _index() -> dict[str, OpSpec]:
    table: dict[str, OpSpec] = {}
    for module_name in _GROUP_MODULES.values():
        for spec in importlib.import_module(module_name).SPECS:
            if spec.name in table:
                raise ValueError(f"op table lists {spec.name} twice")
            table[spec.name] = spec
    return _offer_complex(table)


def _offer_complex(table: dict[str, OpSpec]) -> dict[str, OpSpec]:
    """Adds the complex dtypes to the specs of the data-movement kernels
    that serve them and of the kernels that compute in them
    (op_table_complex.COMPLEX_DATA_MOVEMENT, COMPLEX_ARITHMETIC)."""
    complex_table = importlib.import_module("op_table_complex")
    for name in complex_table.COMPLEX_DATA_MOVEMENT + complex_table.COMPLEX_ARITHMETIC:
        extra = complex_table.COMPLEX_DTYPES
        if name in complex_table.COMPLEX_HALF_MOVEMENT:
            extra = extra + (torch.complex32,)
        spec = table[name]
        table[name] = dataclasses.replace(spec, dtypes=tuple(spec.dtypes) + extra)
    return table


OP_TABLE: dict[str, OpSpec] = _index()


def spec(name: str) -> OpSpec:
    try:
        return OP_TABLE[name]
    except KeyError:
        raise KeyError(f"no op-table entry for kernel {name}") from None
