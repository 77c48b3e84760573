"""LlmConfig: the architecture facts of a decoder LLM, read from its checkpoint.

Nothing here is hard-coded per model: the numbers come from the model's
`transformers` config (which transformers fills from a GGUF's metadata or a
checkpoint's config.json), so any Llama-family model (Llama, SmolLM,
Mistral without a sliding window, Qwen2) exports the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from torchedge.errors import CheckpointError

# Module layouts the decoder wrapper knows (transformers class names).
SUPPORTED_ARCHITECTURES = ("LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM")


@dataclass(frozen=True)
class LlmConfig:
    architecture: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab_size: int
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tied_embeddings: bool

    @staticmethod
    def from_model(model) -> "LlmConfig":
        """Reads the facts from a transformers model; ExportError if it is not
        a decoder this exporter supports (naming what is not)."""
        name = type(model).__name__
        if name not in SUPPORTED_ARCHITECTURES:
            raise CheckpointError(f"torchedge.llm: model class {name} is not supported; "
                              f"supported: {', '.join(SUPPORTED_ARCHITECTURES)}")
        c = model.config
        heads = int(c.num_attention_heads)
        kv_heads = int(getattr(c, "num_key_value_heads", None) or heads)
        head_dim = int(getattr(c, "head_dim", None) or c.hidden_size // heads)
        if heads % kv_heads:
            raise CheckpointError(f"torchedge.llm: {heads} attention heads are not a multiple of "
                              f"{kv_heads} key/value heads")
        if getattr(c, "sliding_window", None) and getattr(c, "use_sliding_window", True) and \
                name != "Qwen2ForCausalLM":
            raise CheckpointError(f"torchedge.llm: sliding-window attention ({c.sliding_window}) is "
                              "not supported")
        rope = getattr(c, "rope_parameters", None) or getattr(c, "rope_scaling", None) or {}
        rope_type = rope.get("rope_type", rope.get("type", "default")) if isinstance(rope, dict) else "default"
        if rope_type not in ("default", "linear", "llama3"):
            raise CheckpointError(f"torchedge.llm: RoPE type '{rope_type}' is not supported "
                              "(default, linear, llama3 are)")
        theta = rope.get("rope_theta") if isinstance(rope, dict) else None
        theta = float(theta if theta is not None else getattr(c, "rope_theta", 10000.0))
        act = getattr(c, "hidden_act", "silu")
        if act != "silu":
            raise CheckpointError(f"torchedge.llm: MLP activation '{act}' is not supported (silu is)")
        return LlmConfig(
            architecture=name,
            layers=int(c.num_hidden_layers),
            hidden=int(c.hidden_size),
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            intermediate=int(c.intermediate_size),
            vocab_size=int(c.vocab_size),
            rms_norm_eps=float(c.rms_norm_eps),
            rope_theta=theta,
            max_position_embeddings=int(getattr(c, "max_position_embeddings", 0) or 0),
            tied_embeddings=bool(getattr(c, "tie_word_embeddings", False)),
        )
