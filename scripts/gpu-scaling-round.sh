#!/usr/bin/env bash
# One round of speed work on a machine of several GPUs, every variant beside its baseline in one
# call (run from a folder holding out/, scripts/ and the Tessina grids; node and Dawn set up, e.g.
# through the project's GPU runner):
#   bash scripts/gpu-scaling-round.sh OUTDIR [DATA_DIR]
# Landslide ranks, fused2 f32, 4000 steps, one run each (rank 0's time), with each rank's phases
# (run-ranks.ts RankPhases): strong scaling on Tessina tiled 12x14 and weak scaling (6x7 / 12x7 /
# 12x14 on 1 / 2 / 4 ranks), blocks not pipelined (PARALAB_RANKS_PIPELINE=off) against pipelined at
# several exchange intervals (VARIANTS: "name|env|flags" lines); then ranks of a job script under
# --executor local, sampled by nvidia-smi; then scripts/exchange-bench.mjs (TCP against /dev/shm).
# Writes OUTDIR/round.txt (the tables), OUTDIR/round.log (everything), OUTDIR/runs.tar.gz (JSON).
set -uo pipefail
out=${1:?usage: gpu-scaling-round.sh OUTDIR [DATA_DIR]}
data=${2:-data}
work=$(mktemp -d /tmp/gpu-round.XXXXXX)
mkdir -p "$out"
exec > >(tee -a "$out/round.log") 2>&1
say() { echo "$*" | tee -a "$out/round.txt"; }
files=(--header "$data/tessina_header.txt" --dem "$data/tessina_dem.txt" --source "$data/tessina_source.txt")
L=(node out/main/cli.js bench landslide "${files[@]}" --steps "${STEPS:-4000}" --backend gpu --variant fused2 --repeat "${REPEAT:-1}")
say "== scaling round, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$out/round.txt"
nproc | sed 's/^/cores: /' | tee -a "$out/round.txt"

# run NAME ENV -- ARGS…: one bench, its text (with the per-rank phases) in round.txt, its JSON kept.
run() {
  local name=$1 envs=$2 t0=$SECONDS
  shift 2
  say "-- $name: ${envs:+$envs }${*}"
  env $envs "${L[@]}" "$@" --save "$work/$name.json" > "$work/$name.txt" 2> "$work/$name.err"
  local rc=$?
  grep -v '^machine\|^input' "$work/$name.txt" | tee -a "$out/round.txt"
  say "   ($((SECONDS - t0)) s, exit $rc)"
  [ $rc = 0 ] || tail -5 "$work/$name.err" | tee -a "$out/round.txt"
}

VARIANTS=${VARIANTS:-"base|PARALAB_RANKS_PIPELINE=off|
pipe||
pipe-S50||--exchange-every 50
pipe-S20||--exchange-every 20
pipe-S10||--exchange-every 10"}
run strong-1 "" --tile 12x14 --ranks 1
while IFS='|' read -r name envs flags; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  run "strong-$name" "$envs" --tile 12x14 --ranks 2,4 $flags
done <<< "$VARIANTS"
run strong-1-again "" --tile 12x14 --ranks 1
WEAK=${WEAK:-base pipe-S20}
for v in $WEAK; do
  line=$(grep "^$v|" <<< "$VARIANTS")
  IFS='|' read -r name envs flags <<< "$line"
  # shellcheck disable=SC2086
  { [ "$v" = "${WEAK%% *}" ] && run "weak-1" "$envs" --tile 6x7 --ranks 1 $flags; run "weak-2-$name" "$envs" --tile 12x7 --ranks 2 $flags; run "weak-4-$name" "$envs" --tile 12x14 --ranks 4 $flags; } || true
done

# Ranks of a job script (--executor local) fenced onto a GPU each, checked by nvidia-smi sampling;
# read from the task's envelope (the merge step's chart export may be missing on a bare machine).
nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits > "$work/local.idle.csv"
nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits -lms 200 > "$work/local.samples.csv" &
smi=$!
say "-- local-executor: paralab landslide … --ntasks 4 --gpus-per-task 1 --executor local"
node out/main/cli.js landslide "$data/tessina_header.txt" "$data/tessina_dem.txt" "$data/tessina_source.txt" --steps 4000 --frames 4000 --backend gpu --variant fused2 \
  --gpus-per-task 1 --ntasks 4 --executor local --wait --json --force --out "$work/local-job" > "$work/local.out" 2> "$work/local.err"
say "   (exit $?)"
kill $smi 2>/dev/null; wait $smi 2>/dev/null
grep -h 'fenced\|task 0' "$work/local.err" | tee -a "$out/round.txt"
envelope=$(find "$work/local-job" -name envelope.json | head -1)
if [ -n "$envelope" ]; then
  node scripts/gpu-check-run.mjs local-executor "$envelope" "$work/local.samples.csv" "$work/local.idle.csv" | tee -a "$out/round.txt"
  node -e 'const walk = (v) => { if (v && typeof v === "object") { if (v.gpus_requested) console.log(JSON.stringify({ ms: v.ms, gpus_requested: v.gpus_requested, gpus_observed: v.gpus_observed, gpus_observed_by: v.gpus_observed_by, gpus_shared: v.gpus_shared, gpus_note: v.gpus_note })); else Object.values(v).forEach(walk) } }; walk(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))' "$envelope" | tee -a "$out/round.txt"
else say "   no task envelope: $(tail -3 "$work/local.err" | tr '\n' ' ')"; fi

say "-- exchange: TCP loopback against /dev/shm"
for b in 1111040 6320128 10485760; do node scripts/exchange-bench.mjs --bytes $b --messages 200 --receivers 1,3 | tee -a "$out/round.txt"; done

tar -czf "$out/runs.tar.gz" -C "$work" .
say "== done in ${SECONDS} s"
