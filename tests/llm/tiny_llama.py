"""A small random-weight Llama (and a Qwen2-shaped variant) from transformers,
for fast LLM tests: same module layout and numerics as a real checkpoint."""

from __future__ import annotations

import torch


def tiny_llama(seed: int = 0, architecture: str = "llama", vocab: int = 320, layers: int = 2):
    import transformers

    torch.manual_seed(seed)
    common = dict(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=layers,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                  rms_norm_eps=1e-5, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2)
    if architecture == "qwen2":
        config = transformers.Qwen2Config(**common, rope_theta=1000000.0, use_sliding_window=False)
        model = transformers.Qwen2ForCausalLM(config)
    else:
        config = transformers.LlamaConfig(**common, rope_theta=10000.0)
        model = transformers.LlamaForCausalLM(config)
    with torch.no_grad():  # norms away from 1 so they are tested
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(torch.randn_like(p) * 0.1)
    return model.eval()
