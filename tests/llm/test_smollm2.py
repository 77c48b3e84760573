"""The real SmolLM2-135M-Instruct (the bundled Q4_1 GGUF) exported to a 4-bit
.pte: the runtime's greedy tokens equal its eager quantized reference's for
32 steps, and the C++ runner chats with it. Slow (loading and exporting the
checkpoint takes about a minute here)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
import torchedge.llm as llm
from torchedge.llm.export import build_decoder, export_decoder
from torchedge.llm.tokenizer import Tokenizer
from torchedge.llm.tokenizer_file import tokenizer_path_for, write_tokenizer_gguf

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "build" / "torchedge_llm"
STEPS = 32

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    source = llm.bundled_smollm2()
    decoder = build_decoder(source, "8da4w", group_size=32, max_context=256)
    path = tmp_path_factory.mktemp("smollm2") / "smollm2-8da4w.pte"
    export_decoder(decoder, max_prefill=64).save(str(path))
    write_tokenizer_gguf(source, tokenizer_path_for(path))
    decoder.reset()
    return decoder, path


def test_runtime_greedy_tokens_equal_the_eager_quantized_reference(smollm2):
    decoder, path = smollm2
    tokenizer = Tokenizer.from_gguf(str(tokenizer_path_for(path)))
    prompt = tokenizer.encode("<|im_start|>user\nWhat is the capital of France?<|im_end|>\n"
                              "<|im_start|>assistant\n")
    program = torchedge.runtime.load(str(path))
    ids = torch.tensor([prompt])
    with torch.no_grad():
        eager_logits = decoder(ids, torch.tensor([0]))
    runtime_logits = program.forward(ids, torch.tensor([0]))
    eager, runtime = [], []
    for position in range(len(prompt), len(prompt) + STEPS):
        eager.append(int(eager_logits[0, -1].argmax()))
        runtime.append(int(runtime_logits[0, -1].argmax()))
        token = torch.tensor([[eager[-1]]])
        with torch.no_grad():
            eager_logits = decoder(token, torch.tensor([position]))
        runtime_logits = program.forward(token, torch.tensor([position]))
    print("reply:", tokenizer.decode(runtime))
    assert runtime == eager
    assert "Paris" in tokenizer.decode(runtime)


def test_the_cli_answers(smollm2):
    _, path = smollm2
    assert RUNNER.is_file(), "build/torchedge_llm is built by `make build`"
    # --raw: the prompt of the test above (no system turn), whose greedy reply is known.
    prompt = "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
    result = subprocess.run([str(RUNNER), "--model", str(path), "--tokenizer", str(tokenizer_path_for(path)),
                             "--raw", "--prompt", prompt, "--max-new-tokens", "24"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Paris" in result.stdout
