"""The llama.cpp peer: its own llama-bench, llama-perplexity and
llama-tokenize, built by scripts/setup_llm_peers.sh into
.venv-peers/llama.cpp/bin (shared/PEERS.md: the Python binding samples in
Python and copies every logits row, so it understates llama.cpp's decode).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from torchedge.bench.llm.outputs import (BenchTest, OutputError, PeerPerplexity, parse_llama_bench_json,
                                         parse_llama_perplexity, parse_token_count)
from torchedge.bench.llm.process import MeasuredRun, run_measured

REPO = Path(__file__).resolve().parents[4]
DEFAULT_BIN = REPO / ".venv-peers" / "llama.cpp" / "bin"


@dataclass
class LlamaCpp:
    bin_dir: Path

    def missing(self) -> Optional[str]:
        """None when every tool is built, else why not."""
        absent = [t for t in ("llama-bench", "llama-perplexity", "llama-tokenize")
                  if not (self.bin_dir / t).is_file()]
        if absent:
            return (f"{', '.join(absent)} not in {self.bin_dir} "
                    "(run scripts/setup_llm_peers.sh)")
        return None

    def build_stamp(self) -> str:
        """The version and CMake flags the tools were built with."""
        stamp = self.bin_dir / ".stamp"
        return stamp.read_text().strip() if stamp.is_file() else ""

    def bench(self, gguf: Path, threads: int, prompts: tuple[int, ...], new_tokens: int,
              repetitions: int, timeout_s: float) -> tuple[list[BenchTest], MeasuredRun]:
        """One llama-bench process: pp<P> for each prompt length, tg<N>."""
        argv = [str(self.bin_dir / "llama-bench"), "-m", str(gguf), "-t", str(threads),
                "-p", ",".join(str(p) for p in prompts), "-n", str(new_tokens),
                "-r", str(repetitions), "-o", "json"]
        run = run_measured(argv, timeout_s)
        failure = run.failure()
        if failure:
            raise OutputError(f"llama-bench failed: {failure}")
        return parse_llama_bench_json(run.stdout), run

    def perplexity(self, gguf: Path, corpus: Path, context: int, threads: int,
                   timeout_s: float) -> tuple[PeerPerplexity, MeasuredRun]:
        argv = [str(self.bin_dir / "llama-perplexity"), "-m", str(gguf), "-f", str(corpus),
                "-c", str(context), "-t", str(threads)]
        run = run_measured(argv, timeout_s)
        text = run.stdout + "\n" + run.stderr
        if run.failure():
            try:  # a too-short corpus says so in a line worth reporting
                parse_llama_perplexity(text)
            except OutputError as e:
                raise OutputError(f"llama-perplexity failed: {e}; {run.failure()}") from e
        return parse_llama_perplexity(text), run

    def token_count(self, gguf: Path, text_file: Path, timeout_s: float = 120) -> int:
        """Tokens of the file with the GGUF's tokenizer, as llama-perplexity
        tokenizes it (with the BOS token when the vocabulary adds one)."""
        argv = [str(self.bin_dir / "llama-tokenize"), "-m", str(gguf), "-f", str(text_file),
                "--show-count", "--log-disable", "--ids"]
        run = run_measured(argv, timeout_s)
        if run.failure():
            raise OutputError(f"llama-tokenize failed: {run.failure()}")
        return parse_token_count(run.stdout)
