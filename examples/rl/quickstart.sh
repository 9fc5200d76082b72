#!/usr/bin/env bash
# SFT, then GRPO, then evaluation, on the CPU in minutes: examples/rl/{sft,grpo,eval}.yaml with
# the `tiny` model (a 2-layer Llama with random weights and a byte-level tokenizer, built from a
# config, no download) and small budgets, on the two bundled apps built here. Prints the success
# rate on the training tasks, the held-out tasks and the held-out app.
#   bash examples/rl/quickstart.sh            # from a clone after `make demo` (or `make setup`)
#   PHONEWORLD="python -m phoneworld.cli" bash examples/rl/quickstart.sh   # another install
# On a GPU run the three configs as they are (see their headers): SmolLM2-135M, real budgets.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PHONEWORLD:-}" ]; then
  if [ -x .venv/bin/phoneworld ]; then PHONEWORLD=.venv/bin/phoneworld; else PHONEWORLD=phoneworld; fi
fi
PW=($PHONEWORLD)
RUN=${QUICKSTART_DIR:-runs/quickstart}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false HF_HUB_DISABLE_PROGRESS_BARS=1
start=$SECONDS
say() { printf '== %s (%ds)\n' "$*" $((SECONDS - start)) >&2; }

say "build the bundled apps into $RUN/apps"
mkdir -p "$RUN"
for traces in examples/traces examples/traces_messages; do
  "${PW[@]}" build "$traces" --out "$RUN/apps" -q >/dev/null 2>"$RUN/build.log" \
    || { cat "$RUN/build.log" >&2; exit 1; }
done
NOTES=$RUN/apps/com.example.notes
MESSAGES=$RUN/apps/com.example.messages

# What the CPU run changes in the configs: the tiny model, a short prompt, small budgets.
CPU=(--set model.name_or_path=tiny --set model.device=cpu
     --set "tasks.apps=[$NOTES]" --set "tasks.heldout_apps=[$MESSAGES]"
     --set tasks.train_max_steps=6 --set tasks.eval_max_steps=8
     --set prompt.system=Act. --set prompt.max_screen_tokens=128 --set prompt.history=2
     --set prompt.max_new_tokens=32)

say "SFT (examples/rl/sft.yaml)"
"${PW[@]}" rl sft --config examples/rl/sft.yaml "${CPU[@]}" --set demos_per_task=4 \
  --set batch_size=8 --set max_steps=1200 --set learning_rate=2.0e-3 --set bf16=false \
  --set logging_steps=100 --set resume=false --set time_budget_s=150 \
  --set "output_dir=$RUN/sft"

say "GRPO (examples/rl/grpo.yaml)"
# a tiny model may solve no task of a group: keep such groups (advantage 0) instead of resampling
"${PW[@]}" rl train --config examples/rl/grpo.yaml "${CPU[@]}" --set "init_from=$RUN/sft/final" \
  --set group_size=2 --set groups_per_update=2 --set updates=2 --set learning_rate=1.0e-4 \
  --set drop_zero_variance=false --set "sources=[{name: mock, kind: sim, groups_per_batch: 2}]" \
  --set sampling.batch_bucket=8 --set sampling.length_bucket=16 --set save_every=0 \
  --set resume=false --set time_budget_s=90 --set "output_dir=$RUN/grpo"
LAST=$(ls -d "$RUN"/grpo/checkpoint-* | sort -t- -k2 -n | tail -1)

say "evaluation of $LAST (examples/rl/eval.yaml)"
"${PW[@]}" rl eval --config examples/rl/eval.yaml "${CPU[@]}" --set "init_from=$LAST" \
  --set episodes_per_task=1 --set sampling.batch_bucket=8 --set sampling.length_bucket=16 \
  --set "output=$RUN/eval.json" >/dev/null

say "done"
python3 - "$RUN/eval.json" <<'PY'
import json, sys
splits = json.load(open(sys.argv[1]))["splits"]
for name, label in (("train", "training tasks"), ("heldout_tasks", "held-out tasks"),
                    ("heldout_apps", "held-out app")):
    s = splits[name]["overall"]
    print(f"success on {label:<15} {s['success_rate']:.3f}  ({s['episodes']} episodes)")
PY
