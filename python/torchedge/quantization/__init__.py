"""Quantization for torchedge: int8 PT2E flows and 4-bit group-wise linear layers.

    from torchedge import quantization as tq
    ep = tq.quantize_pt2e(model, (x,), calibration_batches)           # static int8
    ep = tq.quantize_pt2e(model, (x,), config=tq.dynamic_config())    # dynamic int8 linear
    tq.quantize_linear_weights(model, "8da4w", group_size=32)         # LLM-style 4-bit
    tq.quantize_embeddings(model)                                      # int8 embedding tables
    report = tq.compare(model, ep.module(), torchedge.runtime.load(pte.buffer), inputs)

Importing this package registers the operators lowering needs (the
quantize/dequantize out-variants, torchedge's 4-bit linear ops and the fused
dynamic int8 linear, which the dynamic flow emits: dynamic_linear_fusion.py, and the
static int8 conv2d / add ops the static flow emits: static_int8_fusion.py); the
PT2E parts (torchao) load on first use. See docs/quantization.md.
"""

from __future__ import annotations

import importlib
from typing import Any

from torchedge.quantization import (  # noqa: F401  (registration)
    embedding_quantization,
    int4_linear_ops,
    int8_conv_ops,
    int8_pool_ops,
    int8_linear_ops,
    out_variant_schemas,
)
from torchedge.quantization.comparison import ComparisonReport, compare, sqnr_db
from torchedge.quantization.configs import (
    QuantConfig,
    QuantMode,
    dynamic_config,
    qat_config,
    static_config,
)
from torchedge.quantization.dynamic_linear_fusion import (
    fuse_dynamic_linear,
    fuse_sibling_linears,
    pack_dynamic_linear_weights,
)
from torchedge.quantization.embedding_quantization import quantize_embeddings
from torchedge.quantization.linear_quantization import LINEAR_SCHEMES, quantize_linear_weights
from torchedge.quantization.static_int8_fusion import fuse_static_int8

# Operator namespaces, besides aten, whose operators the runtime's quantized kernels run.
QUANTIZED_NAMESPACES = frozenset({out_variant_schemas.NAMESPACE, int4_linear_ops.NAMESPACE})

_LAZY = {  # name -> module (these import torchao)
    "TorchEdgeQuantizer": "torchedge.quantization.quantizer",
    "prepare": "torchedge.quantization.pt2e_flow",
    "convert": "torchedge.quantization.pt2e_flow",
    "calibrate": "torchedge.quantization.pt2e_flow",
    "quantize_pt2e": "torchedge.quantization.pt2e_flow",
}

__all__ = [
    "ComparisonReport", "LINEAR_SCHEMES", "QUANTIZED_NAMESPACES", "QuantConfig", "QuantMode",
    "compare", "dynamic_config", "fuse_dynamic_linear", "fuse_sibling_linears", "fuse_static_int8",
    "pack_dynamic_linear_weights",
    "qat_config", "quantize_embeddings", "quantize_linear_weights", "sqnr_db", "static_config", *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'torchedge.quantization' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
