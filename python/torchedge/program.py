"""PteProgram: a serialized .pte program, and how edge-dialect methods become one.

This module knows nothing of EdgeProgram: EdgeProgram.to_pte hands
build_pte its methods' ExportedPrograms, so the imports point one way
(torchedge.edge -> torchedge.program).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Optional, Union

from torchedge.memory import MemoryReport

if TYPE_CHECKING:
    from torch.export import ExportedProgram

    from torchedge.serialize import PteFile


@dataclass(frozen=True)
class PteOptions:
    """Options of EdgeProgram.to_pte()."""

    segment_alignment: int = 128          # file alignment of each data segment
    constant_tensor_alignment: int = 16   # alignment of each constant inside its segment
    memory_alignment: int = 64            # alignment of planned tensors in the arena (cache lines)
    include_stacktrace: bool = True       # per-instruction user source frames
    input_guards: bool = True             # check dynamic input shapes' constraints (emit/input_guards.py)
    alias_views: bool = True              # reshapes share memory via et_view (emit/view_aliases.py)
    # float32 conv2d + relu/hardtanh/clamp -> torchedge::conv2d_clamp, conv2d + residual add
    # (+ activation) -> torchedge::conv2d_add_clamp (passes/activation_fusion.py), and a max
    # pool whose indices are unused -> torchedge::max_pool2d (passes/pool_indices.py), and
    # scaled_dot_product_attention's seven-op safe softmax -> torchedge::safe_softmax
    # (passes/safe_softmax.py), then unmasked bmm + safe softmax + bmm -> torchedge::attention
    # (passes/attention_fusion.py), and x * sigmoid(x) -> aten::silu (passes/silu_fusion.py);
    # False for programs meant for upstream's runtime, which lacks those kernels.
    fuse_activations: bool = True
    # float32 linear layers with a constant weight -> torchedge::linear_prepacked, the weight
    # stored in the SGEMM's 16-wide strips (passes/weight_prepacking.py); constants are then
    # aligned to at least 64 bytes so the kernel reads the strips in place. False for
    # programs meant for upstream's runtime, which lacks that kernel.
    prepack_weights: bool = True
    # float32 3x3 stride-1 convolutions the kernel's per-call Winograd filter transform does
    # not pay for (Cin * Cout > 65536, or an output below 28x28) -> torchedge::conv2d_winograd, the
    # filters stored transformed (16/9 of their bytes; passes/winograd_filters.py); with
    # blocked_convolutions, the blocked 3x3 stride-1 ones on maps of at least 14x14
    # (blocked_layout.WINOGRAD_MIN_OUTPUT) -> torchedge::conv2d_winograd_blocked, the filters
    # stored transformed and packed. False for a smaller file or for upstream's runtime,
    # which lacks those kernels.
    winograd_filters: bool = True
    # Chains of float32 convolutions (ResNets, MobileNetV2) -> torchedge::conv2d_blocked /
    # conv2d_depthwise_blocked (/ conv2d_winograd_blocked, see winograd_filters) on NCHW16c
    # activations, the filters stored packed for them and layout changes where a chain starts
    # and ends (passes/blocked_layout.py); with fuse_activations, a group norm (+ GELU)
    # feeding a chain's layout change -> torchedge::group_norm_blocked
    # (passes/group_norm_blocked_fusion.py). False for upstream's runtime, which lacks those
    # kernels.
    blocked_convolutions: bool = True
    # Where to write an ETRecord (torchedge.devtools.etrecord; docs/devtools.md): every
    # instruction's debug handle mapped to its FX node(s), module path and source line,
    # plus the edge program. None: no ETRecord.
    etrecord: Union[str, os.PathLike, None] = None
    # Program-data separation (docs/program-data-separation.md): constant tensors written to
    # a .ptd file (PteProgram.data, saved beside the .pte) and referred to by name from the
    # program. True: every constant (parameters, buffers that are not mutated, lifted and
    # folded constants); a collection of names, or a predicate over names, picks some (a
    # frozen backbone's weights, shared by several programs). False: all stay in the .pte.
    external_data: Union[bool, Iterable[str], Callable[[str], bool]] = False

    def __post_init__(self) -> None:
        for name in ("segment_alignment", "constant_tensor_alignment", "memory_alignment"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0 or value & (value - 1):
                raise ValueError(f"{name} must be a power of two, got {value!r}")
        if self.segment_alignment % self.constant_tensor_alignment:
            raise ValueError("segment_alignment must be a multiple of constant_tensor_alignment")


class PteProgram:
    """The bytes of a .pte file plus what the compiler learned making it."""

    def __init__(
        self,
        buffer: bytes,
        memory_plan: Mapping[str, MemoryReport],
        operators: Mapping[str, tuple[str, ...]],
        data: Optional[bytes] = None,
    ) -> None:
        self._buffer = bytes(buffer)
        self._memory_plan = dict(memory_plan)
        self._operators = dict(operators)
        self._data = bytes(data) if data is not None else None

    @property
    def buffer(self) -> bytes:
        return self._buffer

    @property
    def data(self) -> Optional[bytes]:
        """The .ptd file bytes (to_pte(external_data=...)), or None when the
        program keeps all its constants."""
        return self._data

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self._memory_plan)

    @property
    def memory_plan(self) -> dict[str, MemoryReport]:
        """Per method: arena_bytes, lower_bound_bytes, num_tensors."""
        return dict(self._memory_plan)

    @property
    def operators(self) -> dict[str, tuple[str, ...]]:
        """Per method: the kernels it calls, e.g. ("aten::add.out", ...)."""
        return dict(self._operators)

    def inspect(self) -> "PteFile":
        """The decoded file (program tables and segment bytes)."""
        from torchedge.serialize import deserialize_pte

        return deserialize_pte(self._buffer)

    def save(self, path: Union[str, os.PathLike],
             data_path: Union[str, os.PathLike, None] = None) -> Optional[str]:
        """Writes the .pte atomically (a temporary file in the same folder,
        then rename) and, for a program with external data, the .ptd at
        `data_path` (default: `path` with the suffix .ptd). Returns the .ptd
        path written, or None."""
        _write_atomically(path, self._buffer)
        if self._data is None:
            return None
        data_path = os.fspath(data_path) if data_path is not None else \
            os.path.splitext(os.fspath(path))[0] + ".ptd"
        _write_atomically(data_path, self._data)
        return data_path

    def __len__(self) -> int:
        return len(self._buffer)

    def __repr__(self) -> str:
        data = f", data_bytes={len(self._data)}" if self._data is not None else ""
        return f"PteProgram(methods={list(self.methods)}, bytes={len(self._buffer)}{data})"


def _write_atomically(path: Union[str, os.PathLike], data: bytes) -> None:
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory")
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".torchedge-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def build_pte(methods: Mapping[str, "ExportedProgram"], options: PteOptions) -> PteProgram:
    """Plans memory, emits every method (name -> edge-dialect ExportedProgram,
    in execution-plan order) and serializes the program.

    The programs are not modified: the to_pte-time rewrites (fuse_activations,
    prepack_weights, winograd_filters, blocked_convolutions) run on a copy of
    each method they change.
    """
    from torchedge.emit import emit_program
    from torchedge.serialize import serialize_pte

    shared = _shared_constant_storages(list(methods.values()))
    lowered = {name: _lowered_for_runtime(ep, options, shared) for name, ep in methods.items()}
    runtime_methods = {name: ep for name, (ep, _) in lowered.items()}
    constant_alignment = options.constant_tensor_alignment
    if any(prepacked for _, prepacked in lowered.values()) \
            and options.segment_alignment % _PREPACKED_ALIGNMENT == 0:
        constant_alignment = max(constant_alignment, _PREPACKED_ALIGNMENT)
    emitted = emit_program(
        runtime_methods,
        constant_tensor_alignment=constant_alignment,
        memory_alignment=options.memory_alignment,
        include_stacktrace=options.include_stacktrace,
        input_guards=options.input_guards,
        alias_views=options.alias_views,
        external_data=options.external_data,
    )
    buffer = serialize_pte(emitted.program, emitted.segments, options.segment_alignment)
    data = None
    if options.external_data is not False and options.external_data is not None:
        from torchedge.serialize.flat_tensor import serialize_ptd

        data = serialize_ptd(emitted.external_data, options.segment_alignment)
    if options.etrecord is not None:
        from torchedge.devtools.etrecord import write_etrecord

        write_etrecord(options.etrecord, emitted, methods, runtime_methods)
    operators = {
        plan.name: tuple(op.qualified_name for op in plan.operators)
        for plan in emitted.program.execution_plan
    }
    return PteProgram(buffer, emitted.memory, operators, data)


# The optimized linear_prepacked kernel reads packed weight strips in place
# when they are 64-byte aligned (kernels/optimized/gemm/sgemm_driver.h).
_PREPACKED_ALIGNMENT = 64


def _shared_constant_storages(methods: list["ExportedProgram"]) -> frozenset[int]:
    """Storage addresses of the constants more than one method reads."""
    import torch

    seen: set[int] = set()
    shared: set[int] = set()
    for ep in methods:
        tensors = list(ep.state_dict.values()) + list(ep.constants.values())
        storages = {t.untyped_storage().data_ptr() for t in tensors
                    if isinstance(t, torch.Tensor) and t.numel()}
        shared |= seen & storages
        seen |= storages
    return frozenset(shared)


def _lowered_for_runtime(ep: "ExportedProgram", options: PteOptions,
                         shared: frozenset[int]) -> tuple["ExportedProgram", bool]:
    """(`ep`, or a copy of it with the runtime-only rewrites applied, whether
    weights were prepacked; weights in `shared`, read by other methods too,
    stay as they are). Copied only when a rewrite applies: the copy
    duplicates the weights for the call."""
    import copy

    import torch

    from torchedge.passes.activation_fusion import count_conv_activations, fuse_conv_activations
    from torchedge.passes.blocked_layout import count_blocked_candidates, use_blocked_layout
    from torchedge.passes.group_norm_blocked_fusion import fuse_group_norm_blocked
    from torchedge.passes.linear_epilogue_fusion import fuse_linear_epilogues
    from torchedge.passes.pool_indices import count_unused_pool_indices, drop_unused_pool_indices
    from torchedge.passes.safe_softmax import count_safe_softmax, fuse_safe_softmax
    from torchedge.passes.silu_fusion import count_sigmoid_muls, fuse_silu
    from torchedge.passes.attention_fusion import fuse_attention
    from torchedge.passes.weight_prepacking import (
        count_prepackable_linears,
        prepack_linear_weights,
    )
    from torchedge.passes.winograd_filters import (
        count_winograd_convolutions,
        transform_winograd_filters,
    )

    keep = frozenset(name for name, t in {**ep.state_dict, **ep.constants}.items()
                     if isinstance(t, torch.Tensor) and t.numel()
                     and t.untyped_storage().data_ptr() in shared)
    fuse = options.fuse_activations and (count_conv_activations(ep.graph_module) > 0
                                         or count_unused_pool_indices(ep.graph_module) > 0
                                         or count_safe_softmax(ep.graph_module) > 0
                                         or count_sigmoid_muls(ep.graph_module) > 0)
    prepack = options.prepack_weights and count_prepackable_linears(ep, keep) > 0
    winograd = options.winograd_filters and count_winograd_convolutions(ep, keep) > 0
    # Which convolutions form chains is known only after the fusion (a relu
    # between two convolutions joins the first); here, whether any could.
    blocked = options.blocked_convolutions and count_blocked_candidates(ep, keep) > 0
    if not fuse and not prepack and not winograd and not blocked:
        return ep, False
    ep = copy.deepcopy(ep)
    if fuse:
        fuse_silu(ep.graph_module)  # first: a SiLU may join blocked convolutions
        fuse_conv_activations(ep.graph_module)
        drop_unused_pool_indices(ep.graph_module)
        fuse_safe_softmax(ep.graph_module)
        fuse_attention(ep.graph_module)  # after the safe softmax it matches
    if prepack:
        prepack_linear_weights(ep, keep)
        if options.fuse_activations:
            fuse_linear_epilogues(ep.graph_module)
    if blocked:
        blocked = use_blocked_layout(ep, keep, winograd=options.winograd_filters) > 0
        if blocked and options.fuse_activations:
            fuse_group_norm_blocked(ep.graph_module)
    if winograd:
        transform_winograd_filters(ep, keep)
    return ep, prepack or winograd or blocked
