"""Shared pytest configuration: quiet torch.export warnings, and the
grouping that keeps `make test`'s parallel run (pytest-xdist, -n JOBS
--dist loadgroup) from building a shared fixture once per worker."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

# Session fixtures that are costly to build (training and quantizing the digits
# models: seconds per flow; exporting the real MiniLM twice: about 30 s) and
# are shared by tests in several files: every test that uses one runs on the
# same worker, so each is built once per run instead of once per worker.
# name -> xdist group.
SHARED_SESSION_FIXTURES = {
    "models": "digits",   # tests/quantization: the trained digits CNN and MLP
    "flows": "digits",    # tests/quantization: their quantized programs (from "models")
    "exported": "minilm",  # tests/embedding: MiniLM exported in float32 and int8
}

# Module fixtures that compute every selected test's result up front from
# request.session.items (which on each worker lists the whole run): on two
# workers both swept every operator (~270 s each, twice). name -> xdist group.
SWEEP_FIXTURES = {
    "sweep": "opinfo",          # tests/test_opinfo.py: the OpInfo sweep
    "reports": "portable-ops",  # tests/ops/test_portable_ops.py: the listed operators
}


def _shared_fixture_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses an expensive shared fixture.

    A module- or session-scoped fixture with params is built once per
    param on each worker that runs one of its tests: its tests are grouped
    per (fixture, param) so one worker builds each instance. Listed session
    fixtures group all their tests. Tests without such a fixture return None
    and are balanced one by one."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    callspec = getattr(item, "callspec", None)
    for name in item.fixturenames:
        defs = info.name2fixturedefs.get(name)
        if not defs:
            continue
        fixture = defs[-1]
        if fixture.scope == "session" and name in SHARED_SESSION_FIXTURES:
            return SHARED_SESSION_FIXTURES[name]
        if fixture.scope == "module" and name in SWEEP_FIXTURES:
            return SWEEP_FIXTURES[name]
        if fixture.scope in ("module", "session") and fixture.params and callspec is not None \
                and name in callspec.indices:
            return f"{fixture.baseid or item.path.name}::{name}[{callspec.indices[name]}]"
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist appends the group to the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = _shared_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
