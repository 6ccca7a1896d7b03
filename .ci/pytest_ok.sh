#!/usr/bin/env bash
# Run pytest; "no tests collected" (exit code 5) counts as success, every other failure fails.
# TEST_WORKERS=N (N > 1) spreads the tests over N processes with pytest-xdist (work stealing: a worker
# that runs out takes queued tests from a busy one; TEST_DIST=loadfile keeps each file's tests in one
# process, in order), where the venv has it; 1 or unset: one process.
# Each test runs on one torch thread (coevo.core.testing.fixtures), so N workers use N cores.
set -u
python="$1"; shift
workers="${TEST_WORKERS:-1}"
case "$workers" in
  ''|*[!0-9]*|0) echo "TEST_WORKERS must be a whole number of pytest processes, at least 1 (got '$workers'); TEST_WORKERS=1 runs one"; exit 2 ;;
esac
parallel=()
if [ "$workers" -gt 1 ] && "$python" -c "import xdist" 2>/dev/null; then
  parallel=(-n "$workers" --dist "${TEST_DIST:-worksteal}")
fi
"$python" -m pytest -q -p no:cacheprovider "${parallel[@]}" "$@"
status=$?
if [ "$status" -eq 5 ]; then echo "pytest: no tests collected in $* (ok)"; exit 0; fi
exit "$status"
