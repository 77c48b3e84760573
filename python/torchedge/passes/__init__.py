"""Graph rewrites over torch.fx graphs, one idea per module.

Each pass states in its docstring what holds afterwards. `to_edge` runs
`EDGE_PASSES` in order on the graph and on every torch.cond branch graph
(`graph_modules`), then `fold_batch_norms` (with constant folding on),
`refresh_fake_tensors`, `fold_constants` (over
the ExportedProgram, it edits the signature) and `remove_redundant_copies`.
`to_pte` runs `activation_fusion.fuse_conv_activations`,
`pool_indices.drop_unused_pool_indices`, `safe_softmax.fuse_safe_softmax`,
`weight_prepacking.prepack_linear_weights`,
`linear_epilogue_fusion.fuse_linear_epilogues`,
`blocked_layout.use_blocked_layout`,
`group_norm_blocked_fusion.fuse_group_norm_blocked` and
`winograd_filters.transform_winograd_filters` on a copy of each method
(runtime-only: they introduce torchedge::conv2d_clamp, max_pool2d,
safe_softmax, linear_prepacked(_fused), the channel-blocked ops of
conv2d_blocked_op.py, conv2d_winograd_blocked_op.py and
group_norm_blocked_op.py, and conv2d_winograd).
"""

from torchedge.passes.batch_norm_folding import fold_batch_norms
from torchedge.passes.constant_folding import drop_unused_constants, fold_constants
from torchedge.passes.fake_tensors import refresh_fake_tensors
from torchedge.passes.graph_modules import graph_modules
from torchedge.passes.redundant_copies import remove_redundant_copies
from torchedge.passes.remove_assertions import remove_runtime_assertions
from torchedge.passes.scalar_overloads import use_scalar_overloads
from torchedge.passes.view_copies import replace_views_with_copies

EDGE_PASSES = (
    remove_runtime_assertions,
    replace_views_with_copies,
    use_scalar_overloads,
)

__all__ = [
    "EDGE_PASSES",
    "drop_unused_constants",
    "fold_batch_norms",
    "fold_constants",
    "graph_modules",
    "remove_redundant_copies",
    "refresh_fake_tensors",
    "remove_runtime_assertions",
    "replace_views_with_copies",
    "use_scalar_overloads",
]
