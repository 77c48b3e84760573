"""One-call PT2E flows: export -> prepare -> calibrate/train -> convert -> export.

    ep = quantize_pt2e(model, (x,), calibration_batches)        # static int8
    ep = quantize_pt2e(model, (x,), config=dynamic_config())    # dynamic int8 linear
    prepared = prepare(model, (x,), qat_config()); train(prepared); ep = convert(prepared, (x,))

The result is an ExportedProgram of the converted graph: `ep.module()` is the
quantized reference model (quantize/dequantize ops, float compute) that runs
in eager PyTorch, and `torchedge.to_edge(ep).to_pte()` lowers it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

import torch
from torch.export import ExportedProgram

from torchedge.quantization.configs import QuantConfig, static_config


def _as_tuple(inputs: Any) -> tuple:
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def prepare(model: torch.nn.Module, example_inputs: Sequence[Any],
            config: Optional[QuantConfig] = None,
            operators: Optional[Iterable[str]] = None,
            dynamic_shapes: Any = None) -> torch.fx.GraphModule:
    """Exports `model` and inserts observers (static, dynamic) or fake-quantizers (QAT).

    For QAT the model is exported in training mode (batch norm and dropout as
    in training) and the returned module is trainable; call `convert` after.
    Raises ValueError naming an unsupported config or operator group.
    """
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, prepare_qat_pt2e

    from torchedge.quantization.quantizer import TorchEdgeQuantizer

    config = config if config is not None else static_config()
    quantizer = TorchEdgeQuantizer(config, operators)
    example_inputs = _as_tuple(example_inputs)
    model.train(config.is_qat)
    graph = torch.export.export(model, example_inputs, dynamic_shapes=dynamic_shapes).module()
    prepared = (prepare_qat_pt2e if config.is_qat else prepare_pt2e)(graph, quantizer)
    if not quantizer.annotated_nodes:
        raise ValueError(
            "TorchEdgeQuantizer found nothing to quantize in this model (it quantizes "
            f"{', '.join(sorted(quantizer.operators))} operators on float32 tensors)")
    prepared.meta["torchedge_quant_config"] = config
    return prepared


def convert(prepared: torch.fx.GraphModule, example_inputs: Sequence[Any],
            dynamic_shapes: Any = None, *, fuse_dynamic_linear: bool = True,
            fuse_siblings: bool = True, pack_weights: bool = True,
            fuse_static_int8: bool = True) -> ExportedProgram:
    """Freezes observed qparams into quantize/dequantize ops; returns the exported program.

    With `fuse_dynamic_linear`, dynamically quantized linear layers with
    symmetric per-channel int8 weights become torchedge::linear_dynamic_int8
    (same eager numerics; the runtime then multiplies in int8: see
    dynamic_linear_fusion.py); False keeps convert_pt2e's five-op form.
    With `fuse_siblings` too, fused layers reading the same input (Q, K, V)
    become one wider call whose output is split (fuse_sibling_linears); with
    `pack_weights`, fused layers store their weights in the runtime GEMM's
    layout (torchedge::linear_dynamic_int8_packed, pack_dynamic_linear_weights).
    With `fuse_static_int8`, statically quantized conv2d (+ relu / relu6 /
    hardtanh) and add (+ relu) with int8 inputs and output become
    torchedge::conv2d_int8 / depthwise_conv2d_int8 / add_int8, and a
    conv2d_int8 read only by an add_int8 one conv2d_add_int8 (same eager
    numerics, int8 kernels at run time: see static_int8_fusion.py); pass
    False where the program goes to the XNNPACK delegate or to upstream
    ExecuTorch, which only know the quantize/dequantize form.
    """
    from torchao.quantization.pt2e import move_exported_model_to_eval
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

    from torchedge.quantization.dynamic_linear_fusion import (
        fuse_dynamic_linear as fuse, fuse_sibling_linears, pack_dynamic_linear_weights)
    from torchedge.quantization.static_int8_fusion import fuse_static_int8 as fuse_static

    converted = convert_pt2e(prepared)
    move_exported_model_to_eval(converted)  # QAT: batch norm and dropout as at inference
    if fuse_static_int8:
        fuse_static(converted)
    if fuse_dynamic_linear:
        fuse(converted)
        if fuse_siblings:
            fuse_sibling_linears(converted)
        if pack_weights:
            pack_dynamic_linear_weights(converted)
    return torch.export.export(converted, _as_tuple(example_inputs), dynamic_shapes=dynamic_shapes)


def calibrate(prepared: torch.fx.GraphModule, batches: Iterable[Any]) -> int:
    """Runs the observers over `batches` (each a tensor or a tuple of inputs); returns the count."""
    count = 0
    with torch.no_grad():
        for batch in batches:
            prepared(*_as_tuple(batch))
            count += 1
    return count


def quantize_pt2e(model: torch.nn.Module, example_inputs: Sequence[Any],
                  calibration_data: Optional[Iterable[Any]] = None, *,
                  config: Optional[QuantConfig] = None,
                  train: Optional[Callable[[torch.fx.GraphModule], None]] = None,
                  operators: Optional[Iterable[str]] = None,
                  dynamic_shapes: Any = None,
                  fuse_dynamic_linear: bool = True,
                  fuse_siblings: bool = True, pack_weights: bool = True,
                  fuse_static_int8: bool = True) -> ExportedProgram:
    """Quantizes `model` in one call; returns the converted ExportedProgram.

    static (default): `calibration_data` (batches of inputs) is required.
    dynamic: no calibration; linear layers quantize their input per call.
    qat: `train(prepared)` runs the training loop on the fake-quantized module.
    `fuse_dynamic_linear`, `fuse_siblings`, `pack_weights`, `fuse_static_int8`: see `convert`.
    """
    config = config if config is not None else static_config()
    if config.is_qat and train is None:
        raise ValueError("QAT needs train=callable(prepared_module) that runs the training loop")
    if config.mode.value == "static" and calibration_data is None:
        raise ValueError("static quantization needs calibration_data (an iterable of input batches)")
    prepared = prepare(model, example_inputs, config, operators, dynamic_shapes)
    if train is not None:
        train(prepared)
    if calibration_data is None and config.is_dynamic:
        calibration_data = [example_inputs]  # the weight observers still need one pass
    if calibration_data is not None:
        if calibrate(prepared, calibration_data) == 0 and config.mode.value == "static":
            raise ValueError("calibration_data is empty; static quantization needs at least one batch")
    return convert(prepared, example_inputs, dynamic_shapes,
                   fuse_dynamic_linear=fuse_dynamic_linear, fuse_siblings=fuse_siblings,
                   pack_weights=pack_weights, fuse_static_int8=fuse_static_int8)
