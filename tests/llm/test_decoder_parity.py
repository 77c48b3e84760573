"""The exported decoder equals transformers' model, eagerly and in the runtime.

A small random-weight Llama and a Qwen2-shaped model (tests/llm/tiny_llama.py)
stand in for real checkpoints (same module layout and numerics; the real
SmolLM2 runs in tests/llm/test_smollm2.py, marked slow).

Tolerances (float32): eager wrapper vs transformers 1e-5 of the largest
|logit|; runtime vs transformers 1e-4 of the largest |logit| at every
position (prefill rows and each of 64 decode steps); greedy tokens identical.
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from tiny_llama import tiny_llama
from torchedge.llm.export import build_decoder, export_decoder
from torchedge.memory.execution_plan import is_mutable_buffer
from torchedge.serialize import schema as s

CONTEXT = 96
PROMPT = 9
DECODE_STEPS = 64


def _relative_error(actual: torch.Tensor, reference: torch.Tensor) -> float:
    return ((actual - reference).abs().max() / reference.abs().max()).item()


def _prompt(vocab: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, (1, PROMPT), generator=generator)


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def model(request):
    return tiny_llama(seed=1, architecture=request.param)


@pytest.fixture(scope="module")
def float_program(model):
    decoder = build_decoder(model, None, max_context=CONTEXT, full_logits=True)
    pte = export_decoder(decoder, max_prefill=16)
    return pte, torchedge.runtime.load(pte.buffer)


def test_eager_wrapper_equals_transformers(model):
    decoder = build_decoder(model, None, max_context=CONTEXT, full_logits=True)
    ids = _prompt(model.config.vocab_size)
    with torch.no_grad():
        reference = model(ids).logits
        ours = decoder(ids, torch.tensor([0]))
        assert _relative_error(ours, reference) <= 1e-5
        sequence = ids
        for step in range(8):
            token = torch.tensor([[7 + step]])
            sequence = torch.cat([sequence, token], dim=1)
            step_logits = decoder(token, torch.tensor([sequence.shape[1] - 1]))
            assert _relative_error(step_logits, model(sequence).logits[:, -1:]) <= 1e-5


def test_runtime_logits_match_at_every_position(model, float_program):
    _, program = float_program
    ids = _prompt(model.config.vocab_size, seed=3)
    with torch.no_grad():
        reference = model(ids).logits
    logits = program.forward(ids, torch.tensor([0]))
    assert logits.shape == reference.shape
    errors = [_relative_error(logits[:, t], reference[:, t]) for t in range(PROMPT)]
    sequence = ids
    generator = torch.Generator().manual_seed(4)
    for _ in range(DECODE_STEPS):
        token = torch.randint(3, model.config.vocab_size, (1, 1), generator=generator)
        sequence = torch.cat([sequence, token], dim=1)
        step = program.forward(token, torch.tensor([sequence.shape[1] - 1]))
        with torch.no_grad():
            expected = model(sequence).logits[:, -1:]
        errors.append(_relative_error(step, expected))
    print(f"{type(model).__name__}: max relative logit error {max(errors):.2e} over "
          f"{PROMPT} prefill rows and {DECODE_STEPS} decode steps")
    assert max(errors) <= 1e-4


def test_greedy_generation_is_token_identical(model, float_program):
    _, program = float_program
    ids = _prompt(model.config.vocab_size, seed=5)
    with torch.no_grad():
        expected = model.generate(ids, max_new_tokens=DECODE_STEPS, do_sample=False,
                                  eos_token_id=None, pad_token_id=0)[0, PROMPT:].tolist()
    logits = program.forward(ids, torch.tensor([0]))[:, -1]
    tokens = []
    for position in range(PROMPT, PROMPT + DECODE_STEPS):
        token = int(logits.argmax())
        tokens.append(token)
        logits = program.forward(torch.tensor([[token]]), torch.tensor([position]))[:, -1]
    assert tokens == expected


def test_caches_are_state_updated_in_place_and_not_stored(model, float_program):
    pte, _ = float_program
    config = model.config
    plan = next(p for p in pte.inspect().program.execution_plan if p.name == "forward")
    names = [plan.operators[i.op_index].name for i in plan.chains[0].instructions
             if isinstance(i, s.KernelCall)]
    assert "aten::copy_" not in names  # no write-back copies: the kernel writes the cache
    caches = [v for v in plan.values if is_mutable_buffer(v)]
    assert len(caches) == 2 * config.num_hidden_layers
    assert all(v.data_buffer_idx == 0 for v in caches)  # zeros: not stored in the file
    kv_bytes = 2 * config.num_hidden_layers * CONTEXT * config.num_key_value_heads * 16 * 4
    assert pte.memory_plan["forward"].mutable_buffer_bytes == kv_bytes


def test_metadata_methods(float_program):
    pte, program = float_program
    methods = {p.name for p in pte.inspect().program.execution_plan}
    assert {"forward", "get_max_context_len", "get_max_seq_len", "get_vocab_size",
            "get_n_layers", "use_kv_cache", "get_full_logits"} <= methods


def test_positions_past_the_context_are_an_error(model, float_program):
    _, program = float_program
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError, match="context"):
        program.forward(torch.tensor([[5, 6]]), torch.tensor([CONTEXT - 1]))
