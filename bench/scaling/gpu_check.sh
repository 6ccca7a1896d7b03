#!/usr/bin/env bash
# GPU check over every visible GPU, in one command (≤ 8 minutes on one H200; no network):
#   bash bench/scaling/gpu_check.sh            # stages: hf, then vllm when `import vllm` works
#   bash bench/scaling/gpu_check.sh --dry-run  # any machine: the stages' configs composed and validated
#   bash bench/scaling/gpu_check.sh --single   # the older one-process check (bench/scaling/gpu_check.py, its own flags)
#
# A ~0.47B Qwen2 built from a config (24 layers, hidden 1024, 16/2 heads, MLP 5504; random weights,
# no download: bench/scaling/gpu_check.py's shape) trains 3 GRPO steps through the real CLI with
# `trainer=fsdp trainer.devices=<GPU count>` (the policy sharded over all visible GPUs, bf16 mixed
# precision), first with `rollout=hf`, then with `rollout=vllm` (one in-process engine per rank,
# weights streamed unit by unit after every step, log-prob self-check on). After *each* stage it
# prints rollout and training tokens/s (all GPUs together), peak GPU memory (torch's allocator, and
# the device's use at the end, vLLM's pool included; the largest of the ranks) and MFU (per GPU, 6·N FLOPs per trained token, 2·N per generated token, against
# GPU_CHECK_PEAK_TFLOPS, default 989 = H200 bf16 dense) and appends one JSON line to
# bench/scaling/gpu_check_runs.jsonl, so a run cut off by a time limit still leaves the finished
# stages' numbers. Each stage has its own limit (GPU_CHECK_STAGE_SECONDS, default 210).
# Without a GPU it stops at once with one line saying so (exit 2).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
py="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}"
# the stages import bench.scaling.gpu_check (the repository root on the path, as `python -m` from it would), and
# coevo from this checkout where it is not installed (a bare GPU machine)
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
"$py" -c "import coevo.core" >/dev/null 2>&1 || export PYTHONPATH="$PYTHONPATH:$root/packages/core/src"
if [ "${1:-}" = "--single" ]; then shift; exec "$py" -m bench.scaling.gpu_check "$@"; fi
dry=false; [ "${1:-}" = "--dry-run" ] && dry=true
results="$root/bench/scaling/gpu_check_runs.jsonl"
stage_limit="${GPU_CHECK_STAGE_SECONDS:-210}"

count=0
if ! $dry; then
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu check: no NVIDIA GPU visible (nvidia-smi -L failed); run it on a GPU machine, or 'bash bench/scaling/gpu_check.sh --dry-run' here" >&2
    exit 2
  fi
  count="$("$py" -c 'import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)' 2>/dev/null || echo 0)"
  if [ "$count" -lt 1 ]; then
    echo "gpu check: nvidia-smi sees a GPU but torch.cuda does not ($py; torch built without CUDA?); install a CUDA build of torch" >&2
    exit 2
  fi
fi
devices=$(( count > 0 ? count : 2 ))  # --dry-run: composed for 2 processes

runner="$(mktemp -d)/gpu_check_stage.py"
trap 'rm -rf "$(dirname "$runner")"' EXIT
# one stage as its own script: Lightning's launcher re-runs this command line for ranks 1..N-1
cat > "$runner" <<'PY'
"""One stage of bench/scaling/gpu_check.sh: GRPO through the real CLI with FSDP over --devices GPUs."""
import json, os, sys, time
from pathlib import Path

root, stage, devices, run_dir, results = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
dry = sys.argv[6] == "1"
from bench.scaling import gpu_check as g  # bench/scaling/gpu_check.py: the model shape, the overrides, the summary

args = g.parse_args(["--steps", "3", "--tasks", str(4 * devices), "--group", "4", "--max-new-tokens", "64",
                     "--run-dir", run_dir] + (["--vllm"] if stage == "vllm" else []))
g.ensure_coevo()
g.register_measured_grpo()
overrides = [o for o in g.overrides(args, run_dir) if not o.startswith("trainer.devices=")]
overrides.append(f"trainer.devices={devices}")
if stage == "vllm":  # one engine per rank shares its GPU with the trainer's shard
    overrides = [o for o in overrides if not o.startswith("rollout.gpu_memory_utilization=")]
    overrides += ["rollout.gpu_memory_utilization=0.35", "rollout.enable_sleep_mode=true"]
from coevo.core.cli.config_sources import compose_config  # noqa: E402
from coevo.core.cli.schema import TrainSchema  # noqa: E402
from coevo.core.config import validate  # noqa: E402

# the packages' configs (train.yaml is coevo-core's) plus the repository's configs/ (experiment presets)
cfg = compose_config("train", overrides, repository=str(Path(root) / "configs"))
validate(cfg, TrainSchema, "train")
if dry:
    print(f"gpu check [{stage}]: config valid for {devices} processes: {' '.join(overrides)}")
    sys.exit(0)
import torch  # noqa: E402
from coevo.core import distributed as dist  # noqa: E402
from coevo.core.cli.train import run  # noqa: E402

torch.cuda.reset_peak_memory_stats()
start = time.perf_counter()
run(cfg)
wall = time.perf_counter() - start
free, total = torch.cuda.mem_get_info()  # the whole device at the end (vLLM's pool included)
mine = (torch.cuda.max_memory_allocated() / 2**30, (total - free) / 2**30)
peaks, used = zip(*(dist.gather_objects(mine) if dist.active() else [mine]))
if dist.rank() != 0:
    sys.exit(0)
rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
vocab = json.loads((Path(run_dir) / "policy" / "config.json").read_text())["vocab_size"]
params = g.model_parameters(args, vocab)
peak_tflops = float(os.environ.get("GPU_CHECK_PEAK_TFLOPS", g.H200_BF16_TFLOPS))
summary = g.summarize_run(rows, params, peak_tflops * devices)  # MFU per GPU: all GPUs' peak
result = {"stage": stage, "gpus": devices, "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
          "parameters": params, "steps": len(rows), "wall_seconds": round(wall, 1),
          "peak_memory_allocated_gib_max_rank": round(max(peaks), 2),
          "device_memory_used_gib_max_rank": round(max(used), 2), **summary,
          "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
print(f"gpu check [{stage}] {devices} GPU(s), {params / 1e9:.2f}B params, {len(rows)} steps in {wall:.0f} s: "
      f"rollout {summary['rollout_tokens_per_s']:,.0f} tok/s (MFU {summary['rollout_mfu'] * 100:.2f}%), "
      f"training {summary['train_tokens_per_s']:,.0f} tok/s (MFU {summary['train_mfu'] * 100:.1f}%), "
      f"peak {max(peaks):.1f} GiB by torch, {max(used):.1f} GiB used on the device (largest rank), "
      f"sync |d logprob| max {summary['sync_logprob_abs_diff_max']}",
      flush=True)
with open(results, "a") as f:
    f.write(json.dumps(result) + "\n")
PY

mkdir -p "$(dirname "$results")"
stages="hf"
if "$py" -c "import vllm" >/dev/null 2>&1; then stages="hf vllm"; else
  echo "gpu check: vllm does not import with $py: the vllm stage is skipped (pip install vllm)"
fi
status=0
for stage in $stages; do
  run_dir="$(dirname "$runner")/run-$stage"
  echo "gpu check: stage $stage, trainer=fsdp trainer.devices=$devices, limit ${stage_limit}s"
  timeout --kill-after=15 "$stage_limit" "$py" "$runner" "$root" "$stage" "$devices" "$run_dir" "$results" \
    "$($dry && echo 1 || echo 0)"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "gpu check: stage $stage failed or ran out of time (exit $rc)" >&2
    status=1
  fi
done
$dry || echo "gpu check: results appended to $results"
exit $status
