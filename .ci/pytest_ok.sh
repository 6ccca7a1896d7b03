#!/usr/bin/env bash
# Run pytest; "no tests collected" (exit code 5) counts as success, every other failure fails.
set -u
python="$1"; shift
"$python" -m pytest -q -p no:cacheprovider "$@"
status=$?
if [ "$status" -eq 5 ]; then echo "pytest: no tests collected in $* (ok)"; exit 0; fi
exit "$status"
