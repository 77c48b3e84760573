"""The AMX float32 GEMM (kernels/optimized/gemm/sgemm_amx.h) in a program.

A transformer MLP block over 300 tokens (M at least kSgemmAmxMinRows, so its
prepacked linear layers, one with the GELU and one with the residual fused,
take the tile GEMM) runs in a child process as it is and in one with
TORCHEDGE_ISA=avx512 (the AVX-512 SGEMM): both match eager (float32, rtol
1e-4 / atol 1e-5), and they differ in the last bits (the six bf16 tile
products sum in another order than the SGEMM), which shows the AMX path ran.
Skipped on a CPU without AMX-BF16.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
import torch

CHILD = r'''
import sys, torch, torchedge
from torch import nn
import torch.nn.functional as F
from torchedge import runtime

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.fc1, self.fc2 = nn.LayerNorm(64), nn.Linear(64, 200), nn.Linear(200, 64)
    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))

torch.manual_seed(0)
module, x = Block().eval(), torch.randn(1, 300, 64)
program = torchedge.lower(module, (x,))
assert "torchedge::linear_prepacked_fused.out" in program.operators["forward"]
out = runtime.load(program.buffer, kernels="optimized").forward(x)
got = out[0] if isinstance(out, (list, tuple)) else out
with torch.no_grad():
    torch.testing.assert_close(got, module(x), rtol=1e-4, atol=1e-5)
torch.save(got, sys.argv[1])
'''


def _has_amx() -> bool:
    try:
        flags = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_bf16" in flags and "avx512_bf16" in flags


@pytest.mark.skipif(not _has_amx(), reason="needs a CPU with AMX-BF16 and AVX512-BF16")
def test_amx_linear_layers_match_eager_and_the_sgemm(tmp_path):
    results = {}
    for isa in (None, "avx512"):
        env = {k: v for k, v in os.environ.items() if k != "TORCHEDGE_ISA"}
        if isa is not None:
            env["TORCHEDGE_ISA"] = isa
        path = tmp_path / f"{isa}.pt"
        child = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env,
                               capture_output=True, text=True, check=False)
        assert child.returncode == 0, child.stderr[-3000:]
        results[isa] = torch.load(path)
    torch.testing.assert_close(results[None], results["avx512"], rtol=1e-5, atol=1e-6)
    assert not torch.equal(results[None], results["avx512"]), "the AMX path did not run"
