"""The engines one round measures, each filling its row's samples.

A row (one engine at one thread count) holds lists of samples per metric
(summary.METRICS) and a status: "ok", "unavailable: why" (never ran) or
"failed: why" (stopped at its first failure; samples so far are kept).

- LlamaBench: one llama-bench process gives pp128, pp512 and tg128; its
  TTFT is the pp128 time (it samples no token).
- PromptRunner: an engine driven by prompt length and new tokens, two
  processes per round (128-token prompt then 128 new tokens: pp128, tg128,
  TTFT; 512-token prompt then one token: pp512): build/torchedge_llm and
  upstream ExecuTorch's runner.
Peak RSS is the larger of a round's processes' (VmHWM, process.py).
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from torchedge.bench.llm.llama_cpp import LlamaCpp
from torchedge.bench.llm.outputs import OutputError, parse_runner_line
from torchedge.bench.llm.process import MeasuredRun, run_measured
from torchedge.bench.llm.summary import METRICS

MB = 1e6
Row = dict[str, Any]
# (threads, prompt tokens, new tokens) -> (the runner's figures, its process)
Measure = Callable[[int, int, int], tuple[dict[str, Any], MeasuredRun]]


def new_row(engine: str, threads: int, model: Optional[Path], unavailable: Optional[str]) -> Row:
    size = model.stat().st_size if model is not None and model.is_file() else None
    return {"engine": engine, "threads": threads,
            "status": f"unavailable: {unavailable}" if unavailable else "ok",
            "samples": {m: [] for m in METRICS}, "file_mb": size / MB if size else None,
            "weight_bytes": size, "runs": []}


def fail(row: Row, why: str) -> None:
    row["status"] = f"failed: {why}"
    print(f"bench-llm: {row['engine']} at {row['threads']} thread(s) {row['status']}", file=sys.stderr)


def peak_mb(run: MeasuredRun) -> Optional[float]:
    return run.peak_rss_bytes / MB if run.peak_rss_bytes is not None else None


@dataclass
class LlamaBench:
    llama: LlamaCpp
    gguf: Path
    prompts: tuple[int, int]
    new_tokens: int
    repetitions: int
    timeout_s: float

    def measure(self, row: Row) -> None:
        try:
            tests, run = self.llama.bench(self.gguf, row["threads"], self.prompts, self.new_tokens,
                                          self.repetitions, self.timeout_s)
        except OutputError as e:
            return fail(row, str(e))
        samples = row["samples"]
        for test in tests:
            if f"{test.name}_tok_s" in samples:
                samples[f"{test.name}_tok_s"].extend(test.samples_tok_s)
            if test.name == f"pp{self.prompts[0]}":
                samples["ttft_ms"].extend(self.prompts[0] / s * 1e3 for s in test.samples_tok_s)
            row["weight_bytes"] = test.model_bytes  # the tensors llama.cpp reads, not the file
            row["build_commit"] = test.build_commit
        if peak_mb(run) is not None:
            samples["peak_rss_mb"].append(peak_mb(run))
        row["runs"].append({"wall_s": run.wall_s, "wait4_maxrss_mb": run.wait4_maxrss_bytes / MB})


@dataclass
class PromptRunner:
    measure_one: Measure
    prompts: tuple[int, int]
    new_tokens: int

    def measure(self, row: Row) -> None:
        peaks = []
        for prompt, new in ((self.prompts[0], self.new_tokens), (self.prompts[1], 1)):
            try:
                result, run = self.measure_one(row["threads"], prompt, new)
            except OutputError as e:
                return fail(row, str(e))
            samples = row["samples"]
            samples[f"pp{prompt}_tok_s"].append(result["prefill_tok_s"])
            if prompt == self.prompts[0]:
                samples[f"tg{self.new_tokens}_tok_s"].append(result["decode_tok_s"])
                samples["ttft_ms"].append(result["ttft_ms"])
            peaks.append(peak_mb(run) or result.get("peak_rss_mb"))
            row["runs"].append({"prompt_tokens": result["prompt_tokens"], "new_tokens": result["new_tokens"],
                                "wall_s": run.wall_s, "self_reported_peak_rss_mb": result.get("peak_rss_mb"),
                                "wait4_maxrss_mb": run.wait4_maxrss_bytes / MB})
        if all(p is not None for p in peaks):
            row["samples"]["peak_rss_mb"].append(max(peaks))


def torchedge_measure(runner: Path, pte: Path, tokenizer: Path, timeout_s: float) -> Measure:
    """build/torchedge_llm --benchmark (the runner contract: one JSON line)."""
    def measure_one(threads: int, prompt: int, new: int) -> tuple[dict[str, Any], MeasuredRun]:
        argv = [str(runner), "--model", str(pte), "--tokenizer", str(tokenizer), "--benchmark",
                "--prompt-tokens", str(prompt), "--new-tokens", str(new), "--threads", str(threads)]
        run = run_measured(argv, timeout_s)
        if run.failure():
            raise OutputError(f"{runner.name} --prompt-tokens {prompt} --new-tokens {new}: {run.failure()}")
        return asdict(parse_runner_line(run.stdout)), run
    return measure_one
