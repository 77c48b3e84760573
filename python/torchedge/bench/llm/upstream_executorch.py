"""Upstream ExecuTorch's own Llama path (executorch.examples.models.llama,
XNNPACK, 8da4w) on the same SmolLM2: whether it ran, and why not."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

EXPORT_MODULE = "executorch.examples.models.llama.export_llama"


def probe(peers_python: Path) -> dict[str, Any]:
    if not peers_python.is_file():
        return {"status": "not run", "reason": f"no peers interpreter at {peers_python} (make peers)"}
    code = f"import importlib.util as u; print(u.find_spec({EXPORT_MODULE!r}) is not None)"
    try:
        found = subprocess.run([str(peers_python), "-c", code], capture_output=True, text=True,
                               timeout=120, check=True).stdout.strip() == "True"
    except (subprocess.SubprocessError, OSError) as e:
        return {"status": "not run", "reason": f"the peers interpreter failed: {e}"}
    if not found:
        return {"status": "not run", "reason": f"the executorch wheel has no {EXPORT_MODULE}"}
    return {"status": "not run", "reason": "the harness does not drive the upstream export and runner"}
