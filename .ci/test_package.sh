#!/usr/bin/env bash
# Test one package in a virtual environment that holds only it, its dependencies and pytest.
# Usage: .ci/test_package.sh core|envs
set -euo pipefail
pkg="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venvs/$pkg"
[ -d "$root/packages/$pkg" ] || { echo "no package packages/$pkg; choose one of: $(ls "$root/packages")"; exit 2; }
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
fi
# CPU torch first where there is no GPU (see Makefile)
if ! "$venv/bin/python" -c "import torch" 2>/dev/null && ! (command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1); then
  "$venv/bin/python" -m pip install -q torch==2.13.0
fi
# the package's in-repo dependencies (coevo-*) from the working tree, without extras
deps=()
for dep in $(sed -n 's/^ *"\(coevo-[a-z]*\).*/\1/p' "$root/packages/$pkg/pyproject.toml" | sort -u); do
  deps+=(-e "$root/packages/${dep#coevo-}")
done
"$venv/bin/python" -m pip install -q "${deps[@]}" -e "$root/packages/$pkg[test]"
cd "$root/packages/$pkg"
bash "$root/.ci/pytest_ok.sh" "$venv/bin/python" tests
