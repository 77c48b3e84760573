"""Selective build: which operators and dtypes a set of programs uses.

    from torchedge import selective
    ops = selective.ops_of_programs(["mobilenet_v2.pte"])   # OpList
    selective.op_list.render(ops)                            # the ops.yaml CMake reads

docs/selective-build.md describes the build side (-DTORCHEDGE_SELECTED_OPS).
"""

from torchedge.selective import op_list
from torchedge.selective.program_ops import ops_of_program, ops_of_programs

__all__ = ["op_list", "ops_of_program", "ops_of_programs"]
