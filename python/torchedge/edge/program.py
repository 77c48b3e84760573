"""EdgeProgram: one verified, Core-ATen ExportedProgram per method."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

import torch
import torch.fx
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputSpec, SymIntArgument, TensorArgument

from torchedge.edge.decompositions import edge_decompositions
from torchedge.edge.verifier import verify_edge_program
from torchedge.passes.data_dependent_bounds import bound_data_dependent_sizes
from torchedge.errors import ExportError, Problem
from torchedge import passes
from torchedge.passes import EDGE_PASSES, graph_modules, refresh_fake_tensors
from torchedge.program import PteOptions, PteProgram, build_pte


class EdgeProgram:
    """The edge dialect: per method, an ExportedProgram that is

    * Core ATen (after `run_decompositions()`), functional,
    * free of views: every view op is its `*_copy` form, so every tensor owns
      its memory and `meta["val"]` strides describe real layouts,
    * free of Python numbers in Tensor argument slots,
    * verified: every operator has an out-variant kernel registered in the
      runtime (torchedge.runtime.registered_kernels()), every
      dtype and shape is one the runtime supports.

    Each program still runs in PyTorch (`exported_program(name).module()`),
    which is how numerics are compared against eager at this stage.
    """

    def __init__(self, programs: Mapping[str, ExportedProgram]):
        if not programs:
            raise ValueError("an EdgeProgram needs at least one method")
        self._programs = dict(programs)
        self.delegation_report: Any = None  # set by to_backend

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self._programs)

    def exported_program(self, method: str = "forward") -> ExportedProgram:
        try:
            return self._programs[method]
        except KeyError:
            raise KeyError(f"no method '{method}'; methods are {list(self._programs)}") from None

    def to_pte(self, **options: Any) -> PteProgram:
        """Plans memory, emits instructions and serializes to a .pte program.

        Options (see torchedge.program.PteOptions): segment_alignment=128,
        constant_tensor_alignment=16, memory_alignment=64, include_stacktrace=True,
        input_guards=True (False for programs meant for upstream's runtime,
        which lacks the guards' aten::_assert_scalar kernel), fuse_activations=True
        (float32 conv2d + relu/hardtanh/clamp run as one torchedge::conv2d_clamp
        call, conv2d + residual add (+ activation) as one torchedge::conv2d_add_clamp;
        False for upstream's runtime, which lacks those kernels),
        prepack_weights=True (float32 linear layers with a constant weight run
        as torchedge::linear_prepacked, the weight stored in the GEMM's packed
        layout; False for upstream's runtime), winograd_filters=True (3x3
        stride-1 convolutions with more than 256 x 256 channels or an output
        below 28x28 run as torchedge::conv2d_winograd, the filters stored Winograd-
        transformed at 16/9 of their size, and blocked ones with an output of
        at least 14x14 (passes/blocked_layout.py's WINOGRAD_MIN_OUTPUT) as
        torchedge::conv2d_winograd_blocked, the filters stored transformed and
        packed; False for a smaller file or for
        upstream's runtime), blocked_convolutions=True (chains of float32
        convolutions, as in ResNets and MobileNetV2, run as
        torchedge::conv2d_blocked / conv2d_depthwise_blocked, or
        conv2d_winograd_blocked (see winograd_filters), on channel-blocked
        NCHW16c activations, the filters stored packed for them; False for
        upstream's runtime). This EdgeProgram is not modified.
        """
        return build_pte(self._programs, PteOptions(**options))

    def to_backend(self, partitioner: Any) -> "EdgeProgram":
        """Delegates what `partitioner` supports, in every method.

        Returns a new EdgeProgram whose methods call LoweredModules for the
        delegated partitions (the inputs are not modified), and whose
        `delegation_report` says, per operator node, what was delegated and,
        if not, why.
        """
        import copy

        from torchedge.backends import DelegationReport, to_backend

        report = DelegationReport()
        lowered = {}
        for name, ep in self._programs.items():
            ep = copy.deepcopy(ep)
            report.decisions[name] = to_backend(ep, partitioner)
            lowered[name] = ep
        result = EdgeProgram(lowered)
        result.delegation_report = report
        return result

    def __repr__(self) -> str:
        return f"EdgeProgram(methods={list(self._programs)})"


def to_edge(
    programs: Union[ExportedProgram, Mapping[str, ExportedProgram]],
    *,
    verify: bool = True,
    fold_constants: bool = True,
) -> EdgeProgram:
    """Lowers exported programs to the edge dialect (see EdgeProgram).

    `programs` is one ExportedProgram (the method "forward") or a mapping of
    method name to ExportedProgram. The inputs are not modified. With
    `fold_constants`, computations that only read constants (a Linear's
    weight transpose, an attention mask) run now and become constants, and
    inference batch norms after convolutions are folded into their weights
    (passes/batch_norm_folding.py). Raises
    torchedge.errors.ExportError naming every unsupported operator, dtype or
    shape together with the user's source line.
    """
    if isinstance(programs, ExportedProgram):
        programs = {"forward": programs}
    for name, ep in programs.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"method name must be an identifier, got {name!r}")
        if not isinstance(ep, ExportedProgram):
            raise TypeError(f"method '{name}': expected an ExportedProgram, got {type(ep).__name__}")
    storages = {name: _constant_storages(ep) for name, ep in programs.items()}
    edge = {}
    for name, ep in programs.items():
        shared = frozenset().union(*(s for other, s in storages.items() if other != name))
        edge[name] = _to_edge_dialect(ep, name, fold_constants, shared, verify)
    if verify:
        _check_state_is_not_shared(edge)  # on functional graphs: mutations are in the signature
    return EdgeProgram(edge)


def _check_state_is_not_shared(programs: Mapping[str, ExportedProgram]) -> None:
    """Each method keeps its own copy of the buffers it mutates (in its own
    planned memory), so a buffer one method mutates must not be read by
    another, which would never see the updates that eager shows it."""
    def storage(ep: ExportedProgram, target: str) -> Optional[int]:
        t = ep.state_dict.get(target, ep.constants.get(target))
        return t.untyped_storage().data_ptr() if isinstance(t, torch.Tensor) and t.numel() else None

    problems = []
    for name, ep in programs.items():
        for target in set(ep.graph_signature.buffers_to_mutate.values()):
            mutated = storage(ep, target)
            for other, other_ep in programs.items():
                if other == name or mutated is None:
                    continue
                if any(storage(other_ep, spec.target) == mutated
                       for spec in other_ep.graph_signature.input_specs if spec.target):
                    problems.append(Problem(
                        f"buffer '{target}' is mutated by method '{name}' and also used by "
                        f"method '{other}'; mutable state is kept per method, so sharing it "
                        "between methods is not supported", method=other))
    if problems:
        raise ExportError(problems)


def _constant_storages(ep: ExportedProgram) -> frozenset[int]:
    """Storage addresses of the method's constants (to spot weights shared by methods)."""
    tensors = list(ep.state_dict.values()) + list(ep.constants.values())
    return frozenset(
        t.untyped_storage().data_ptr() for t in tensors if isinstance(t, torch.Tensor) and t.numel()
    )


def _to_edge_dialect(
    ep: ExportedProgram, name: str, fold: bool, shared: frozenset[int], verify: bool
) -> ExportedProgram:
    edge = ep.run_decompositions(edge_decompositions())
    gm = edge.graph_module
    modules = graph_modules(gm)  # the graph and torch.cond branch graphs
    for module in modules:
        for edge_pass in EDGE_PASSES:
            edge_pass(module)
    if fold:
        passes.fold_batch_norms(edge)  # writes the folded weights as ops fold_constants computes
    try:
        refresh_fake_tensors(gm)
    except Exception:
        if verify:  # an unsupported construct is the likely cause: name it
            verify_edge_program(edge, name)
        raise
    if fold:
        passes.fold_constants(edge, keep=shared)
    passes.drop_unused_constants(edge)  # e.g. float weights convert_pt2e replaced by int8 ones
    for module in graph_modules(gm):
        passes.remove_redundant_copies(module)
        module.graph.lint()
        module.recompile()
    _sync_output_specs(edge, gm.graph)
    bound_data_dependent_sizes(gm)
    if verify:
        verify_edge_program(edge, name)
    return edge


def _sync_output_specs(ep: ExportedProgram, graph: torch.fx.Graph) -> None:
    """Points output specs at the nodes the output node now returns.

    Passes that drop identity views (detach, alias) rewire the output node;
    the signature names must follow.
    """
    output = graph.output_node()
    returned = output.args[0]
    specs = ep.graph_signature.output_specs
    for i, (spec, value) in enumerate(zip(specs, returned)):
        if not isinstance(value, torch.fx.Node) or getattr(spec.arg, "name", None) == value.name:
            continue
        if isinstance(spec.arg, TensorArgument):
            specs[i] = OutputSpec(spec.kind, TensorArgument(name=value.name), spec.target)
        elif isinstance(spec.arg, SymIntArgument):
            specs[i] = OutputSpec(spec.kind, SymIntArgument(name=value.name), spec.target)
