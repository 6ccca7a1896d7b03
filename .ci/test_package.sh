#!/usr/bin/env bash
# Test one package in a virtual environment that holds only it, its dependencies and pytest.
# Usage: .ci/test_package.sh core|envs [EXTRAS [TESTS]]
#   EXTRAS: comma-separated extras of the package to install too, in their own venv
#           (.venvs/PKG-EXTRAS), e.g. `.ci/test_package.sh envs alfworld tests/alfworld`
#   TESTS:  the test paths to run, relative to the package (default: tests)
set -euo pipefail
pkg="$1"
extras="${2:-}"
tests="${3:-tests}"
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venvs/$pkg${extras:+-${extras//,/-}}"
[ -d "$root/packages/$pkg" ] || { echo "no package packages/$pkg; choose one of: $(ls "$root/packages")"; exit 2; }
bash "$root/.ci/pip.sh" venv "$venv"
# as if activated: source builds that call `python` (fast-downward, for alfworld) get the venv's
export PATH="$venv/bin:$PATH"
# torch first: the CPU build where there is no GPU
bash "$root/.ci/install_torch.sh" "$venv/bin/python"
# the package's in-repo dependencies (coevo-*) from the working tree, without extras
deps=()
for dep in $(sed -n 's/^ *"\(coevo-[a-z]*\).*/\1/p' "$root/packages/$pkg/pyproject.toml" | sort -u); do
  deps+=(-e "$root/packages/${dep#coevo-}")
done
bash "$root/.ci/pip.sh" install "$venv/bin/python" -q "${deps[@]}" -e "$root/packages/$pkg[test${extras:+,$extras}]"
cd "$root/packages/$pkg"
# the async extra's suites start a local Ray instance per test module: one pytest process for them
case ",$extras," in *,async,*) export TEST_WORKERS=1 ;; esac
# shellcheck disable=SC2086  # TESTS may name several paths
bash "$root/.ci/pytest_ok.sh" "$venv/bin/python" $tests
