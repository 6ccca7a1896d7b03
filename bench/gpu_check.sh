#!/usr/bin/env bash
exec "${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}" "$(dirname "$0")/gpu_check.py" "$@"
