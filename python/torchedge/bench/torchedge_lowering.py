"""The torchedge artifacts: portable kernels only, with the XNNPACK delegate,
static int8 (PT2E) on torchedge's int8 kernels, and static int8 with the XNNPACK
delegate.

The XNNPACK configuration is included only when the delegate really works
here: `torchedge.backends.xnnpack` must import, and lowering the model with
its XnnpackPartitioner must succeed; otherwise the reason is reported and
the configuration is marked not available (never substituted).
"""

from __future__ import annotations

from typing import Any

import torch

import torchedge
from torchedge.program import PteProgram


class NotAvailable(Exception):
    """The configuration cannot run here (the reason is the message)."""


def lower_portable(module: torch.nn.Module, inputs: tuple) -> PteProgram:
    return torchedge.lower(module, inputs)


def lower_xnnpack(module: torch.nn.Module, inputs: tuple) -> tuple[PteProgram, dict[str, Any]]:
    """(program, delegation summary); NotAvailable when the delegate is missing."""
    try:
        from torchedge.backends.xnnpack import XnnpackPartitioner  # type: ignore[attr-defined]
    except ImportError as e:
        raise NotAvailable(f"torchedge.backends.xnnpack does not import ({e})") from None
    edge = torchedge.to_edge(torchedge.export_methods(module, inputs))
    try:
        edge = edge.to_backend(XnnpackPartitioner())
    except NotImplementedError as e:
        raise NotAvailable(f"EdgeProgram.to_backend is not implemented in this checkout ({e})") from None
    return edge.to_pte(), delegation_summary(edge)


def lower_vulkan(module: torch.nn.Module, inputs: tuple,
                 force_fp16: bool = False) -> tuple[PteProgram, dict[str, Any]]:
    """(program, delegation summary with the Vulkan device); NotAvailable
    when this build has no Vulkan delegate or the machine no Vulkan device.
    `force_fp16`: float16 on the device where it has the features (the
    summary's "float16" says whether this one does)."""
    from torchedge import _C

    if not _C.vulkan_built():
        raise NotAvailable("this build has no Vulkan delegate (TORCHEDGE_BUILD_VULKAN=OFF)")
    try:
        device = _C.vulkan_device()
    except RuntimeError as e:
        raise NotAvailable(f"no Vulkan device: {e}") from None
    from torchedge.backends.vulkan import VulkanPartitioner

    edge = torchedge.to_edge(torchedge.export_methods(module, inputs)).to_backend(
        VulkanPartitioner(force_fp16=force_fp16))
    summary = delegation_summary(edge)
    summary["device"] = device
    if force_fp16:
        summary["float16"] = all(_C.vulkan_float16_features(present=False).values())
    # Mesa's lavapipe (llvmpipe) runs the shaders on the CPU: its timings
    # are not GPU numbers, and the report says so.
    summary["cpu_emulated"] = "llvmpipe" in device.lower()
    return edge.to_pte(), summary


def delegation_summary(edge: Any) -> dict[str, Any]:
    """How many operator nodes went to the delegate, and which operators stayed."""
    report = getattr(edge, "delegation_report", None)
    decisions = getattr(report, "decisions", {}).get("forward", []) if report is not None else []
    kept = sorted({d.operator for d in decisions if not d.delegated})
    return {"nodes": len(decisions), "delegated": sum(d.delegated for d in decisions),
            "operators_kept": kept}


def calibration_batches(inputs: tuple, count: int = 4) -> list[tuple]:
    """The benchmark input plus count - 1 seeded random inputs of the same shapes
    (the peers' int8 exporters calibrate the same way)."""
    generator = torch.Generator().manual_seed(0)
    batches = [inputs]
    for _ in range(count - 1):
        batches.append(tuple(torch.randn(x.shape, generator=generator)
                             if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                             for x in inputs))
    return batches


def lower_int8(module: torch.nn.Module, inputs: tuple,
               weight_bits: int = 8) -> tuple[PteProgram, dict[str, Any]]:
    """Static int8: TorchEdgeQuantizer (PT2E), calibrated on calibration_batches(),
    conv2d / linear / add fused into torchedge's int8 ops (static_int8_fusion.py; a
    conv read only by a residual add becomes one conv2d_add_int8, counted apart from
    conv2d_int8 and add_int8), the rest on the optimized kernels. No delegate. The
    summary counts the fused ops. weight_bits=7: weights in [-63, 63] (the AVX2
    u8 convolution path; ONNX Runtime's reduce_range)."""
    from torchedge import quantization as tq
    from torchedge.quantization import int8_conv_ops

    ep = tq.quantize_pt2e(module, inputs, calibration_batches(inputs),
                          config=tq.static_config(weight_bits=weight_bits))
    names = (int8_conv_ops.CONV_OP_NAME, int8_conv_ops.DEPTHWISE_OP_NAME,
             int8_conv_ops.LINEAR_OP_NAME, int8_conv_ops.ADD_OP_NAME,
             int8_conv_ops.CONV_ADD_OP_NAME)
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
    summary = {name: targets.count(f"torchedge.{name}.default") for name in names}
    summary["int8_max_pool2d"] = sum(
        n.target == torch.ops.aten.max_pool2d.default and n.args[0].meta.get("val") is not None
        and n.args[0].meta["val"].dtype == torch.int8 for n in ep.graph.nodes)
    summary["float_conv2d"] = sum("conv" in t and "torchedge" not in t for t in targets)
    summary["float_linear"] = targets.count("aten.linear.default")
    return torchedge.to_edge(ep).to_pte(), summary


def lower_int8_xnnpack(module: torch.nn.Module, inputs: tuple) -> tuple[PteProgram, dict[str, Any]]:
    """Static int8: TorchEdgeQuantizer (PT2E), calibrated on calibration_batches(),
    left unfused (quantize/dequantize form), then the XNNPACK partitioner (int8
    where XNNPACK can)."""
    from torchedge import quantization as tq
    from torchedge.backends.xnnpack import XnnpackPartitioner

    ep = tq.quantize_pt2e(module, inputs, calibration_batches(inputs), fuse_static_int8=False)
    edge = torchedge.to_edge(ep).to_backend(XnnpackPartitioner())
    summary = delegation_summary(edge)
    decisions = edge.delegation_report.decisions.get("forward", [])
    summary["int8_operators"] = sum(d.delegated and d.reason.startswith("int8") for d in decisions)
    summary["float_inside_delegate"] = sorted({d.operator for d in decisions
                                               if d.delegated and d.reason.startswith("float32")})
    return edge.to_pte(), summary


def lower_int8_dynamic(module: torch.nn.Module, inputs: tuple) -> PteProgram:
    """Dynamic int8 linear layers (PT2E dynamic config): each linear becomes
    torchedge::linear_dynamic_int8 (activations quantized per call, int8 GEMM;
    layers sharing an input, like Q/K/V, merged into one call), and embedding
    tables are stored int8 (quantize_embeddings), as ONNX Runtime's
    quantize_dynamic stores its Gather tables, so file sizes compare. Everything
    else stays float on the optimized kernels. No delegate. `module` is left
    unchanged (the embeddings are replaced on a copy)."""
    import copy

    from torchedge import quantization as tq

    model = tq.quantize_embeddings(copy.deepcopy(module))
    ep = tq.quantize_pt2e(model, inputs, config=tq.dynamic_config())
    return torchedge.to_edge(ep).to_pte()
