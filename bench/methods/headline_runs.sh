#!/bin/bash
# The headline runs, one after another, in CHECKOUT (a fresh clone: git clone <repo> CHECKOUT):
#   bash bench/methods/headline_runs.sh CHECKOUT grpo:0 grpo:1 rsipo:0 evoheir:0:1 …
# Each ALGO:SEED runs `make train ALGO=<algo> ARGS="seed=<seed>"` with its output in CHECKOUT/hl-<algo>-s<seed>.log;
# ALGO:SEED:THREADS adds trainer.cpu_threads=<threads> (log hl-<algo>-s<seed>-t<threads>.log);
# ALGO:SEED:THREADS:OVERRIDES (THREADS may be empty) adds overrides, comma-separated, before the seed
# (rao:0::env=textcraft_synth: make train ALGO=rao ARGS="env=textcraft_synth seed=0", log
# hl-rao-env_textcraft_synth-s0.log). The run's output sits between a first line (start time, load,
# the overrides) and a last line (exit status, wall seconds) that `python -m bench.methods.headline_runs` reads.
set -u
checkout=$1; shift
cd "$checkout" || exit 2
for spec in "$@"; do
  IFS=: read -r algo seed threads overrides <<< "$spec"
  overrides=${overrides//,/ }
  args="seed=$seed"; stem="hl-$algo"; label="$algo seed $seed"
  if [ -n "$overrides" ]; then
    args="$overrides $args"; stem="$stem-$(tr -c 'A-Za-z0-9_\n' '_' <<< "$overrides")"
  fi
  log="$stem-s$seed.log"
  if [ -n "$threads" ]; then
    args="$args trainer.cpu_threads=$threads"; log="$stem-s$seed-t$threads.log"; label="$label threads $threads"
  fi
  echo "== $label start $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg)${overrides:+ overrides $overrides}" > "$log"
  start=$(date +%s)
  make train ALGO="$algo" ARGS="$args" >> "$log" 2>&1
  echo "== rc $? wall $(( $(date +%s) - start )) s end $(date -u +%FT%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
done
