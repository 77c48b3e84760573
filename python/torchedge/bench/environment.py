"""Where the benchmark's programs are: the CLI, the two interpreters, the child scripts.

The product's interpreter (this one) runs eager PyTorch; .venv-peers
(scripts/setup_peers.sh, `make peers`) holds ONNX Runtime, upstream
ExecuTorch and matplotlib, which the product never imports.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import torch

REPO = Path(__file__).resolve().parents[3]
PEER_SCRIPTS = Path(__file__).resolve().parent / "peers"
PEER_PACKAGES = ("onnxruntime", "onnx", "onnxscript", "executorch", "torch", "numpy", "matplotlib")


@dataclass
class Environment:
    cli: Path
    product_python: str
    peers_python: Optional[str]
    peers_missing_reason: str = ""

    @staticmethod
    def discover(cli: Optional[str] = None, peers_python: Optional[str] = None) -> "Environment":
        cli_path = Path(cli) if cli else REPO / "build" / "torchedge_run"
        peers = Path(peers_python) if peers_python else REPO / ".venv-peers" / "bin" / "python"
        if peers.is_file() and os.access(peers, os.X_OK):
            return Environment(cli_path, sys.executable, str(peers))
        return Environment(cli_path, sys.executable, None,
                           f"no peers interpreter at {peers} (run `make peers`)")

    @staticmethod
    def peer_script(name: str) -> Path:
        return PEER_SCRIPTS / name

    def describe(self) -> dict[str, Any]:
        """Machine and versions, for the results file."""
        return {
            "cpu": _cpu_model(),
            "logical_cpus": os.cpu_count(),
            "load_average_at_start": list(os.getloadavg()),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cli": str(self.cli),
            "peers_python": self.peers_python,
            "peer_versions": self._peer_versions(),
            "fma_peak_gflops_per_core": self._fma_peak(),
        }

    def _fma_peak(self) -> Optional[float]:
        """This core's measured fp32 FMA GFLOP/s (build/fma_peak, x86-64 builds), or None."""
        tool = self.cli.parent / "fma_peak"
        if not tool.exists():
            return None
        try:
            out = subprocess.run([str(tool)], capture_output=True, text=True, timeout=60,
                                 check=True).stdout.split()
            return float(out[-1])
        except (subprocess.SubprocessError, ValueError, IndexError):
            return None

    def _peer_versions(self) -> dict[str, str]:
        if self.peers_python is None:
            return {}
        code = ("import json, importlib.metadata as m\n"
                "v = {}\n"
                f"for n in {PEER_PACKAGES!r}:\n"
                "    try: v[n] = m.version(n)\n"
                "    except m.PackageNotFoundError: pass\n"
                "print(json.dumps(v))")
        try:
            out = subprocess.run([self.peers_python, "-c", code], capture_output=True, text=True,
                                 timeout=120, check=True).stdout
            return json.loads(out)
        except (subprocess.SubprocessError, ValueError) as e:
            return {"error": str(e)}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
