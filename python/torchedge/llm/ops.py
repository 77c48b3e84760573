"""torchedge's decoder-LLM operators (torch custom ops) and their eager references.

    torchedge::rms_norm(input, weight, eps)                        -> Tensor
    torchedge::rope(x, cos, sin)                                   -> Tensor
    torchedge::silu_mul(gate, up)                                  -> Tensor
    torchedge::sdpa_kv_cache(q, k, v, k_cache, v_cache, start_pos, scale)
                                                                   -> (out, k_cache, v_cache)

Each has an `.out` overload (the runtime kernel's name; the emitter maps
functional -> out like any ATen op). The CPU implementations below are the
eager references the runtime kernels match; all tensors are float32 except
`start_pos` (int64 [1]).

rms_norm: over the last dim, as transformers' LlamaRMSNorm computes it:
    y = weight * (x * rsqrt(mean(x * x) + eps))
rope: x [B, T, H, D], cos and sin [T, D] (D even, the halves convention of
    transformers' rotate_half): with h = D / 2, for i < h
    out[.., i]     = x[i] * cos[t, i]     - x[i + h] * sin[t, i]
    out[.., i + h] = x[i + h] * cos[t, i + h] + x[i] * sin[t, i + h]
silu_mul: silu(gate) * up, same shapes (a SwiGLU MLP's middle).
sdpa_kv_cache: q [B, T, Hq, D]; k, v [B, T, Hkv, D]; k_cache, v_cache
    [B, S, Hkv, D] with S the context length; Hq a multiple of Hkv (grouped
    query heads: q head h reads kv head h // (Hq / Hkv)). Rows
    [p, p + T) of each cache (p = start_pos[0]) are replaced by k / v; then
    query t attends causally to cache rows [0, p + t]:
    out[b, t, h] = softmax_j(scale * q[b, t, h] . k_cache'[b, j, h']) @ v_cache'[b, j, h'].
    Returns out [B, T, Hq, D] and the updated caches. p < 0 or p + T > S
    is an error. The runtime writes the caches in place when the memory
    plan gives an output the input's bytes (emit/cache_in_place.py), so a
    decode step touches T rows of the cache, never the whole of it.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from torchedge.emit.state_in_place import register_state_outputs

NAMESPACE = "torchedge"
OP_NAMES = ("rms_norm", "rope", "silu_mul", "sdpa_kv_cache")

_library = torch.library.Library(NAMESPACE, "FRAGMENT")

_SCHEMAS = {
    "rms_norm": ("Tensor input, Tensor weight, float eps", "Tensor", "Tensor(a!) out", "Tensor(a!)"),
    "rope": ("Tensor x, Tensor cos, Tensor sin", "Tensor", "Tensor(a!) out", "Tensor(a!)"),
    "silu_mul": ("Tensor gate, Tensor up", "Tensor", "Tensor(a!) out", "Tensor(a!)"),
    "sdpa_kv_cache": (
        "Tensor q, Tensor k, Tensor v, Tensor k_cache, Tensor v_cache, Tensor start_pos, float scale",
        "(Tensor, Tensor, Tensor)",
        "Tensor(a!) out, Tensor(b!) k_cache_out, Tensor(c!) v_cache_out",
        "(Tensor(a!), Tensor(b!), Tensor(c!))",
    ),
}


def _require(condition: bool, op: str, message: str) -> None:
    if not condition:
        raise ValueError(f"torchedge::{op}: {message}")


def rms_norm_reference(input: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    _require(input.dtype == torch.float32 and weight.dtype == torch.float32, "rms_norm",
             f"input and weight must be float32, got {input.dtype} and {weight.dtype}")
    _require(weight.dim() == 1 and weight.shape[0] == input.shape[-1], "rms_norm",
             f"weight must be [{input.shape[-1]}], got {list(weight.shape)}")
    variance = input.pow(2).mean(-1, keepdim=True)
    return weight * (input * torch.rsqrt(variance + eps))


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    _require(x.dim() == 4 and x.shape[-1] % 2 == 0, "rope",
             f"x must be [B, T, H, D] with D even, got {list(x.shape)}")
    expected = [x.shape[1], x.shape[3]]
    _require(list(cos.shape) == expected and list(sin.shape) == expected, "rope",
             f"cos and sin must be [T, D] = {expected}, got {list(cos.shape)} and {list(sin.shape)}")
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)  # [T, 1, D] broadcasts over heads
    return x * cos + _rotate_half(x) * sin


def silu_mul_reference(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    _require(gate.shape == up.shape, "silu_mul",
             f"gate and up must have one shape, got {list(gate.shape)} and {list(up.shape)}")
    return F.silu(gate) * up


def _check_attention(q, k, v, k_cache, v_cache, start_pos) -> tuple[int, int]:
    op = "sdpa_kv_cache"
    _require(q.dim() == 4 and k.dim() == 4 and v.dim() == 4, op, "q, k and v must be [B, T, H, D]")
    b, t, hq, d = q.shape
    hkv = k.shape[2]
    _require(list(k.shape) == [b, t, hkv, d] and list(v.shape) == [b, t, hkv, d], op,
             f"k and v must be [{b}, {t}, Hkv, {d}], got {list(k.shape)} and {list(v.shape)}")
    _require(hkv > 0 and hq % hkv == 0, op, f"{hq} query heads are not a multiple of {hkv} kv heads")
    _require(k_cache.dim() == 4 and list(k_cache.shape) == list(v_cache.shape), op,
             "k_cache and v_cache must be [B, S, Hkv, D] of one shape")
    context = k_cache.shape[1]
    _require(list(k_cache.shape) == [b, context, hkv, d], op,
             f"caches must be [{b}, S, {hkv}, {d}], got {list(k_cache.shape)}")
    _require(start_pos.dtype == torch.int64 and start_pos.numel() == 1, op, "start_pos must be int64 [1]")
    start = int(start_pos.reshape(-1)[0])
    _require(0 <= start and start + t <= context, op,
             f"positions [{start}, {start + t}) do not fit the context of {context}")
    return start, context


def sdpa_kv_cache_reference(q, k, v, k_cache, v_cache, start_pos, scale):
    start, _ = _check_attention(q, k, v, k_cache, v_cache, start_pos)
    t = q.shape[1]
    k_cache = k_cache.clone()
    v_cache = v_cache.clone()
    k_cache[:, start:start + t] = k
    v_cache[:, start:start + t] = v
    length = start + t
    groups = q.shape[2] // k.shape[2]
    keys = k_cache[:, :length].repeat_interleave(groups, dim=2).transpose(1, 2)    # [B, Hq, L, D]
    values = v_cache[:, :length].repeat_interleave(groups, dim=2).transpose(1, 2)
    scores = torch.matmul(q.transpose(1, 2), keys.transpose(-1, -2)) * scale      # [B, Hq, T, L]
    rows = torch.arange(t).unsqueeze(1) + start
    columns = torch.arange(length).unsqueeze(0)
    scores = scores.masked_fill(columns > rows, float("-inf"))
    out = torch.matmul(torch.softmax(scores, dim=-1), values).transpose(1, 2)     # [B, T, Hq, D]
    return out.contiguous(), k_cache, v_cache


def _sdpa_fake(q, k, v, k_cache, v_cache, start_pos, scale):
    return torch.empty_like(q), torch.empty_like(k_cache), torch.empty_like(v_cache)


def _register() -> None:
    references = {
        "rms_norm": rms_norm_reference,
        "rope": rope_reference,
        "silu_mul": silu_mul_reference,
        "sdpa_kv_cache": sdpa_kv_cache_reference,
    }
    fakes = {
        "rms_norm": lambda input, weight, eps: torch.empty_like(input),
        "rope": lambda x, cos, sin: torch.empty_like(x),
        "silu_mul": lambda gate, up: torch.empty_like(gate),
        "sdpa_kv_cache": _sdpa_fake,
    }
    packet = getattr(torch.ops, NAMESPACE)
    for name in OP_NAMES:
        if hasattr(packet, name):  # module reloaded: already registered
            continue
        arguments, returns, outs, out_returns = _SCHEMAS[name]
        _library.define(f"{name}({arguments}) -> {returns}")
        _library.define(f"{name}.out({arguments}, *, {outs}) -> {out_returns}")
        _library.impl(name, references[name], "CompositeExplicitAutograd")
        torch.library.register_fake(f"{NAMESPACE}::{name}", fakes[name], lib=_library)
    # Its kernel writes the caches in place when given the buffers' bytes.
    register_state_outputs(packet.sdpa_kv_cache.default, {1: "k_cache", 2: "v_cache"})


_register()
