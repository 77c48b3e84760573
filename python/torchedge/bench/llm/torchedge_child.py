"""Child: the torchedge steps that run in Python, each in a process of its
own so the harness never holds a model: exporting the .pte and computing
its perplexity.

    python -m torchedge.bench.llm.torchedge_child export --gguf M.gguf --pte M.pte
    python -m torchedge.bench.llm.torchedge_child perplexity --pte M.pte --corpus C.txt \
        --context 512 --threads 2

Each prints one JSON line: {"status": "ok", ...} or {"status": "not available",
"reason": ...} when the torchedge.llm function it needs cannot be imported.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
import time
from dataclasses import asdict, is_dataclass
from pathlib import Path

EXPORT_OPTIONS = {"quantize": "8da4w", "group_size": 32, "max_context": 2048}


def export(gguf: str, pte: str) -> dict:
    try:
        from torchedge.llm import export as llm_export
    except ImportError as e:
        return {"status": "not available", "reason": f"torchedge.llm.export: {e}"}
    start = time.monotonic()
    llm_export(gguf, out=pte, **EXPORT_OPTIONS)
    return {"status": "ok", "pte": pte, "options": EXPORT_OPTIONS,
            "seconds": time.monotonic() - start}


def perplexity(pte: str, corpus: str, context: int, threads: int) -> dict:
    # From its module: once torchedge.llm.perplexity (the module) is imported,
    # the package attribute of that name is the module, not the function.
    try:
        llm_perplexity = importlib.import_module("torchedge.llm.perplexity").perplexity
    except (ImportError, AttributeError) as e:
        return {"status": "not available", "reason": f"torchedge.llm.perplexity: {e}"}
    text = Path(corpus).read_text(encoding="utf-8")
    start = time.monotonic()
    options = {"context": context}
    if "threads" in inspect.signature(llm_perplexity).parameters:
        options["threads"] = threads
    result = llm_perplexity(pte, text, **options)
    seconds = time.monotonic() - start
    if is_dataclass(result):
        fields = asdict(result)
    elif isinstance(result, dict):
        fields = dict(result)
    else:
        fields = {"perplexity": float(result)}
    return {"status": "ok", "seconds": seconds, **fields}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    e = steps.add_parser("export")
    e.add_argument("--gguf", required=True)
    e.add_argument("--pte", required=True)
    p = steps.add_parser("perplexity")
    p.add_argument("--pte", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--context", type=int, default=512)
    p.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.step == "export":
        answer = export(args.gguf, args.pte)
    else:
        answer = perplexity(args.pte, args.corpus, args.context, args.threads)
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
