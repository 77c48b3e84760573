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

float16 (run_zoo_model_float16): the model in float16 (`.half()`, float16
inputs) against eager float16 and eager float32, or the float32 model
lowered with force_fp16 against eager float32. Tolerance: the same
relative measure against eager float32 <= FLOAT16_TOLERANCE; float16 keeps
11 significant bits (unit roundoff 4.9e-4) and errors grow with depth.
"""

from __future__ import annotations

import copy
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
FLOAT16_TOLERANCE = 3e-2


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


@dataclass
class Float16Result:
    name: str
    mode: str               # "float16" (a float16 model) or "force_fp16" (float32 model)
    input_shapes: list
    delegates: int
    nodes: int
    kept: list
    error: float            # parity_error against eager float32 (outputs compared as float32)
    max_abs: float          # against eager float32
    max_rel: float
    max_abs_fp16: float | None  # against eager float16 ("float16" mode; None when eager
                                # float16 has no CPU kernel for an operator)
    max_rel_fp16: float | None
    eager_fp16_rel: float | None  # eager float16 against eager float32: the format's own
                                  # error on this model, the yardstick for max_rel
    cpu_fp16_rel: float | None = None  # the same float16 program on torchedge's CPU kernels
                                       # against eager float32 (with cpu_reference=True)


def _differences(out: list, ref: list) -> tuple[float, float]:
    max_abs = max(float((a.float() - r.float()).abs().max()) for a, r in zip(out, ref))
    max_rel = max(float((a.float() - r.float()).abs().max() / r.float().abs().max().clamp_min(1e-30))
                  for a, r in zip(out, ref))
    return max_abs, max_rel


def _float_leaves(tree) -> list:
    return [t for t in torch.utils._pytree.tree_leaves(tree) if isinstance(t, torch.Tensor)]


def run_zoo_model_float16(name: str, force_fp16: bool = False,
                          cpu_reference: bool = False) -> Float16Result:
    """One zoo model in float16 on the delegate (see the module docstring).

    `cpu_reference` also runs the float16 program without the delegate
    (float16 models only): the edge graph rounds after every operator, which
    eager's fused kernels do not, so this is the delegate's own yardstick.
    """
    from torchedge.backends.vulkan import VulkanPartitioner
    from torchedge.models.zoo_common import parity_error

    spec = models.get(name)
    inputs32 = zoo_inputs(name)
    torch.manual_seed(1)
    inputs32 = tuple(torch.randn_like(x) if x.dtype.is_floating_point else x for x in inputs32)
    module32 = spec.module
    if force_fp16:
        module, inputs = module32, inputs32
    else:
        module = copy.deepcopy(module32).half()
        inputs = tuple(x.half() if x.dtype.is_floating_point else x for x in inputs32)
    edge = torchedge.to_edge(torchedge.export_methods(module, inputs))
    cpu_fp16 = None
    if cpu_reference and not force_fp16:
        cpu_fp16 = runtime.load(edge.to_pte().buffer).forward(*inputs)
    edge = edge.to_backend(VulkanPartitioner(force_fp16=force_fp16))
    pte = edge.to_pte()
    graph = edge.exported_program().graph
    delegates = sum(1 for n in graph.nodes if isinstance(n.target, LoweredModule))
    decisions = edge.delegation_report.decisions["forward"]
    with torch.no_grad():
        reference32 = module32(*inputs32)
        try:
            reference16 = copy.deepcopy(module32).half()(
                *(x.half() if x.dtype.is_floating_point else x for x in inputs32))
        except RuntimeError:  # an operator without a float16 CPU kernel in eager
            reference16 = None
    actual = runtime.load(pte.buffer).forward(*inputs)
    out = _float_leaves(actual)
    ref32 = _float_leaves(reference32)
    max_abs, max_rel = _differences(out, ref32)
    error = parity_error([r.float() for r in ref32], [a.float() for a in out])
    abs16 = rel16 = eager16 = None
    if reference16 is not None:
        eager16 = _differences(_float_leaves(reference16), ref32)[1]
        if not force_fp16:
            abs16, rel16 = _differences(out, _float_leaves(reference16))
    cpu_rel = None if cpu_fp16 is None else _differences(_float_leaves(cpu_fp16), ref32)[1]
    return Float16Result(name, "force_fp16" if force_fp16 else "float16",
                         [list(x.shape) for x in inputs], delegates, len(decisions),
                         [(d.operator, d.reason) for d in decisions if not d.delegated],
                         error, max_abs, max_rel, abs16, rel16, eager16, cpu_rel)
