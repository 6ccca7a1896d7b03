#!/usr/bin/env bash
# Create virtual environments and install into them: with uv where it can be had, else with pip.
# uv links torch, transformers and the rest from its cache: a core[test] venv took 3 s here against
# pip's 56 s (11 s against 61 s with empty caches), and `make test` builds a dozen venvs. uv is
# given pip's own configuration (`pip config list`: index URLs, find-links, constraints, certificate,
# timeout) and pip's rule of the best version over every index, so both install the same versions.
# Usage: .ci/pip.sh venv DIR                  a venv at DIR (pip in it) unless DIR holds one
#        .ci/pip.sh install PYTHON ARGS...    `pip install ARGS` into PYTHON's environment
#        .ci/pip.sh uninstall PYTHON PKGS...  `pip uninstall -q -y PKGS`
# COEVO_INSTALLER=pip: pip only. uv goes into .venvs/uv once (`pip install uv`); where that fails
# (no network), pip does the work.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base_python="${PYTHON:-python3}"
UV_PIN="uv>=0.13,<0.14"

find_uv() {  # prints uv's path, or fails when pip must do the work
  [ "${COEVO_INSTALLER:-uv}" = pip ] && return 1
  local tools="$root/.venvs/uv"
  if [ ! -x "$tools/bin/uv" ]; then
    { [ -x "$tools/bin/python" ] || "$base_python" -m venv "$tools"; } \
      && "$tools/bin/python" -m pip install -q "$UV_PIN" >/dev/null 2>&1 \
      || { echo "uv could not be installed into $tools: installing with pip" >&2; return 1; }
  fi
  echo "$tools/bin/uv"
}

# pip's configuration as uv options: bash assignments (`uv_args+=(...)`, `export ...`) to eval
pip_config_for_uv() {
  "$base_python" - <<'PYEOF'
import ast, shlex, subprocess, sys

listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
found = {}
for line in listed.splitlines():  # e.g. global.find-links='/opt/wheels', :env:.find-links='/opt/wheels'
    name, _, value = line.partition("=")
    key = name.rsplit(".", 1)[-1]
    if name.startswith(":env:") or key not in found:  # the environment wins over the files, as in pip
        found[key] = ast.literal_eval(value) if value[:1] in "'\"" else value
flags = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links",
         "constraint": "--constraint"}
for key, flag in flags.items():
    for value in found.get(key, "").split():
        print(f"uv_args+=({flag} {shlex.quote(value)})")
if found.get("no-index", "").lower() in ("1", "true", "yes", "on"):
    print("uv_args+=(--no-index)")
if found.get("cert"):
    print(f"export SSL_CERT_FILE={shlex.quote(found['cert'])}")
if found.get("default-timeout"):
    print(f"export UV_HTTP_TIMEOUT={shlex.quote(found['default-timeout'])}")
PYEOF
}

mode="${1:?usage: $0 venv DIR | install PYTHON ARGS... | uninstall PYTHON PKGS...}"
shift
export UV_PYTHON_DOWNLOADS=never  # the machine's python, never one uv downloads
case "$mode" in
  venv)
    dir="${1:?usage: $0 venv DIR}"
    [ -x "$dir/bin/python" ] && exit 0
    if uv="$(find_uv)"; then
      "$uv" venv -q --seed --python "$(command -v "$base_python")" "$dir"
    else
      "$base_python" -m venv "$dir"
      "$dir/bin/python" -m pip install -q --upgrade pip
    fi
    ;;
  install)
    py="${1:?usage: $0 install PYTHON ARGS...}"; shift
    if uv="$(find_uv)"; then
      uv_args=(--index-strategy unsafe-best-match)
      eval "$(pip_config_for_uv)"
      "$uv" pip install --python "$py" "${uv_args[@]}" "$@"
    else
      "$py" -m pip install "$@"
    fi
    ;;
  uninstall)
    py="${1:?usage: $0 uninstall PYTHON PKGS...}"; shift
    if uv="$(find_uv)"; then "$uv" pip uninstall -q --python "$py" "$@"; else "$py" -m pip uninstall -q -y "$@"; fi
    ;;
  *) echo "unknown mode '$mode': use venv, install or uninstall" >&2; exit 2 ;;
esac
