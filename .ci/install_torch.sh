#!/usr/bin/env bash
# Install torch into PYTHON's environment before anything that depends on it, so that no dependency
# pulls a multi-GB CUDA build onto a machine without a GPU. The one place the torch version is set.
# Usage: .ci/install_torch.sh PYTHON     (install, as below)
#        .ci/install_torch.sh --version  (print the pinned version: 2.13.0)
#
#   - torch already importable: nothing ("torch present: VERSION")
#   - a GPU visible to nvidia-smi: the default (CUDA) build, `pip install torch`
#   - else the CPU build: the configured index's TORCH_SPEC+cpu wheel (this machine's local index:
#     1 min), else PyTorch's CPU index (trying that index first cost 2 min of network retries
#     here), else TORCH_SPEC as the configured index has it
# TORCH_SPEC (environment, default torch==TORCH_VERSION) overrides the pin, e.g. torch==2.12.0.
# Callers: the Makefile (.venv, .venvs/bench), .ci/test_package.sh, .ci/test_vllm.sh, ci.yml.
set -euo pipefail
pip=(bash "$(dirname "$0")/pip.sh" install)  # uv where it can be had, else pip
TORCH_VERSION=2.13.0
if [ "${1:-}" = --version ]; then echo "$TORCH_VERSION"; exit 0; fi
py="${1:?usage: $0 PYTHON | --version}"
spec="${TORCH_SPEC:-torch==$TORCH_VERSION}"
if "$py" -c "import torch" 2>/dev/null; then
  echo "torch present: $("$py" -c 'import torch; print(torch.__version__)')"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  "${pip[@]}" "$py" -q torch
else
  "${pip[@]}" "$py" -q "$spec+cpu" 2>/dev/null \
    || "${pip[@]}" "$py" -q "$spec" --index-url https://download.pytorch.org/whl/cpu 2>/dev/null \
    || "${pip[@]}" "$py" -q "$spec"
fi
