"""The zoo on the Vulkan delegate: one case per zoo model, shared by
tests/backends/test_vulkan.py and scripts/vulkan_zoo_report.py (which writes
docs/vulkan.md's tables).

Each model is lowered with VulkanPartitioner, run by the C++ runtime (on
lavapipe unless the environment picks a driver) and compared with eager
PyTorch. Image models run at 64 x 64 instead of their 224 x 224 (128 for
the UNet) example so the suite stays within minutes on a 2-core CPU
emulating the GPU; every other model keeps its example input (fixed
position tables, detection grids or sequence lengths).

Tolerance (float32): max |vulkan - eager| <= 1e-4 * max(1, max |eager|)
over every output (zoo_common.parity_error, the zoo's own bound).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import torch

import torchedge
from torchedge import models, runtime
from torchedge.backends import LoweredModule
from torchedge.models.zoo_common import PARITY_TOLERANCE, parity_error

LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
SMALL_IMAGE = {"mobilenet_v2", "mobilenet_v3_small", "resnet18", "resnet50", "efficientnet_b0",
               "unet_small"}
TOLERANCE = PARITY_TOLERANCE


def use_lavapipe_unless_chosen() -> None:
    """Tests run on lavapipe unless a driver was picked (VK_ICD_FILENAMES /
    VK_DRIVER_FILES) or TORCHEDGE_VULKAN_TEST_DEVICE=system asks for the
    machine's own (scripts/vulkan_device_check.sh). Call before the first
    Vulkan program loads."""
    if os.environ.get("TORCHEDGE_VULKAN_TEST_DEVICE") == "system":
        return
    if "VK_ICD_FILENAMES" not in os.environ and "VK_DRIVER_FILES" not in os.environ \
            and os.path.exists(LAVAPIPE_ICD):
        os.environ["VK_ICD_FILENAMES"] = LAVAPIPE_ICD


def vulkan_unavailable_reason() -> str | None:
    """None when a Vulkan device runs the delegate here, else why not."""
    from torchedge import _C
    if not _C.vulkan_built():
        return "this build has no Vulkan delegate (no Vulkan loader or glslc at configure time)"
    try:
        _C.vulkan_device()
    except RuntimeError as e:
        return f"no Vulkan device: {e}"
    return None


@dataclass
class ZooResult:
    name: str
    input_shapes: list
    error: float
    delegates: int          # Vulkan partitions (delegate calls per run)
    nodes: int              # operator nodes of the edge program
    kept: list              # (operator, reason) of nodes left on the CPU kernels
    lower_s: float
    run_s: float            # first run: delegate init (pipelines) + execute
    max_abs: float          # max |vulkan - eager| over the outputs
    max_rel: float          # max over outputs of max |vulkan - eager| / max |eager|

    @property
    def graph_breaks(self) -> int:
        """Times execution leaves the delegate for the CPU kernels and returns."""
        return max(0, self.delegates - 1)


def zoo_inputs(name: str) -> tuple:
    spec = models.get(name)
    if name in SMALL_IMAGE:
        return (torch.randn(1, 3, 64, 64),)
    return spec.inputs()


def run_zoo_model(name: str) -> ZooResult:
    from torchedge.backends.vulkan import VulkanPartitioner

    spec = models.get(name)
    inputs = zoo_inputs(name)
    start = time.perf_counter()
    edge = torchedge.to_edge(torchedge.export_methods(spec.module, inputs))
    edge = edge.to_backend(VulkanPartitioner())
    pte = edge.to_pte()
    lowered = time.perf_counter()
    graph = edge.exported_program().graph
    delegates = sum(1 for n in graph.nodes if isinstance(n.target, LoweredModule))
    decisions = edge.delegation_report.decisions["forward"]
    torch.manual_seed(1)
    inputs = tuple(torch.randn_like(x) if x.dtype.is_floating_point else x for x in inputs)
    with torch.no_grad():
        reference = spec.module(*inputs)
    actual = runtime.load(pte.buffer).forward(*inputs)
    ran = time.perf_counter()
    ref = [t for t in torch.utils._pytree.tree_leaves(reference) if isinstance(t, torch.Tensor)]
    out = [t for t in torch.utils._pytree.tree_leaves(actual) if isinstance(t, torch.Tensor)]
    max_abs = max(float((a.float() - r.float()).abs().max()) for a, r in zip(out, ref))
    # Relative to the output's range: max |a - r| / max |r|, per output.
    max_rel = max(float((a.float() - r.float()).abs().max() / r.float().abs().max().clamp_min(1e-30))
                  for a, r in zip(out, ref))
    return ZooResult(name, [list(x.shape) for x in inputs], parity_error(reference, actual),
                     delegates, len(decisions),
                     [(d.operator, d.reason) for d in decisions if not d.delegated],
                     lowered - start, ran - lowered, max_abs, max_rel)
