"""The LLM benchmark (make bench-llm): SmolLM2-135M-Instruct on torchedge
against llama.cpp on the same GGUF, and against upstream ExecuTorch's own
Llama export of its weights.

    python -m torchedge.bench.llm                    # 3 rounds, 1 and 2 threads
    python -m torchedge.bench.llm --rounds 1 --threads 2 --no-perplexity

llama.cpp is measured with its own llama-bench and llama-perplexity (built
by scripts/setup_llm_peers.sh); torchedge with build/torchedge_llm
--benchmark on the 4-bit .pte (exported from the GGUF when missing) and
torchedge.llm.perplexity; upstream ExecuTorch with its TextLLMRunner on its
XNNPACK 8da4w export (made once into out/bench-llm/upstream/). Each run is
a process of its own; the engines' order rotates round by round. Writes
out/bench-llm/results.json, results.md and chart.png: prefill tokens/s for
128- and 512-token prompts, decode tokens/s over 128 new tokens, time to
first token, peak RSS, file sizes, torchedge / peer ratios, decode against
the host's memory-bandwidth ceiling, and llama.cpp's and torchedge's
perplexity on the same corpus (torchedge.llm.perplexity_corpus).

Modules: suite (the run), engines (one engine's round), llama_cpp,
torchedge_child and upstream_executorch (the engines' programs), process
(a measured child process), outputs (parsers), summary (medians, ratios,
ceiling), report (results.md, chart); child scripts: memory_bandwidth,
upstream_checkpoint, upstream_run, plot_chart.
"""
