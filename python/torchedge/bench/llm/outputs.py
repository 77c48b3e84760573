"""Reading what the measured programs print: llama-bench's JSON, the final
estimate of llama-perplexity, llama-tokenize's count, and the last-line JSON
object of build/torchedge_llm --benchmark.

Every parser takes the program's text and returns typed values, or raises
OutputError naming what was missing, so a changed output format fails loudly
instead of being charted as zero.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Optional


class OutputError(ValueError):
    """A program's output did not have the expected form."""


@dataclass(frozen=True)
class BenchTest:
    """One llama-bench test: pp<N> (prefill of N prompt tokens) or tg<N>
    (decode of N new tokens), at one thread count."""

    name: str               # "pp128", "pp512", "tg128"
    threads: int
    samples_tok_s: tuple[float, ...]
    model_bytes: int        # llama-bench's model_size: bytes of the weights it loaded
    build_commit: str


def parse_llama_bench_json(text: str) -> list[BenchTest]:
    """The tests of `llama-bench -o json` (a JSON array, one object per test;
    log lines before it, on stderr or not, are skipped)."""
    start = text.find("[")
    if start < 0:
        raise OutputError("llama-bench printed no JSON array")
    try:
        records = json.loads(text[start:text.rindex("]") + 1])
    except ValueError as e:
        raise OutputError(f"llama-bench JSON does not parse: {e}") from e
    tests = []
    for record in records:
        try:
            n_prompt, n_gen = int(record["n_prompt"]), int(record["n_gen"])
            if n_prompt and n_gen:
                raise OutputError(f"test with both n_prompt={n_prompt} and n_gen={n_gen}")
            name = f"pp{n_prompt}" if n_prompt else f"tg{n_gen}"
            samples = tuple(float(s) for s in record.get("samples_ts") or [record["avg_ts"]])
            tests.append(BenchTest(name, int(record["n_threads"]), samples,
                                   int(record["model_size"]), str(record.get("build_commit", ""))))
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, OutputError):
                raise
            raise OutputError(f"llama-bench test record lacks a field: {e}") from e
    if not tests:
        raise OutputError("llama-bench JSON has no tests")
    return tests


@dataclass(frozen=True)
class PeerPerplexity:
    perplexity: float
    plus_minus: float
    chunks: int
    context: int
    scored: int             # tokens whose likelihood was scored: chunks * (context - context/2 - 1)


_CHUNKS = re.compile(r"calculating perplexity over (\d+) chunks, n_ctx=(\d+)")
_FINAL = re.compile(r"Final estimate: PPL = ([0-9.eE+-]+|nan|inf) \+/- ([0-9.eE+-]+|nan|inf)")


def parse_llama_perplexity(text: str) -> PeerPerplexity:
    """The final estimate of llama-perplexity (stdout and stderr together)."""
    chunks = _CHUNKS.search(text)
    final = _FINAL.search(text)
    if chunks is None:
        need = re.search(r"you need at least \d+ tokens.*", text)
        raise OutputError(need.group(0) if need else "llama-perplexity did not say how many chunks")
    if final is None:
        raise OutputError("llama-perplexity printed no final estimate")
    n_chunks, context = int(chunks.group(1)), int(chunks.group(2))
    return PeerPerplexity(float(final.group(1)), float(final.group(2)), n_chunks, context,
                          n_chunks * (context - context // 2 - 1))


def parse_token_count(text: str) -> int:
    """`llama-tokenize --show-count`'s total."""
    found = re.search(r"Total number of tokens: (\d+)", text)
    if found is None:
        raise OutputError("llama-tokenize printed no token count")
    return int(found.group(1))


RUNNER_FIELDS = {"prompt_tokens": int, "prefill_s": float, "prefill_tok_s": float,
                 "new_tokens": int, "decode_s": float, "decode_tok_s": float,
                 "ttft_ms": float, "peak_rss_mb": float}


@dataclass(frozen=True)
class RunnerResult:
    """One `torchedge_llm --benchmark` process: a prefill of prompt_tokens,
    then new_tokens decoded."""

    prompt_tokens: int
    prefill_s: float
    prefill_tok_s: float
    new_tokens: int
    decode_s: float
    decode_tok_s: float
    ttft_ms: float
    peak_rss_mb: float


def parse_runner_line(stdout: str) -> RunnerResult:
    """The JSON object on the last non-empty line of the runner's stdout."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise OutputError("torchedge_llm printed nothing on stdout")
    try:
        record: Any = json.loads(lines[-1])
    except ValueError as e:
        raise OutputError(f"torchedge_llm's last line is not JSON: {lines[-1][:200]!r}") from e
    if not isinstance(record, dict):
        raise OutputError("torchedge_llm's last line is not a JSON object")
    missing = [k for k in RUNNER_FIELDS if k not in record]
    if missing:
        raise OutputError(f"torchedge_llm's JSON lacks {', '.join(missing)}")
    try:
        return RunnerResult(**{k: kind(record[k]) for k, kind in RUNNER_FIELDS.items()})
    except (TypeError, ValueError) as e:
        raise OutputError(f"torchedge_llm's JSON has a field of the wrong type: {e}") from e


def last_json_object(stdout: str) -> Optional[dict]:
    """The JSON object on the last non-empty line (the harness's own child
    scripts answer that way), or None."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        value = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
