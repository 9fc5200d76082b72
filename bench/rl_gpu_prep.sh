#!/usr/bin/env bash
# Prepare what the GPU run carries (see bench/rl_gpu_run.sh), on the dev machine, in the repo root.
#   .rlgpu/a  (call 1): the first half of the SmolLM2 GGUF, its tokenizer + config, py3.12 wheels
#   .rlgpu/b  (call 2): the second half, its sha256, the real-data apps and the cross-app world
#             (built from ../shared)
# Each stays under the 64 MiB a device call carries (with the ~2.5 MB working tree).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
rm -rf .rlgpu && mkdir -p .rlgpu/a/whl .rlgpu/b/apps .rlgpu/tmp

# Python packages the GPU image lacks (it has torch 2.11, transformers 5.17, accelerate, numpy).
$PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .rlgpu/a/whl \
  trl==1.16.0 datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 gguf==0.19.0 \
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 \
  typing-extensions==4.16.0 gymnasium==1.4.0 farama-notifications==0.0.6

# The offline model: tokenizer + config (enough for random-init speed runs), the GGUF in halves.
GGUF=$($PY -c "from phoneworld.rl.model import smollm2_location as s; d, f = s(); print(d / f)")
$PY - "$GGUF" <<'PYEOF'
import sys
from pathlib import Path
from transformers import AutoConfig, AutoTokenizer
gguf = Path(sys.argv[1])
out = Path(".rlgpu/a/tokenizer")
AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(out)
conf = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
if hasattr(conf, "quantization_config"):
    delattr(conf, "quantization_config")
conf.save_pretrained(out)
PYEOF
split -n 2 -d "$GGUF" .rlgpu/tmp/smollm2.gguf.part
mv .rlgpu/tmp/smollm2.gguf.part00 .rlgpu/a/
mv .rlgpu/tmp/smollm2.gguf.part01 .rlgpu/b/
sha256sum "$GGUF" > .rlgpu/b/gguf.sha256

# The real-data apps with their kept tasks (the shared data does not travel to the device).
REAL=../shared/data/real
for set in habitica-droidbot autodroid-utgs llamatouch; do
  [ -d "$REAL/$set" ] || { echo "skip $set (absent)"; continue; }
  .venv/bin/phoneworld build "$REAL/$set" --out .rlgpu/tmp/apps -q >/dev/null 2>&1 \
    || echo "warning: $set did not build"
done
for app in .rlgpu/tmp/apps/*/; do
  name=$(basename "$app")
  [ -f "$app/tasks.json" ] || continue
  mkdir -p ".rlgpu/b/apps/$name"
  cp -r "$app/app.json" "$app/tasks.json" "$app/task_specs" ".rlgpu/b/apps/$name/" 2>/dev/null || true
done
# The cross-app world (examples/world.yaml: the two bundled apps + SMS Messenger and Contacts
# from the AutoDroid traces) with its cross-app tasks.
if [ -d "$REAL/autodroid-utgs" ]; then
  .venv/bin/phoneworld world build examples/world.yaml --out .rlgpu/b/world >/dev/null \
    || echo "warning: the world did not build"
  rm -rf .rlgpu/b/world/*/report.json
fi
rm -rf .rlgpu/tmp
du -sh .rlgpu/a .rlgpu/b
echo "carry .rlgpu/a with 'bash bench/rl_gpu_run.sh speed', then .rlgpu/b with 'bash bench/rl_gpu_run.sh full'"
