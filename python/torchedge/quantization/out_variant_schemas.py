"""Out-variant schemas of the quantize/dequantize operators (schema only).

torch defines the `quantized_decomposed` operators (which convert_pt2e
emits) in functional form only. The runtime runs out-variants, and the
emitter finds a functional op's out-variant by looking for the overload of
the same packet whose schema is the functional one plus out arguments
(torchedge.aten.out_variants). Registering those overloads here, with the
names and argument orders of the runtime's kernels (the quantization
contract: `.default` -> `.out`, `.tensor` -> `.tensor_out`, except
choose_qparams whose out overload upstream ExecuTorch names `.Tensor_out`,
so programs using it load on either runtime), makes the
existing mapping work unchanged for this namespace: kernel
"quantized_decomposed::quantize_per_tensor.out", functional arguments in
order, out tensor(s) last. The schemas have no kernels: nothing in Python
calls them.
"""

from __future__ import annotations

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the functional ops)

NAMESPACE = "quantized_decomposed"

OUT_SCHEMAS = (
    "quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "quantize_per_tensor.tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_tensor.tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
    "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
    "quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis, "
    "int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis, "
    "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, "
    "Tensor(a!) out) -> Tensor(a!)",
    "choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps, "
    "ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) "
    "-> (Tensor(a!), Tensor(b!))",
    "choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *, "
    "Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))",
    "quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
    "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
    "int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out) -> Tensor(a!)",
    "dequantize_per_channel_group.out(Tensor input, Tensor scales, Tensor? zero_points, "
    "int quant_min, int quant_max, ScalarType dtype, int group_size, ScalarType output_dtype, *, "
    "Tensor(a!) out) -> Tensor(a!)",
)

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _register() -> None:
    for schema in OUT_SCHEMAS:
        qualified = schema.split("(", 1)[0]
        op, overload = qualified.split(".")
        packet = getattr(getattr(torch.ops, NAMESPACE), op)
        if overload in packet.overloads():
            continue  # already defined (e.g. by another library loaded in this process)
        _library.define(schema)


_register()
