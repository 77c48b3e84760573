"""Child (product interpreter: transformers + gguf): what upstream
ExecuTorch's Llama export needs from the GGUF, written to one folder.

    python -m torchedge.bench.llm.upstream_checkpoint --gguf M.gguf --out DIR

- checkpoint.pth: the weights in Meta's Llama layout (transformers dequantizes
  the GGUF; q/k rows permuted back to interleaved RoPE as torchtune's
  hf_to_meta does; output.weight is the tied embedding), as the wheel's
  smollm2 convert_weights would write from a Hugging Face checkpoint (it needs
  torchtune, which .venv-peers does not hold);
- params.json: ModelArgs read from the model's config;
- tokenizer.json: the GGUF's tokenizer saved by transformers (upstream's
  runner reads Hugging Face tokenizer.json);
- prompts.json: for each prompt length P, text of the corpus's first tokens
  that re-encodes to exactly P tokens (the upstream runner takes text).
Prints one JSON line: {"status": "ok", ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch

from torchedge.llm.perplexity_corpus import perplexity_corpus

LAYER_NAMES = {  # Hugging Face -> Meta, per layer
    "self_attn.v_proj.weight": "attention.wv.weight", "self_attn.o_proj.weight": "attention.wo.weight",
    "mlp.gate_proj.weight": "feed_forward.w1.weight", "mlp.down_proj.weight": "feed_forward.w2.weight",
    "mlp.up_proj.weight": "feed_forward.w3.weight", "input_layernorm.weight": "attention_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
}


def _to_interleaved(weight: torch.Tensor, heads: int, head_dim: int) -> torch.Tensor:
    """q/k rows from Hugging Face's rotate-half RoPE order to Meta's interleaved order."""
    return weight.view(heads, 2, head_dim // 2, weight.shape[1]).transpose(1, 2).reshape(-1, weight.shape[1])


def meta_state_dict(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    c, sd = model.config, model.state_dict()
    head_dim = c.hidden_size // c.num_attention_heads
    out = {"tok_embeddings.weight": sd["model.embed_tokens.weight"], "norm.weight": sd["model.norm.weight"]}
    for i in range(c.num_hidden_layers):
        hf = f"model.layers.{i}."
        out[f"layers.{i}.attention.wq.weight"] = _to_interleaved(sd[hf + "self_attn.q_proj.weight"],
                                                                 c.num_attention_heads, head_dim)
        out[f"layers.{i}.attention.wk.weight"] = _to_interleaved(sd[hf + "self_attn.k_proj.weight"],
                                                                 c.num_key_value_heads, head_dim)
        for name, meta in LAYER_NAMES.items():
            out[f"layers.{i}.{meta}"] = sd[hf + name]
    out["output.weight"] = sd.get("lm_head.weight", out["tok_embeddings.weight"])
    return out


def params(config) -> dict:
    rope = getattr(config, "rope_theta", None) or config.rope_parameters["rope_theta"]
    return {"dim": config.hidden_size, "ffn_dim_multiplier": 1, "hidden_dim": config.intermediate_size,
            "n_heads": config.num_attention_heads, "n_kv_heads": config.num_key_value_heads,
            "n_layers": config.num_hidden_layers, "norm_eps": config.rms_norm_eps, "rope_theta": rope,
            "use_scaled_rope": False, "vocab_size": config.vocab_size, "use_hf_rope": False,
            "attention_qkv_bias": False}


def exact_prompts(tokenizer, lengths: list[int]) -> dict[str, dict]:
    ids = tokenizer.encode(perplexity_corpus(), add_special_tokens=False)
    prompts = {}
    for length in lengths:
        cut = length
        text = tokenizer.decode(ids[:cut])
        while len(tokenizer.encode(text, add_special_tokens=False)) > length and cut > 1:
            cut -= 1
            text = tokenizer.decode(ids[:cut])
        prompts[str(length)] = {"text": text, "tokens": len(tokenizer.encode(text, add_special_tokens=False))}
    return prompts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--prompts", nargs="+", type=int, default=[128, 512])
    args = parser.parse_args(argv)
    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"  # nothing is downloaded
    from transformers import AutoModelForCausalLM, AutoTokenizer

    args.out.mkdir(parents=True, exist_ok=True)
    model = AutoModelForCausalLM.from_pretrained(str(args.gguf.parent), gguf_file=args.gguf.name,
                                                 dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(str(args.gguf.parent), gguf_file=args.gguf.name)
    torch.save(meta_state_dict(model), args.out / "checkpoint.pth")
    (args.out / "params.json").write_text(json.dumps(params(model.config), indent=1))
    tokenizer.save_pretrained(str(args.out))
    prompts = exact_prompts(tokenizer, args.prompts)
    (args.out / "prompts.json").write_text(json.dumps(prompts, indent=1))
    print(json.dumps({"status": "ok", "prompt_tokens": {k: v["tokens"] for k, v in prompts.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
