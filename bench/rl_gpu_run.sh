#!/usr/bin/env bash
# The rl backend's GPU run on the H200 (no network; at most 64 MiB carried per call), in two calls
# made back to back while the machine stays warm (files carried by call 1 stay for call 2):
#   call 1: run(command="bash bench/rl_gpu_run.sh speed", carry=[".rlgpu/a"], timeout_s=600)
#   call 2: run(command="bash bench/rl_gpu_run.sh full",  carry=[".rlgpu/b"], timeout_s=600)
# Prepare .rlgpu/ first with `bash bench/rl_gpu_prep.sh`. Results land in $OUT (rl_h200_speed.json,
# then rl_h200.json with everything); copy them into bench/results/.
# `bash bench/rl_gpu_run.sh smoke` runs the same pipeline on the CPU with the tiny model.
set -euo pipefail
cd "$(dirname "$0")/.."
PHASE=${1:-full}
shift || true
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
export RL_GPU_COMMAND="bash bench/rl_gpu_run.sh $PHASE $*"
if [ "$PHASE" = smoke ]; then
  exec .venv/bin/python bench/rl_gpu_run.py --phase smoke --out "${OUT:-/tmp/rl_smoke}" "$@"
fi
if ! ls .rlgpu/a/whl/*.whl >/dev/null 2>&1; then
  echo "error: .rlgpu/a/whl is missing: carry .rlgpu/a (call 1) and keep the machine warm" >&2
  exit 3
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .rlgpu/a/whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader || true
exec python3 bench/rl_gpu_run.py --phase "$PHASE" --out "${OUT:-bench/results}" "$@"
