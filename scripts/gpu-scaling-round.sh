#!/usr/bin/env bash
# One round of speed work on a machine of several GPUs, every variant beside its baseline in one
# call (run from a folder holding out/, scripts/ and the Tessina grids; node and Dawn set up, e.g.
# through the project's GPU runner):
#   bash scripts/gpu-scaling-round.sh OUTDIR [DATA_DIR]
# Landslide ranks, fused2 f32, 4000 steps, one run each (rank 0's time), with each rank's phases
# (run-ranks.ts RankPhases) and how its halos travelled: strong scaling on Tessina tiled 12x14 (1, 2,
# 4 ranks), halos over TCP (PARALAB_RANKS_HALOS=tcp) against through /dev/shm; weak scaling (6x7 /
# 12x7 / 12x14 on 1 / 2 / 4 ranks); `--gpu-bands 4` (a process a band) beside `--ranks 4`. Every
# rank and band reports the GPU nvidia-smi saw it on; nvidia-smi also samples every GPU's memory and
# utilisation through the round (samples.csv), and the round fails a run whose parts shared a GPU.
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
nvidia-smi --query-gpu=timestamp,index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits -lms 250 > "$work/samples.csv" &
smi=$!

# run NAME ENV -- ARGS…: one bench (at most RUN_LIMIT s), its text (with the per-rank phases) in round.txt, its JSON kept.
run() {
  local name=$1 envs=$2 t0=$SECONDS
  shift 2
  say "-- $name: ${envs:+$envs }${*}"
  env $envs timeout "${RUN_LIMIT:-120}" "${L[@]}" "$@" --save "$work/$name.json" > "$work/$name.txt" 2> "$work/$name.err"
  local rc=$?
  grep -v '^machine\|^input' "$work/$name.txt" | tee -a "$out/round.txt"
  say "   ($((SECONDS - t0)) s, exit $rc)"
  [ $rc = 0 ] || tail -5 "$work/$name.err" | tee -a "$out/round.txt"
  # Parts seen on one GPU together make the run's figures no several-GPU figures.
  grep -q 'WARNING' "$work/$name.txt" && say "   FAIL $name: parts shared a GPU"
}

# The grids (TILES="strong weak-1 weak-2", e.g. small ones for a dry run on a machine without GPUs).
read -r T4 T1 T2 <<< "${TILES:-12x14 6x7 12x7}"
run strong-1 "" --tile "$T4" --ranks 1
run strong-shm "" --tile "$T4" --ranks 2,4
run strong-tcp "PARALAB_RANKS_HALOS=tcp" --tile "$T4" --ranks 2,4
run bands-4 "" --tile "$T4" --gpu-bands 4
run weak-1 "" --tile "$T1" --ranks 1
run weak-2 "" --tile "$T2" --ranks 2
say "   (weak on 4: $T4 on 4 ranks, strong-shm's)"

kill $smi 2>/dev/null; wait $smi 2>/dev/null
# Every GPU's busiest sample: all four must have worked.
awk -F', ' '{ if ($5 + 0 > u[$2]) u[$2] = $5 + 0; if ($4 + 0 > m[$2]) m[$2] = $4 + 0 } END { for (g in u) printf "gpu %s: peak utilisation %s %%, peak memory %s MiB\n", g, u[g], m[g] }' "$work/samples.csv" | sort | tee -a "$out/round.txt"
cp "$work/samples.csv" "$out/samples.csv"
tar -czf "$out/runs.tar.gz" -C "$work" --exclude samples.csv .
say "== done in ${SECONDS} s"
