"""The C++ generation loop through the bindings (torchedge.llm.generate /
stream / Runner) and the torchedge_llm CLI, on a small random-weight Llama
exported with the bundled SmolLM2 tokenizer file (vocabulary 49152), so
tokens decode to text; greedy generation must equal eager's argmax loop
token for token. Bad input: a prompt longer than the context, generation
past the context, a tokenizer that does not fit the model, a .pte without
the LLM methods; each a clear error.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
import torchedge.llm as llm
from tiny_llama import tiny_llama
from torchedge.llm.export import build_decoder, export_decoder
from torchedge.llm.tokenizer_file import tokenizer_path_for, write_tokenizer_gguf

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "build" / "torchedge_llm"
VOCAB = 49152
CONTEXT = 64


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(model, pte path): a tiny random Llama over SmolLM2's vocabulary."""
    model = tiny_llama(seed=2, vocab=VOCAB, layers=1)
    decoder = build_decoder(model, None, max_context=CONTEXT)
    pte = export_decoder(decoder, max_prefill=16)
    path = tmp_path_factory.mktemp("llm") / "tiny.pte"
    pte.save(str(path))
    write_tokenizer_gguf(llm.bundled_smollm2(), tokenizer_path_for(path))
    return model, path


def _eager_greedy(model, ids: list[int], steps: int) -> list[int]:
    sequence = torch.tensor([ids])
    with torch.no_grad():
        out = model.generate(sequence, max_new_tokens=steps, do_sample=False, eos_token_id=None,
                             pad_token_id=0)
    return out[0, len(ids):].tolist()


def test_greedy_generation_equals_eager(exported):
    model, path = exported
    runner = llm.Runner(path)
    prompt = [1, 500, 600, 700, 800, 42]
    runner.generate(prompt, max_new_tokens=20, stop_at_end_of_turn=False)
    stats = runner.last_stats
    assert stats["new_tokens"] == 20 and stats["prompt_tokens"] == len(prompt)
    assert stats["stop_reason"] == "max new tokens"
    # The runner's tokens: the prompt and the 19 forwarded replies are in the cache.
    expected = _eager_greedy(model, prompt, 20)
    tokens = llm.Runner(path)
    pieces = []
    tokens.generate(prompt, max_new_tokens=20, stop_at_end_of_turn=False, on_text=pieces.append)
    from torchedge.llm.tokenizer import Tokenizer

    text = Tokenizer.from_gguf(str(tokenizer_path_for(path))).decode(expected)
    assert "".join(pieces) == text


def test_sampling_is_seeded_and_reproducible(exported):
    _, path = exported
    first = llm.generate(path, "Hello", max_new_tokens=16, temperature=0.8, top_p=0.9, top_k=50,
                         seed=7, stop_at_end_of_turn=False)
    again = llm.generate(path, "Hello", max_new_tokens=16, temperature=0.8, top_p=0.9, top_k=50,
                         seed=7, stop_at_end_of_turn=False)
    other = llm.generate(path, "Hello", max_new_tokens=16, temperature=0.8, top_p=0.9, top_k=50,
                         seed=8, stop_at_end_of_turn=False)
    assert first == again
    assert first != other


def test_stream_yields_the_same_text_as_generate(exported):
    _, path = exported
    text = llm.generate(path, "Tell me", max_new_tokens=12, stop_at_end_of_turn=False)
    pieces = list(llm.stream(path, "Tell me", max_new_tokens=12, stop_at_end_of_turn=False))
    assert len(pieces) > 1 and "".join(pieces) == text


def test_a_chat_continues_in_the_cache(exported):
    _, path = exported
    runner = llm.Runner(path)
    runner.chat("Hi", max_new_tokens=5)
    first = runner.position
    runner.chat("Again", max_new_tokens=5)
    assert runner.position > first
    runner.reset()
    assert runner.position == 0


def test_a_prompt_longer_than_the_context_is_an_error(exported):
    _, path = exported
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError, match="never truncated"):
        llm.generate(path, list(range(3, 3 + CONTEXT + 5)), max_new_tokens=4)


def test_generation_stops_at_the_end_of_the_context(exported):
    _, path = exported
    runner = llm.Runner(path)
    runner.generate(list(range(10, 10 + CONTEXT - 8)), max_new_tokens=100, stop_at_end_of_turn=False)
    assert runner.last_stats["stop_reason"] == "context full"
    assert runner.position == CONTEXT


def test_a_tokenizer_with_more_tokens_than_the_model_is_an_error(tmp_path):
    model = tiny_llama(seed=3, vocab=320, layers=1)
    pte = export_decoder(build_decoder(model, None, max_context=32), max_prefill=8)
    path = tmp_path / "small_vocab.pte"
    pte.save(str(path))
    write_tokenizer_gguf(llm.bundled_smollm2(), tokenizer_path_for(path))
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError, match="do not belong together"):
        llm.Runner(path)


def test_a_program_without_llm_methods_is_an_error(tmp_path, exported):
    _, llm_path = exported
    model = torch.nn.Sequential(torch.nn.Linear(4, 4))
    path = tmp_path / "plain.pte"
    torchedge.lower(model, (torch.randn(1, 4),)).save(str(path))
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError, match="not an LLM program"):
        llm.Runner(path, tokenizer=tokenizer_path_for(llm_path))


def test_cli_streams_a_reply_and_reports_speed(exported):
    _, path = exported
    assert RUNNER.is_file(), "build/torchedge_llm is built by `make build`"
    result = subprocess.run([str(RUNNER), "--model", str(path), "--tokenizer", str(tokenizer_path_for(path)),
                             "--prompt", "Hi", "--max-new-tokens", "8"], capture_output=True, text=True,
                             timeout=120)
    assert result.returncode == 0, result.stderr
    assert "decode" in result.stderr and "peak RSS" in result.stderr
    bench = subprocess.run([str(RUNNER), "--model", str(path), "--tokenizer", str(tokenizer_path_for(path)),
                            "--benchmark", "--prompt-tokens", "16", "--new-tokens", "8"],
                           capture_output=True, text=True, timeout=120)
    assert bench.returncode == 0, bench.stderr
    import json

    report = json.loads(bench.stdout.strip().splitlines()[-1])
    assert report["prompt_tokens"] == 16 and report["new_tokens"] == 8 and report["decode_tok_s"] > 0
    missing = subprocess.run([str(RUNNER), "--model", str(path) + ".missing", "--tokenizer",
                              str(tokenizer_path_for(path)), "--prompt", "Hi"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode != 0 and "torchedge_llm: load" in missing.stderr
