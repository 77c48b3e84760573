"""torchedge.llm: decoder LLMs exported to one .pte and run by the C++ runner.

    import torchedge.llm as llm
    llm.export(llm.bundled_smollm2(), out="smollm2.pte", quantize="8da4w", group_size=32,
               max_context=2048)          # also writes smollm2.tokenizer.gguf beside it
    print(llm.generate("smollm2.pte", "What is the capital of France?", max_new_tokens=64))
    for piece in llm.stream("smollm2.pte", "Tell me a story."):
        print(piece, end="", flush=True)

export: export.py (decoder.py is the module it captures); generate / stream /
Runner: the C++ generation loop (extension/llm) through the bindings
(generation.py); perplexity: perplexity.py; the tokenizer: tokenizer.py.
"""

from __future__ import annotations

from torchedge.llm.export import build_decoder, export
# Bound after its submodule is imported, so the name stays the function.
from torchedge.llm.perplexity import perplexity
from torchedge.llm.source import bundled_smollm2

__all__ = ["Runner", "build_decoder", "bundled_smollm2", "export", "generate", "perplexity", "stream"]


def __getattr__(name: str):
    # The runtime halves load the C++ extension only when asked for.
    if name in ("Runner", "generate", "stream"):
        import importlib

        generation = importlib.import_module("torchedge.llm.generation")
        return getattr(generation, "generate_text" if name == "generate" else name)
    raise AttributeError(f"module 'torchedge.llm' has no attribute {name!r}")
