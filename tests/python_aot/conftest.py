"""Shared fixtures of the ahead-of-time compiler tests."""

from __future__ import annotations

import os
import sys
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # models.py
_PYTHON = os.path.join(HERE, "..", "..", "python")
try:
    import torchedge  # noqa: F401
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, os.path.abspath(_PYTHON))

# torch's pytree serialization warns about its own deprecated LeafSpec check.
warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)


@pytest.fixture(autouse=True)
def _quiet_torch_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
        yield
