# The front door. `make demo` and `make test` set everything up from a fresh
# clone (Debian packages, .venv, C++ build) and are safe to re-run.
VENV    := .venv
PY      := $(VENV)/bin/python
BUILD   := build
JOBS    ?= $(shell nproc)
PYGEN   := python/torchedge/serialize/_generated

.PHONY: all setup peers llm-peers build test test-cpp test-python demo bench llm-demo bench-llm clean

all: build

setup:
	@./scripts/setup.sh

peers:
	@./scripts/setup_peers.sh

llm-peers: peers
	@./scripts/setup_llm_peers.sh

$(BUILD)/build.ninja: CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(abspath $(PY))

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)
	@mkdir -p $(PYGEN)
	@flatc --python -o $(PYGEN) schema/program.fbs schema/scalar_type.fbs
	@touch $(PYGEN)/__init__.py
	@$(PY) -c "import torchedge" 2>/dev/null || $(PY) -m pip install -q --no-deps --no-build-isolation -e .

test-cpp: build
	$(PY) scripts/export_test_models.py $(BUILD)/test_models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-python: build peers
	$(PY) -m pytest -q tests

test: test-cpp test-python

# MODEL=<name> picks any built-in or zoo model (e.g. make demo MODEL=resnet18);
# DEMO_ARGS passes other options (python -m torchedge.demo --help).
demo: build
	$(PY) -m torchedge.demo $(if $(MODEL),--model $(MODEL)) $(DEMO_ARGS)

# Not part of `make test`: the zoo on torchedge and its peers (docs/benchmarks.md).
# BENCH_ARGS passes options, e.g. make bench BENCH_ARGS="--models resnet18 --threads 1".
bench: build peers
	$(PY) -m torchedge.bench $(BENCH_ARGS)

# SmolLM2-135M-Instruct exported to a 4-bit .pte and chatting from the C++ runner
# (docs/llm.md); LLM_DEMO_ARGS passes options (python -m torchedge.llm.demo --help).
llm-demo: build
	$(PY) -m torchedge.llm.demo $(LLM_DEMO_ARGS)

# Not part of `make test`: torchedge against llama.cpp on the same GGUF (docs/llm.md).
bench-llm: build llm-peers
	$(PY) -m torchedge.bench.llm $(BENCH_LLM_ARGS)

clean:
	rm -rf $(BUILD) $(PYGEN)
