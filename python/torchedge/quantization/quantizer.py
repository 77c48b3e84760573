"""TorchEdgeQuantizer: which tensors of an exported graph PT2E quantizes.

Annotates (torchao PT2E API) the ATen graph `torch.export.export(m).module()`:

  conv / linear      input: activation spec, weight: int8 per-channel, bias: float;
                     output: activation spec, taken after a fused tail
                     (batch_norm, then relu / hardtanh) so that no q/dq pair
                     splits conv-bn-relu
  add                both inputs and the output (after a fused relu)
  relu / hardtanh    (standalone) input and output
  max/avg pooling,   input: activation spec; output: the input's qparams
  adaptive avg pool, (shared), so pooling never requantizes
  mean over H, W     (of a 4-d tensor: global average pooling spelled as mean)
  cat                every input and the output share one set of qparams
  flatten            (when its input is already quantized) input and output
                     share its qparams: a classifier head's flatten never
                     requantizes

Dynamic mode only quantizes linear layers' inputs (per call) and weights.
Everything not listed stays float: convert_pt2e dequantizes before it.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

import torch
import torch.fx
from torchao.quantization.pt2e.quantizer import (
    QuantizationAnnotation,
    QuantizationSpecBase,
    Quantizer,
    SharedQuantizationSpec,
)

from torchedge.quantization.configs import QuantConfig, static_config
from torchedge.quantization.specs import OperatorSpecs, operator_specs

aten = torch.ops.aten
ANNOTATION_KEY = "quantization_annotation"

CONV_OPS = {aten.conv1d.default, aten.conv2d.default, aten.conv1d.padding, aten.conv2d.padding}
LINEAR_OPS = {aten.linear.default}
BATCH_NORM_OPS = {aten.batch_norm.default, aten._native_batch_norm_legit_no_training.default}
ACTIVATION_OPS = {aten.relu.default, aten.relu_.default, aten.hardtanh.default,
                  aten.hardtanh_.default, aten.relu6.default}
ADD_OPS = {aten.add.Tensor, aten.add_.Tensor}
POOL_OPS = {aten.max_pool2d.default, aten.avg_pool2d.default, aten.adaptive_avg_pool2d.default,
            aten.max_pool1d.default, aten.avg_pool1d.default, aten.mean.dim}
CAT_OPS = {aten.cat.default, aten.concat.default}
RESHAPE_OPS = {aten.flatten.using_ints}

# Operator groups a user may select (TorchEdgeQuantizer(operators=...)).
OPERATOR_GROUPS: dict[str, frozenset] = {
    "conv": frozenset(CONV_OPS),
    "linear": frozenset(LINEAR_OPS),
    "add": frozenset(ADD_OPS),
    "relu": frozenset(ACTIVATION_OPS),
    "pool": frozenset(POOL_OPS),
    "cat": frozenset(CAT_OPS),
    "reshape": frozenset(RESHAPE_OPS),
}
DYNAMIC_GROUPS = frozenset({"linear"})


class TorchEdgeQuantizer(Quantizer):
    """int8 PT2E quantizer for the torchedge runtime (see the module docstring).

    config: static_config() (default), dynamic_config() or qat_config().
    operators: the operator groups to quantize (default: all of
        OPERATOR_GROUPS; only "linear" in dynamic mode). Unknown names raise
        ValueError naming them.
    """

    def __init__(self, config: Optional[QuantConfig] = None,
                 operators: Optional[Iterable[str]] = None) -> None:
        super().__init__()
        self.config = config if config is not None else static_config()
        if not isinstance(self.config, QuantConfig):
            raise TypeError(f"config must be a torchedge QuantConfig, got {type(self.config).__name__}")
        supported = DYNAMIC_GROUPS if self.config.is_dynamic else frozenset(OPERATOR_GROUPS)
        groups = set(supported if operators is None else operators)
        unknown = sorted(g for g in groups if g not in supported)
        if unknown:
            raise ValueError(
                f"operator(s) {', '.join(map(repr, unknown))} cannot be quantized by "
                f"TorchEdgeQuantizer in {self.config.mode.value} mode; supported: "
                + ", ".join(sorted(supported)))
        self.operators = frozenset(groups)
        self._specs: OperatorSpecs = operator_specs(self.config)
        self.annotated_nodes: list[str] = []  # names of annotated operator nodes (for reports)

    def _enabled(self, node: torch.fx.Node, group: str) -> bool:
        return group in self.operators and node.target in OPERATOR_GROUPS[group]

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        rules: list[tuple[str, Callable[[torch.fx.Node], None]]] = [
            ("conv", self._annotate_weighted), ("linear", self._annotate_weighted),
            ("add", self._annotate_add), ("relu", self._annotate_activation),
            ("pool", self._annotate_pool), ("cat", self._annotate_cat),
            ("reshape", self._annotate_reshape),
        ]
        for node in model.graph.nodes:
            if node.op != "call_function" or _is_annotated(node):
                continue
            for group, rule in rules:
                if self._enabled(node, group):
                    rule(node)
                    break
        return model

    def validate(self, model: torch.fx.GraphModule) -> None:
        """Nothing to check beyond what annotate() decided."""

    # -- rules ---------------------------------------------------------------------

    def _annotate_weighted(self, node: torch.fx.Node) -> None:
        x, weight = node.args[0], node.args[1]
        if not (_is_float(x) and _is_float(weight)):
            return
        inputs = {x: self._specs.activation, weight: self._specs.weight}
        if self._specs.dynamic_activation:  # output stays float (quantized per call downstream)
            self._mark(node, inputs, None)
            return
        tail = _fused_tail(node, BATCH_NORM_OPS | ACTIVATION_OPS)
        self._mark(node, inputs, self._specs.activation if tail is node else None)
        for between in _chain(node, tail)[1:]:
            self._mark(between, {}, self._specs.activation if between is tail else None)

    def _annotate_add(self, node: torch.fx.Node) -> None:
        operands = [a for a in node.args[:2] if isinstance(a, torch.fx.Node)]
        if not operands or not all(_is_float(a) for a in operands + [node]):
            return
        tail = _fused_tail(node, ACTIVATION_OPS)
        self._mark(node, {a: self._specs.activation for a in operands},
                   self._specs.activation if tail is node else None)
        if tail is not node:
            self._mark(tail, {}, self._specs.activation)

    def _annotate_activation(self, node: torch.fx.Node) -> None:
        x = node.args[0]
        if _is_float(x):
            self._mark(node, {x: self._specs.activation}, self._specs.activation)

    def _annotate_pool(self, node: torch.fx.Node) -> None:
        x = node.args[0]
        if node.target == aten.mean.dim and not _is_plane_mean(node):
            return
        if _is_float(x):
            self._mark(node, {x: self._specs.activation}, SharedQuantizationSpec((x, node)))

    def _annotate_reshape(self, node: torch.fx.Node) -> None:
        x = node.args[0]
        # Only where x is quantized anyway: elsewhere this would add a
        # quantize/dequantize pair (and its error) to a float path.
        producer = x.meta.get(ANNOTATION_KEY) if isinstance(x, torch.fx.Node) else None
        if _is_float(x) and producer is not None and producer.output_qspec is not None:
            self._mark(node, {x: self._specs.activation}, SharedQuantizationSpec((x, node)))

    def _annotate_cat(self, node: torch.fx.Node) -> None:
        tensors = node.args[0]
        if not isinstance(tensors, (list, tuple)) or not tensors or not all(_is_float(t) for t in tensors):
            return
        first = tensors[0]
        shared = SharedQuantizationSpec((first, node))
        inputs: dict = {first: self._specs.activation}
        for t in tensors[1:]:
            inputs.setdefault(t, shared)
        self._mark(node, inputs, shared)

    def _mark(self, node: torch.fx.Node, inputs: dict, output: Optional[QuantizationSpecBase]) -> None:
        node.meta[ANNOTATION_KEY] = QuantizationAnnotation(
            input_qspec_map=inputs, output_qspec=output, _annotated=True)
        if inputs or output is not None:
            self.annotated_nodes.append(node.name)


def _is_annotated(node: torch.fx.Node) -> bool:
    annotation = node.meta.get(ANNOTATION_KEY)
    return annotation is not None and annotation._annotated


def _is_float(value: object) -> bool:
    if not isinstance(value, torch.fx.Node):
        return False
    val = value.meta.get("val")
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def _is_plane_mean(node: torch.fx.Node) -> bool:
    """mean(x, dims) over exactly the last two dims of a 4-d x (other means stay float)."""
    val = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
    dims = node.args[1] if len(node.args) > 1 else None
    return isinstance(val, torch.Tensor) and val.dim() == 4 and isinstance(dims, (list, tuple)) \
        and sorted(d % 4 for d in dims if isinstance(d, int)) == [2, 3]


def _fused_tail(node: torch.fx.Node, fusable: set) -> torch.fx.Node:
    """The last node of node -> [batch_norm] -> [relu/hardtanh] where each step
    is the only user of the previous one and not yet annotated."""
    current = node
    seen_activation = False
    while len(current.users) == 1:
        (user,) = current.users
        if user.op != "call_function" or user.target not in fusable or _is_annotated(user):
            break
        if user.target in ACTIVATION_OPS:
            if seen_activation:
                break
            seen_activation = True
        elif seen_activation:  # batch_norm after the activation: not part of the fusion
            break
        current = user
    return current


def _chain(start: torch.fx.Node, end: torch.fx.Node) -> list[torch.fx.Node]:
    nodes = [start]
    while nodes[-1] is not end:
        (user,) = nodes[-1].users
        nodes.append(user)
    return nodes
