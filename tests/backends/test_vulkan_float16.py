"""float16 on the Vulkan delegate, end to end through the C++ runtime.

- float16 models (`.half()`, float16 inputs) delegate with float16 tensors
  in the blob and run the shaders' float16 variants; compared with eager
  float32 and eager float16.
- force_fp16 computes float32 models in float16 on the device (float32 at
  the delegate boundary).
- A device without shaderFloat16 / storageBuffer16BitAccess, simulated by
  masking them (_C.vulkan_mask_float16_features), fails float16 programs at
  load naming the missing feature and runs force_fp16 programs in float32.
- The blob carries the dtype; the runtime rejects unknown dtype codes.

Runs on lavapipe unless the environment picks a driver; skipped, with the
reason, where there is no Vulkan delegate or device, or where the device
lacks float16 (the masked-device tests then still run).

Tolerances: zoo models, max |vulkan - eager float32| / max(1, max |eager|)
(zoo_common.parity_error) <= FLOAT16_TOLERANCE (3e-2) and <= 2 x eager
float16's own error on the model + 2e-3; operators, rtol = atol = 1e-2.
"""

from __future__ import annotations

import struct

import pytest
import torch
from torch import nn

import torchedge
from torchedge import runtime
from torchedge.backends import LoweredModule

from vulkan_zoo import (FLOAT16_TOLERANCE, TOLERANCE, run_zoo_model_float16,
                        use_lavapipe_unless_chosen, vulkan_unavailable_reason)

use_lavapipe_unless_chosen()
_REASON = vulkan_unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

HALF_OP_TOLERANCE = dict(rtol=1e-2, atol=1e-2)
# Small zoo models covering the shader families: convolutions (depthwise,
# hardswish, squeeze-excite), attention (matmul, softmax, layer norm, gelu).
FLOAT16_ZOO = ["mobilenet_v3_small", "whisper_encoder"]

HEADER = struct.Struct("<4s5IQ2I")   # blob_writer.py: magic, version, counts, data offset, flags
TENSOR = struct.Struct("<8I2Q2I")    # kind, rank, dims[6], a, b, dtype, reserved


def _device_has_float16() -> bool:
    from torchedge import _C
    return all(_C.vulkan_float16_features().values())


needs_float16 = pytest.mark.skipif(
    _REASON is None and not _device_has_float16(),
    reason="the Vulkan device lacks shaderFloat16 or storageBuffer16BitAccess")


@pytest.fixture
def masked():
    """Masks float16 features for the test (a device without them), then unmasks."""
    from torchedge import _C
    yield _C.vulkan_mask_float16_features
    _C.vulkan_mask_float16_features(False, False)


class _ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = nn.functional.hardswish(self.dw(y))
        y = self.norm(y.mean((2, 3)))
        return torch.softmax(self.fc(y), -1), y


def _lower(module: nn.Module, inputs: tuple, force_fp16: bool = False):
    from torchedge.backends.vulkan import VulkanPartitioner

    edge = torchedge.to_edge(torch.export.export(module.eval(), inputs))
    edge = edge.to_backend(VulkanPartitioner(force_fp16=force_fp16))
    return edge


def _blobs(edge) -> list[LoweredModule]:
    graph = edge.exported_program().graph
    return [n.target for n in graph.nodes if isinstance(n.target, LoweredModule)]


def _records(blob: bytes):
    magic, version, num_tensors, _, _, _, _, flags, _ = HEADER.unpack_from(blob)
    tensors = [TENSOR.unpack_from(blob, HEADER.size + i * TENSOR.size) for i in range(num_tensors)]
    return version, flags, tensors


def _inputs(dtype=torch.float32):
    torch.manual_seed(3)
    return (torch.randn(2, 3, 10, 10).to(dtype),)


@needs_float16
@pytest.mark.parametrize("name", FLOAT16_ZOO)
def test_float16_zoo_model_matches_eager(name):
    r = run_zoo_model_float16(name)
    assert not r.kept, f"{name}: left on the CPU in float16: {r.kept}"
    assert r.delegates == 1
    bound = FLOAT16_TOLERANCE
    if r.eager_fp16_rel is not None:
        bound = min(bound, 2 * r.eager_fp16_rel + 2e-3)
    assert r.error <= bound, f"{name}: {r.error:.3e} against eager float32 (bound {bound:.1e})"


@needs_float16
def test_float16_model_delegates_float16_tensors():
    module = _ConvNet().eval().half()
    (x,) = _inputs(torch.float16)
    edge = _lower(module, (x,))
    (lowered,) = _blobs(edge)
    version, flags, tensors = _records(lowered.processed)
    # hardswish decomposes with a float32 upcast (_to_copy there and back):
    # delegated, held in float16 on the device (FLOAT16_COMPUTE).
    assert version == 2 and flags == 1
    assert {t[-2] for t in tensors} == {5}  # every tensor float16 (ScalarType Half)
    assert not edge.delegation_report.rejected()
    out = runtime.load(edge.to_pte().buffer).forward(x)
    with torch.no_grad():
        ref16 = module(x)
    assert all(o.dtype == torch.float16 for o in out)
    for o, r in zip(out, ref16):
        torch.testing.assert_close(o, r, **HALF_OP_TOLERANCE)


@needs_float16
def test_force_fp16_computes_float32_models_in_float16(masked):
    module = _ConvNet().eval()
    (x,) = _inputs()
    with torch.no_grad():
        ref = module(x)
    edge = _lower(module, (x,), force_fp16=True)
    (lowered,) = _blobs(edge)
    _, flags, tensors = _records(lowered.processed)
    assert flags == 1 and {t[-2] for t in tensors} == {6}  # float32 blob, FLOAT16_COMPUTE
    pte = edge.to_pte().buffer
    fp16 = runtime.load(pte).forward(x)
    assert all(o.dtype == torch.float32 for o in fp16)  # float32 at the boundary
    for o, r in zip(fp16, ref):
        torch.testing.assert_close(o, r, **HALF_OP_TOLERANCE)
    # Outputs were float16 on the device: exactly representable in float16.
    assert all(torch.equal(o, o.half().float()) for o in fp16)
    # A device without float16: the same program runs in float32.
    masked(True, False)
    fp32 = runtime.load(pte).forward(x)
    for o, r in zip(fp32, ref):
        torch.testing.assert_close(o, r, rtol=1e-4, atol=1e-4)
    assert any(not torch.equal(a, b) for a, b in zip(fp16, fp32))


@needs_float16
def test_force_fp16_zoo_model():
    r = run_zoo_model_float16("mobilenet_v3_small", force_fp16=True)
    assert not r.kept and r.delegates == 1
    bound = min(FLOAT16_TOLERANCE, 2 * (r.eager_fp16_rel or FLOAT16_TOLERANCE) + 2e-3)
    assert TOLERANCE < r.error <= bound, f"{r.error:.3e} (bound {bound:.1e})"


@pytest.mark.parametrize("mask,names", [
    ((True, False), "lacks shaderFloat16 (masked)"),
    ((False, True), "lacks storageBuffer16BitAccess (masked)"),
    ((True, True), "lacks shaderFloat16 and storageBuffer16BitAccess"),
])
def test_float16_program_on_a_device_without_float16_fails_naming_the_feature(masked, mask, names):
    module = _ConvNet().eval().half()
    (x,) = _inputs(torch.float16)
    pte = _lower(module, (x,)).to_pte().buffer
    masked(*mask)
    with pytest.raises(Exception) as info:
        runtime.load(pte).forward(x)
    message = str(info.value)
    from torchedge import _C
    if all(_C.vulkan_float16_features().values()):  # else the device itself lacks them
        assert names in message, message
    assert "float16 tensors" in message, message


def test_dtype_conversions_stay_on_the_cpu_between_partitions():
    class Mixed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.fc = nn.Linear(4 * 8 * 8, 6).half()

        def forward(self, x):
            y = torch.relu(self.conv(x)).half()
            return self.fc(y.flatten(1))

    module = Mixed().eval()
    (x,) = _inputs()
    edge = _lower(module, (x,))
    reasons = {d.operator: d.reason for d in edge.delegation_report.rejected()}
    assert "dtype conversions" in reasons.get("aten._to_copy.default", ""), reasons
    kinds = sorted({t[-2] for b in _blobs(edge) for t in _records(b.processed)[2]})
    if not _device_has_float16():
        pytest.skip("the Vulkan device lacks float16: the float16 partition cannot run")
    assert kinds == [5, 6]  # one float32 and one float16 partition
    out = runtime.load(edge.to_pte().buffer).forward(x)
    with torch.no_grad():
        ref = module(x)
    out = out[0] if isinstance(out, (list, tuple)) else out
    torch.testing.assert_close(out, ref, **HALF_OP_TOLERANCE)


def test_runtime_rejects_a_bad_dtype_code():
    edge = _lower(_ConvNet().eval(), _inputs())
    (lowered,) = _blobs(edge)
    blob = bytearray(lowered.processed)
    at = HEADER.size + 48  # tensor 0's dtype word
    blob[at:at + 4] = struct.pack("<I", 7)
    lowered.processed = bytes(blob)
    with pytest.raises(Exception, match="tensor 0: dtype code 7, expected 6 .float32. or 5 .float16."):
        runtime.load(edge.to_pte().buffer).forward(*_inputs())
