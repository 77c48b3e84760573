"""make bench-llm's harness: its parsers on captured output of llama-bench,
llama-perplexity, llama-tokenize and the torchedge runner; the summary
arithmetic; the perplexity corpus is deterministic and of the planned size.

Fast: no engine runs here (the samples were captured from llama.cpp 0c1e570,
the llama-cpp-python 0.3.36 sdist, on the project's Zen 4 host).
"""

from __future__ import annotations

import json
import math

import pytest

from torchedge.bench.llm.outputs import (OutputError, last_json_object, parse_llama_bench_json,
                                         parse_llama_perplexity, parse_runner_line, parse_token_count)
from torchedge.bench.llm.engines import PromptRunner, new_row
from torchedge.bench.llm.memory_bandwidth import parse_tool_output
from torchedge.bench.llm.process import MeasuredRun
from torchedge.bench.llm.report import results_markdown
from torchedge.bench.llm.summary import decode_ceiling, ratios, summarize_row
from torchedge.llm.perplexity_corpus import perplexity_corpus


def _bench_record(n_prompt: int, n_gen: int, ts: list[float]) -> dict:
    return {"build_commit": "0c1e570", "cpu_info": "AMD EPYC", "model_type": "llama 256M Q4_1",
            "model_size": 96576768, "model_n_params": 134515008, "n_threads": 1,
            "n_prompt": n_prompt, "n_gen": n_gen, "n_depth": 0, "avg_ns": 926089336,
            "avg_ts": sum(ts) / len(ts), "samples_ns": [926089336] * len(ts), "samples_ts": ts}


# As llama-bench -o json prints it (fields trimmed; the layout is its own).
LLAMA_BENCH_JSON = json.dumps([_bench_record(128, 0, [138.216]), _bench_record(512, 0, [251.414]),
                               _bench_record(0, 128, [159.728, 161.0])], indent=2)

LLAMA_PERPLEXITY_STDERR = """\
0.00.181.699 I system_info: n_threads = 2 (n_threads_batch = 2) / 2 | CPU : SSE3 = 1 | AVX = 1 |
0.00.181.716 I perplexity: tokenizing the input ..
0.00.190.558 I perplexity: tokenization took 8.836 ms
0.00.190.604 I perplexity: calculating perplexity over 11 chunks, n_ctx=512, batch_size=2048, n_seq=4
0.10.140.640 I perplexity: 9.95 seconds per pass - ETA 1.01.716.650 I Final estimate: PPL = 14.3415 +/- 0.79433
"""
LLAMA_PERPLEXITY_STDOUT = ("0.45 minutes\n[1]15.5917,[2]11.3979,[3]14.4970,[4]15.9220,[5]15.8352,"
                           "[6]15.0405,[7]14.2070,[8]14.3310,[9]14.5107,[10]14.8480,[11]14.3415,\n")

RUNNER_STDOUT = """\
loading out/bench-llm/smollm2-8da4w.pte
{"prompt_tokens": 128, "prefill_s": 0.21, "prefill_tok_s": 609.5, "new_tokens": 128, "decode_s": 0.8, "decode_tok_s": 160.0, "ttft_ms": 215.3, "peak_rss_mb": 180.5}
"""


def test_llama_bench_json():
    tests = parse_llama_bench_json("build: 0c1e570 (1)\n" + LLAMA_BENCH_JSON)
    assert [t.name for t in tests] == ["pp128", "pp512", "tg128"]
    assert tests[0].samples_tok_s == (138.216,)
    assert tests[2].samples_tok_s == (159.728, 161.0)
    assert all(t.threads == 1 and t.model_bytes == 96576768 for t in tests)
    assert tests[0].build_commit == "0c1e570"


def test_llama_bench_json_faults():
    with pytest.raises(OutputError, match="no JSON"):
        parse_llama_bench_json("error: failed to load model")
    with pytest.raises(OutputError, match="no tests"):
        parse_llama_bench_json("[\n]\n")
    broken = json.loads(LLAMA_BENCH_JSON)
    del broken[0]["n_threads"]
    with pytest.raises(OutputError, match="lacks a field"):
        parse_llama_bench_json(json.dumps(broken))


def test_llama_perplexity():
    result = parse_llama_perplexity(LLAMA_PERPLEXITY_STDOUT + LLAMA_PERPLEXITY_STDERR)
    assert result.perplexity == pytest.approx(14.3415)
    assert result.plus_minus == pytest.approx(0.79433)
    assert (result.chunks, result.context) == (11, 512)
    assert result.scored == 11 * 255  # the second half of each chunk, less its last token


def test_llama_perplexity_faults():
    short = ("perplexity: you need at least 1024 tokens to evaluate perplexity with a context of 512\n"
             "perplexity: the data file you provided tokenizes to only 700 tokens\n")
    with pytest.raises(OutputError, match="at least 1024 tokens"):
        parse_llama_perplexity(short)
    no_final = LLAMA_PERPLEXITY_STDERR.split("Final")[0]
    with pytest.raises(OutputError, match="no final estimate"):
        parse_llama_perplexity(no_final)


def test_token_count():
    assert parse_token_count("[27936, 365, 39570]\nTotal number of tokens: 5712\n") == 5712
    with pytest.raises(OutputError):
        parse_token_count("[1, 2, 3]\n")


def test_runner_line():
    result = parse_runner_line(RUNNER_STDOUT)
    assert result.prompt_tokens == 128 and result.new_tokens == 128
    assert result.prefill_tok_s == 609.5 and result.decode_tok_s == 160.0
    assert result.ttft_ms == 215.3 and result.peak_rss_mb == 180.5


def test_runner_line_faults():
    with pytest.raises(OutputError, match="nothing"):
        parse_runner_line("\n")
    with pytest.raises(OutputError, match="not JSON"):
        parse_runner_line('{"prompt_tokens": 128}\nSegmentation fault\n')
    with pytest.raises(OutputError, match="lacks decode_s"):
        record = json.loads(RUNNER_STDOUT.splitlines()[-1])
        del record["decode_s"]
        parse_runner_line(json.dumps(record))
    with pytest.raises(OutputError, match="wrong type"):
        parse_runner_line(RUNNER_STDOUT.replace("609.5", '"fast"'))


def test_last_json_object():
    assert last_json_object('log\n{"status": "ok"}\n\n') == {"status": "ok"}
    assert last_json_object("[1, 2]") is None
    assert last_json_object("") is None


def test_memory_bandwidth_tool_output():
    text = ("1 thread :   22.4 GB/s over 512 MiB,   61.0 GB/s over 8 MiB\n"
            "2 threads:   31.5 GB/s over 512 MiB,  118.2 GB/s over 8 MiB\n")
    by_threads = parse_tool_output(text)
    assert by_threads[1]["read_gb_s"] == 22.4 and by_threads[2]["read_gb_s"] == 31.5
    assert by_threads[2]["buffer_mib"] == 512 and by_threads[1]["cached_read_gb_s"] == 61.0
    assert parse_tool_output("usage: memory_bandwidth [MiB] [passes]") == {}


def _fake_run(peak_mb: float) -> MeasuredRun:
    return MeasuredRun(["runner"], 0, "", "", int(peak_mb * 1e6), int(peak_mb * 2e6), 1.0, False)


def test_prompt_runner_fills_a_row():
    calls = []

    def measure_one(threads, prompt, new):
        calls.append((threads, prompt, new))
        if len(calls) > 2:
            raise OutputError("runner crashed")
        result = {"prompt_tokens": prompt, "new_tokens": new, "prefill_tok_s": 4.0 * prompt,
                  "decode_tok_s": 50.0, "ttft_ms": 300.0, "peak_rss_mb": 99.0}
        return result, _fake_run(150.0 + prompt / 128)

    engine = PromptRunner(measure_one, (128, 512), 128)
    row = new_row("torchedge", 2, None, None)
    engine.measure(row)
    assert calls == [(2, 128, 128), (2, 512, 1)]
    samples = row["samples"]
    assert samples["pp128_tok_s"] == [512.0] and samples["pp512_tok_s"] == [2048.0]
    assert samples["tg128_tok_s"] == [50.0] and samples["ttft_ms"] == [300.0]
    assert samples["peak_rss_mb"] == [pytest.approx(154.0)]  # VmHWM, the larger of the two processes
    assert row["status"] == "ok"
    engine.measure(row)
    assert row["status"] == "failed: runner crashed" and samples["tg128_tok_s"] == [50.0]


def _row(engine: str, threads: int, tg: list[float], file_mb: float) -> dict:
    return {"engine": engine, "threads": threads, "status": "ok", "file_mb": file_mb,
            "weight_bytes": int(file_mb * 1e6),
            "samples": {"pp128_tok_s": [100.0, 300.0, 200.0], "pp512_tok_s": [], "tg128_tok_s": tg,
                        "ttft_ms": [3.0, 1.0, 2.0], "peak_rss_mb": [150.0, 160.0]}}


def test_summary_ratios_and_ceiling():
    peer = summarize_row(_row("llama.cpp", 1, [100.0, 120.0, 110.0], 100.0))
    ours = summarize_row(_row("torchedge", 1, [55.0, 60.0, 50.0], 80.0))
    assert peer["median"]["pp128_tok_s"] == 200.0 and peer["best"]["pp128_tok_s"] == 300.0
    assert peer["median"]["ttft_ms"] == 2.0 and peer["best"]["ttft_ms"] == 1.0
    assert "pp512_tok_s" not in peer["median"]
    (entry,) = ratios([peer, ours], [1], "llama.cpp")
    assert entry["peer"] == "llama.cpp"
    assert entry["median"]["tg128_tok_s"] == pytest.approx(55.0 / 110.0)
    assert entry["file_mb"] == pytest.approx(0.8)
    ceilings = decode_ceiling([peer, ours], {"1": {"read_gb_s": 22.0}})
    assert ceilings[0]["achieved_gb_s"] == pytest.approx(100e6 * 110.0 / 1e9)
    assert ceilings[0]["fraction_of_ceiling"] == pytest.approx(11.0 / 22.0)
    assert ceilings[0]["ceiling_tok_s"] == pytest.approx(220.0)


def test_markdown_with_torchedge_unavailable():
    peer = summarize_row(_row("llama.cpp", 1, [100.0], 96.6))
    missing = summarize_row({"engine": "torchedge", "threads": 1, "samples": {},
                             "status": "unavailable: build/torchedge_llm is not built"})
    data = {"host": {"cpu": "AMD EPYC", "cpu_id": "AuthenticAMD family 26", "logical_cpus": 2,
                     "load_average_at_end": [1.0, 1.0, 1.0], "llama_cpp_build": "llama-cpp-python==0.3.36"},
            "model": {"gguf": "m.gguf", "gguf_bytes": 98362432, "pte": "m.pte", "pte_bytes": None},
            "options": {"rounds": 3}, "rows": [peer, missing], "ratios": ratios([peer, missing], [1], "llama.cpp"),
            "decode_ceiling": decode_ceiling([peer], {"1": {"read_gb_s": 20.0}}),
            "corpus": {"chars": 23647, "python": "3.11.7", "sha256": "ab" * 32},
            "perplexity": {"context": 512, "llama.cpp": {"status": "ok", "perplexity": 14.3415,
                                                         "plus_minus": 0.79, "chunks": 11, "context": 512,
                                                         "scored": 2805, "tokens": 5712},
                           "torchedge": {"status": "not available", "reason": "no .pte"}},
            "upstream_executorch": {"status": "not run", "reason": "a reason"}, "notes": ["a note"]}
    text = results_markdown(data)
    assert "| torchedge | 1 | unavailable: build/torchedge_llm is not built |" in text
    assert "No ratios" in text
    assert "PPL 14.3415" in text and "5712 tokens" in text
    assert "upstream ExecuTorch Llama: not run because a reason" in text


def test_corpus_is_deterministic_and_sized():
    first, second = perplexity_corpus(), perplexity_corpus()
    assert first == second
    assert 16_000 <= len(first) <= 32_000
    assert ">>>" not in first and "  " not in first
    words = first.split()
    assert 2_500 <= len(words) <= 6_000
    small = perplexity_corpus(max_chars=2_000)
    assert len(small) <= 2_001 and first.startswith(small.rstrip("\n"))


def test_corpus_token_count():
    """4,000-8,000 tokens with SmolLM2's tokenizer: at least two 512-token chunks
    for llama-perplexity, ten or more in practice."""
    from torchedge.llm.source import bundled_smollm2
    from torchedge.llm.tokenizer import Tokenizer

    tokens = Tokenizer.from_gguf(str(bundled_smollm2())).encode(perplexity_corpus())
    assert 4_000 <= len(tokens) <= 8_000
    assert math.floor(len(tokens) / 512) >= 8
