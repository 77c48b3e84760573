"""Child (.venv-peers): upstream ExecuTorch's C++ LLM runner (TextLLMRunner,
the pybinding of extension/llm/runner) on its exported SmolLM2.

    upstream_run.py --pte M.pte --tokenizer tokenizer.json --prompt-text FILE \
        --new-tokens 128 --threads 2

Greedy (temperature 0). A warm-up generate of a few tokens runs first (as
llama-bench warms up), then reset() and the measured generate from position
0. The figures are the runner's own Stats (millisecond timestamps), as its
own report computes them: prefill = prompt_eval_end - inference_start
(tokenizing included: the pybinding leaves token_encode_end unset);
decode = generated tokens over inference_end - prompt_eval_end; TTFT =
first_token - inference_start (tokenizing included). Prints one JSON line in
the torchedge runner's fields; new_tokens is what was generated (fewer than
asked when the model emits an end token). The process holds torch (the custom-ops library
imports it), which its peak RSS includes.
"""

import argparse
import json
import warnings

warnings.simplefilter("ignore")
import executorch.extension.llm.custom_ops.custom_ops  # noqa: E402,F401  (llama::custom_sdpa)
import executorch.extension.pybindings.portable_lib as portable_lib  # noqa: E402
import executorch.kernels.quantized  # noqa: E402,F401  (quantized_decomposed ops)
import torch  # noqa: E402
from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--pte", required=True)
parser.add_argument("--tokenizer", required=True)
parser.add_argument("--prompt-text", required=True, help="file holding the prompt")
parser.add_argument("--new-tokens", type=int, default=128)
parser.add_argument("--threads", type=int, default=1)
args = parser.parse_args()

torch.set_num_threads(args.threads)
portable_lib._unsafe_reset_threadpool(args.threads)
prompt = open(args.prompt_text, encoding="utf-8").read()
runner = TextLLMRunner(args.pte, args.tokenizer)
stats = {}


def keep(s):
    names = ("inference_start_ms", "prompt_eval_end_ms", "first_token_ms",
             "inference_end_ms", "num_prompt_tokens", "num_generated_tokens",
             "SCALING_FACTOR_UNITS_PER_SECOND")
    stats.update({name: getattr(s, name) for name in names})


runner.generate(prompt[:200], GenerationConfig(echo=False, max_new_tokens=4, temperature=0.0, warming=True),
                stats_callback=keep)
runner.reset()
runner.generate(prompt, GenerationConfig(echo=False, max_new_tokens=args.new_tokens, temperature=0.0),
                stats_callback=keep)
ms = 1.0 / stats["SCALING_FACTOR_UNITS_PER_SECOND"]
prefill_s = (stats["prompt_eval_end_ms"] - stats["inference_start_ms"]) * ms
decode_s = (stats["inference_end_ms"] - stats["prompt_eval_end_ms"]) * ms
prompt_tokens, generated = stats["num_prompt_tokens"], stats["num_generated_tokens"]
print(json.dumps({
    "prompt_tokens": prompt_tokens, "prefill_s": prefill_s,
    "prefill_tok_s": prompt_tokens / prefill_s if prefill_s > 0 else None,
    "new_tokens": generated, "decode_s": decode_s,
    "decode_tok_s": generated / decode_s if decode_s > 0 and generated else None,
    "ttft_ms": (stats["first_token_ms"] - stats["inference_start_ms"]) * ms * 1e3,
    "threads_effective": portable_lib._threadpool_get_thread_count(),
}))
