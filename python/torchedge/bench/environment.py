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
# Steps per timed run of build/int8_mac_peak (about a second in all).
MAC_PEAK_STEPS = 8_000_000
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
            "cpu_id": _cpu_id(),
            "logical_cpus": os.cpu_count(),
            "load_average_at_start": list(os.getloadavg()),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cli": str(self.cli),
            "peers_python": self.peers_python,
            "peer_versions": self._peer_versions(),
            "fma_peak_gflops_per_core": self._fma_peak(),
            "mac_rates_gmacs_per_core": self._mac_rates(),
        }

    def _peak_tool_output(self, name: str, *args: str) -> Optional[str]:
        """Stdout of a peak-measuring program built beside the CLI (x86-64
        builds only), or None when it is missing or fails."""
        tool = self.cli.parent / name
        if not tool.exists():
            return None
        try:
            return subprocess.run([str(tool), *args], capture_output=True, text=True, timeout=60,
                                  check=True).stdout
        except subprocess.SubprocessError:
            return None

    def _fma_peak(self) -> Optional[float]:
        """This core's measured fp32 FMA GFLOP/s (build/fma_peak), or None."""
        out = self._peak_tool_output("fma_peak")
        try:
            return float(out.split()[-1]) if out else None
        except (ValueError, IndexError):
            return None

    def _mac_rates(self) -> Optional[dict[str, float]]:
        """This core's multiply-accumulate rates in GMAC/s for float FMA, exact
        int8 as int16 pairs, and u8 x s8 (build/int8_mac_peak), or None:
        the int8 / float ratio no compute-bound int8 layer can beat here."""
        out = self._peak_tool_output("int8_mac_peak", str(MAC_PEAK_STEPS))
        rates = {}
        for line in (out or "").splitlines():
            words = line.split()
            if len(words) >= 3 and words[2] == "GMAC/s":
                try:
                    rates[words[0]] = float(words[1])
                except ValueError:
                    return None
        return rates if {"fma", "int16", "u8s8"} <= set(rates) else None

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


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields in /proc/cpuinfo ({} where there is none)."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not line.strip():
                break  # the first processor's block ends here
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def _cpu_id() -> str:
    """Vendor, family, model and the ISA extensions int8 speed depends on
    (the model name alone, e.g. "AMD EPYC", does not tell Zen 1 from Zen 3)."""
    fields = _cpuinfo()
    if "cpu family" not in fields:
        return platform.machine()
    flags = set(fields.get("flags", "").split())
    isa = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f in flags]
    return (f"{fields.get('vendor_id', '?')} family {fields['cpu family']} model "
            f"{fields.get('model', '?')} stepping {fields.get('stepping', '?')}; "
            + (" ".join(isa) if isa else "no AVX2"))


def _cpu_model() -> str:
    return _cpuinfo().get("model name") or platform.processor() or "unknown"
