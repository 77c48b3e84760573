"""Developer tools: ETRecord (ahead of time), ETDump (recorded by the runtime), Inspector.

    pte = edge.to_pte(etrecord="model.etrecord")       # instruction -> node, module, source
    m = torchedge.runtime.load("model.pte", etdump=True)
    m.forward(x); m.write_etdump("out.etdump")         # or: torchedge_run --etdump out.etdump
    Inspector(etdump="out.etdump", etrecord="model.etrecord").print_summary()
    print(compare_intermediates(model, "model.pte", (x,), etrecord="model.etrecord"))

See docs/devtools.md for the file formats.
"""

from torchedge.devtools.etdump import ETDump, parse_etdump
from torchedge.devtools.etrecord import ETRecord, load_etrecord
from torchedge.devtools.arena import arena_usage
from torchedge.devtools.inspector import Inspector, InstructionRow
from torchedge.devtools.numeric_debugger import (
    IntermediateComparison, IntermediateRow, compare_intermediates)

__all__ = ["ETDump", "ETRecord", "Inspector", "InstructionRow", "IntermediateComparison",
           "IntermediateRow", "arena_usage", "compare_intermediates", "load_etrecord",
           "parse_etdump"]
