"""kernels/portable/operators.toml against the runtime, the op table and the docs.

The listing may not drift: its names are exactly the kernels linked into
the runtime, each in the group of the .inc file that registers it
(kernels/portable/<group>_kernels.inc, or "prim" for kernels/prim); every
(operator, dtype) pair it lists has op-table samples, which
test_portable_ops.py runs against eager; and docs/operators.md is what
scripts/generate_operator_docs.py makes of it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import harness
import op_table
from discover_dtypes import registered_by_group
from torchedge import operators, runtime

REPO = Path(__file__).resolve().parents[2]


def _registering_groups() -> dict[str, str]:
    """kernel name -> group, from the .inc files that register kernels."""
    return dict(registered_by_group())


def test_listing_names_are_exactly_the_registered_kernels():
    listed = [entry.name for entry in operators.entries()]
    # kernels/quantized has its own listing (kernels/quantized/operators.toml,
    # checked by tests/quantization/test_quantized_kernels.py).
    quantized_inc = (REPO / "kernels" / "quantized" / "quantized_kernels.inc").read_text()
    registered = set(runtime.registered_kernels()) - set(
        re.findall(r'^TE_QUANTIZED_KERNEL\("([^"]+)"', quantized_inc, re.M))
    missing = sorted(registered - set(listed))
    stale = sorted(set(listed) - registered)
    assert not missing and not stale, (
        f"kernels/portable/operators.toml is out of date.\n"
        f"  registered but not listed: {missing}\n  listed but not registered: {stale}\n"
        f"Add or remove entries (prove dtypes with tests/ops/discover_dtypes.py), then run "
        f"scripts/generate_operator_docs.py."
    )


def test_each_entry_names_the_group_that_registers_it():
    groups = _registering_groups()
    wrong = {e.name: (e.group, groups.get(e.name)) for e in operators.entries()
             if groups.get(e.name) != e.group}
    assert not wrong, f"(listed group, registering .inc) differ: {wrong}"


def test_every_listed_pair_is_exercised_by_the_harness():
    """test_portable_ops.py runs each listed (operator, dtype): the op table
    must have the operator, offer the dtype and give it samples to run."""
    problems = []
    for entry in operators.entries():
        if not entry.dtypes:
            continue
        spec = op_table.OP_TABLE.get(entry.name)
        if spec is None:
            problems.append(f"{entry.name}: no op-table entry")
            continue
        for name in entry.dtypes:
            dtype = harness.dtype_from_name(name)
            if dtype not in spec.dtypes:
                problems.append(f"{entry.name}: the op table does not offer {name}")
            elif not harness.selected(harness.make_samples(spec, dtype), dtype, exhaustive=False):
                problems.append(f"{entry.name}: no samples for {name}")
    assert not problems, "\n".join(problems)


def test_docs_page_is_generated_from_the_listing():
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "generate_operator_docs.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr + " (run scripts/generate_operator_docs.py)"


def test_every_dtype_eager_accepts_is_listed_for_the_exact_groups():
    # The math and nn2 specs name exactly the dtypes eager CPU accepts.
    import op_table
    gaps = []
    for entry in operators.entries():
        if entry.group not in ("math", "nn2"):
            continue
        spec = op_table.spec(entry.name)
        missing = sorted(set(map(harness.dtype_name, spec.dtypes)) - set(entry.dtypes))
        if missing:
            gaps.append(f"{entry.name}: {missing}")
    assert not gaps, "eager accepts but the listing lacks: " + "; ".join(gaps)


def test_runtime_dtype_table_is_generated_from_the_listing():
    # kernels/portable/kernel_dtypes.inc: what load_method checks calls against.
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "generate_kernel_dtypes.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + " (run scripts/generate_kernel_dtypes.py)"


def test_support_lookup():
    entry = operators.lookup("aten::add.out")
    assert entry is not None and entry.group == "elementwise"
    assert operators.is_supported("aten::add.out", torch.float32)
    assert operators.is_supported("aten::add.out", "float32")
    assert operators.is_supported("aten::add.out", "bool") == ("bool" in entry.dtypes)
    assert not operators.is_supported("aten::no_such_op.out", torch.float32)
    assert operators.lookup("aten::no_such_op.out") is None
    assert operators.pair_count() == sum(len(e.dtypes) for e in operators.entries())
    assert operators.dtype_name(torch.bfloat16) == "bfloat16"
    assert operators.dtype_name("half") == "float16"
    with pytest.raises(ValueError, match="unknown dtype"):
        operators.dtype_name(torch.qint8)


@pytest.mark.parametrize("text, message", [
    ('[[operator]]\nname = "aten::x.out"\ngroup = "nn"\ndtypes = ["float8"]\n', "dtypes must be"),
    ('[[operator]]\nname = "aten::x.out"\ngroup = "nn"\ndtypes = ["int8", "int8"]\n', "dtypes must be"),
    ('[[operator]]\nname = "x"\ngroup = "nn"\ndtypes = []\n', "name must look like"),
    ('[[operator]]\nname = "aten::x.out"\ngroup = "Bad Group"\ndtypes = []\n', "group must name"),
    ('[[operator]]\nname = "aten::x.out"\ngroup = "nn"\ndtypes = []\ncolor = 1\n', "unexpected keys"),
    ('[[operator]]\nname = "aten::x.out"\ngroup = "nn"\n[[operator]]\nname = "aten::x.out"\ngroup = "nn"\n',
     "listed twice"),
    ('[[operators]]\nname = "aten::x.out"\n', "unexpected top-level keys"),
])
def test_malformed_listing_is_rejected_with_the_entry_named(text, message):
    with pytest.raises(ValueError, match=message):
        operators.parse_listing(text, source="test.toml")


def test_listing_parses_dtypes_in_canonical_order():
    (entry,) = operators.parse_listing(
        '[[operator]]\nname = "aten::x.out"\ngroup = "nn"\ndtypes = ["bool", "float32"]\nnotes = "n"\n')
    assert entry.dtypes == ("float32", "bool") and entry.notes == "n"
