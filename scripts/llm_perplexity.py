"""Perplexity of SmolLM2-135M-Instruct exported at each precision, beside llama.cpp's
perplexity of the Q4_1 GGUF on the same text (docs/llm.md).

    .venv/bin/python scripts/llm_perplexity.py [--context 512] [--precisions fp32 int8 8da4w int4]
                                               [--out out/llm-perplexity] [--threads 2]

The text is torchedge.llm.perplexity_corpus (stdlib docstrings, deterministic);
both engines cut it into chunks of --context tokens and score each chunk's second
half, as llama-perplexity does (torchedge/llm/perplexity.py). Programs are
exported with full_logits so a chunk runs in one prefill call. Writes
results.json and results.md to --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--context", type=int, default=512)
    parser.add_argument("--precisions", nargs="+", default=["fp32", "int8", "8da4w", "int4"])
    parser.add_argument("--group-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "llm-perplexity")
    args = parser.parse_args(argv)

    import torchedge
    import torchedge.llm as llm
    from torchedge.bench.llm.llama_cpp import DEFAULT_BIN, LlamaCpp
    from torchedge.llm.export import build_decoder, export_decoder
    from torchedge.llm.perplexity import perplexity_of_tokens
    from torchedge.llm.perplexity_corpus import perplexity_corpus
    from torchedge.llm.tokenizer import Tokenizer
    from torchedge.llm.tokenizer_file import write_tokenizer_gguf

    args.out.mkdir(parents=True, exist_ok=True)
    gguf = llm.bundled_smollm2()
    corpus = perplexity_corpus()
    corpus_file = args.out / "corpus.txt"
    corpus_file.write_text(corpus, encoding="utf-8")
    tokenizer_file = write_tokenizer_gguf(gguf, args.out / "smollm2.tokenizer.gguf")
    tokens = Tokenizer.from_gguf(str(tokenizer_file)).encode(corpus)
    torchedge.runtime.set_num_threads(args.threads)
    rows = []
    for precision in args.precisions:
        start = time.time()
        decoder = build_decoder(gguf, None if precision == "fp32" else precision, args.group_size,
                                max_context=args.context, full_logits=True)
        path = args.out / f"smollm2-{precision}-ppl.pte"
        export_decoder(decoder, max_prefill=args.context).save(str(path))
        del decoder
        result = perplexity_of_tokens(torchedge.runtime.load(str(path)), tokens, args.context)
        rows.append({"engine": "torchedge", "precision": precision, "perplexity": result.perplexity,
                     "tokens": result.tokens, "chunks": result.chunks, "scored": result.scored,
                     "file_mb": path.stat().st_size / 1e6, "seconds": time.time() - start})
        print(json.dumps(rows[-1]), flush=True)
    llama = LlamaCpp(DEFAULT_BIN)
    if llama.missing() is None:
        peer, _ = llama.perplexity(gguf, corpus_file, args.context, args.threads, timeout_s=1800)
        rows.append({"engine": "llama.cpp", "precision": "Q4_1 GGUF", "perplexity": peer.perplexity,
                     "plus_minus": peer.plus_minus, "chunks": peer.chunks, "scored": peer.scored,
                     "tokens": llama.token_count(gguf, corpus_file),
                     "file_mb": gguf.stat().st_size / 1e6})
        print(json.dumps(rows[-1]), flush=True)
    else:
        print(f"llama.cpp: {llama.missing()}", file=sys.stderr)
    peer = next((r["perplexity"] for r in rows if r["engine"] == "llama.cpp"), None)
    lines = ["| engine | precision | perplexity | vs llama.cpp Q4_1 | tokens | chunks x context | file MB |",
             "| --- | --- | --: | --: | --: | --: | --: |"]
    for r in rows:
        ratio = f"{r['perplexity'] / peer - 1:+.2%}" if peer else "n/a"
        lines.append(f"| {r['engine']} | {r['precision']} | {r['perplexity']:.3f} | {ratio} | {r['tokens']} | "
                     f"{r['chunks']} x {args.context} | {r['file_mb']:.1f} |")
    (args.out / "results.json").write_text(json.dumps(rows, indent=2))
    (args.out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
