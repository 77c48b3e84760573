"""The float32 AMX paths in programs: the linear layers
(kernels/optimized/gemm/sgemm_amx.h) and the channel-blocked convolutions
(kernels/optimized/conv/conv2d_blocked_amx.cpp).

Each program runs in a child process as it is and in one with
TORCHEDGE_ISA=avx512 (the AVX-512 kernels): both match eager (float32, rtol
1e-4 / atol 1e-5), and they differ in the last bits (the six bf16 tile
products sum in another order), which shows the AMX path ran. The programs:
a transformer MLP block over 300 tokens (M at least kSgemmAmxMinRows, so its
prepacked linear layers, one with the GELU and one with the residual fused,
take the tile GEMM), and a wav2vec2-like feature extractor (stem, group
norm, GELU, then blocked 1-d convolutions with their GELUs fused, two of
them with at least kConvAmxMinPixels outputs and kConvAmxMinOutChannels
channels). Skipped on a CPU without
AMX-BF16.
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

class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv1d(1, 32, 10, 5, bias=False)
        self.norm = nn.GroupNorm(32, 32)
        self.convs = nn.ModuleList([nn.Conv1d(32, 128, 3, 2, bias=False),
                                    nn.Conv1d(128, 128, 3, 1, 1), nn.Conv1d(128, 32, 2, 2)])
    def forward(self, x):
        y = F.gelu(self.norm(self.stem(x.unsqueeze(1))))
        for conv in self.convs:
            y = F.gelu(conv(y))
        return y.transpose(1, 2)

torch.manual_seed(0)
if sys.argv[2] == "linear":
    module, x, op = Block().eval(), torch.randn(1, 300, 64), "torchedge::linear_prepacked_fused.out"
else:  # stem 639 outputs, then 319, 319 (AMX) and 159
    module, x, op = FeatureExtractor().eval(), torch.randn(1, 3200), "torchedge::conv2d_blocked_gelu.out"
program = torchedge.lower(module, (x,))
assert op in program.operators["forward"], program.operators["forward"]
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
@pytest.mark.parametrize("program", ["linear", "conv1d"])
def test_amx_paths_match_eager_and_the_avx512_kernels(tmp_path, program):
    results = {}
    for isa in (None, "avx512"):
        env = {k: v for k, v in os.environ.items() if k != "TORCHEDGE_ISA"}
        if isa is not None:
            env["TORCHEDGE_ISA"] = isa
        path = tmp_path / f"{isa}.pt"
        child = subprocess.run([sys.executable, "-c", CHILD, str(path), program], env=env,
                               capture_output=True, text=True, check=False)
        assert child.returncode == 0, child.stderr[-3000:]
        results[isa] = torch.load(path)
    torch.testing.assert_close(results[None], results["avx512"], rtol=1e-5, atol=1e-6)
    assert not torch.equal(results[None], results["avx512"]), "the AMX path did not run"
