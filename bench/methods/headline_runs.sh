#!/bin/bash
# The headline runs, one after another, in CHECKOUT (a fresh clone: git clone <repo> CHECKOUT):
#   bash bench/methods/headline_runs.sh CHECKOUT grpo:0 grpo:1 rsipo:0 evoheir:0:1 …
# Each ALGO:SEED runs `make train ALGO=<algo> ARGS="seed=<seed>"` with its output in CHECKOUT/hl-<algo>-s<seed>.log;
# ALGO:SEED:THREADS adds trainer.cpu_threads=<threads> (log hl-<algo>-s<seed>-t<threads>.log),
# between a first line (start time, load) and a last line (exit status, wall seconds) that
# `python -m bench.methods.headline_runs` reads.
set -u
checkout=$1; shift
cd "$checkout" || exit 2
for spec in "$@"; do
  IFS=: read -r algo seed threads <<< "$spec"
  args="seed=$seed"; log="hl-$algo-s$seed.log"; label="$algo seed $seed"
  if [ -n "$threads" ]; then
    args="$args trainer.cpu_threads=$threads"; log="hl-$algo-s$seed-t$threads.log"; label="$label threads $threads"
  fi
  echo "== $label start $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$log"
  start=$(date +%s)
  make train ALGO="$algo" ARGS="$args" >> "$log" 2>&1
  echo "== rc $? wall $(( $(date +%s) - start )) s end $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
done
