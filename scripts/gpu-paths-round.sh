#!/usr/bin/env bash
# One round of `paths --gpus N` on a machine of several NVIDIA GPUs, in one call (run from a folder
# holding out/ and scripts/, node and Dawn set up, e.g. through the project's GPU runner):
#   bash scripts/gpu-paths-round.sh OUTDIR
#  1. Correctness on the GPUs: V = 3001 with successors (`paths … --paths --output`) on 1 GPU and on
#     part processes (4 unless CHECK_GPUS says); the md5 of distances and successors must agree.
#  2. Speed: V = 40 000 (`generate graph --vertices 40000 --edges 160000000 --seed 1`), `bench paths
#     --gpus 1,2,4 --repeat 3 --no-scipy` while nvidia-smi samples every GPU (scripts/gpu-check-run.mjs
#     fails when a GPU a run claims stayed idle); the runs' checksums must agree.
# VERTICES, EDGES and GPUS resize step 2; CHECK_GPUS (default "1 4") the GPU counts step 1 compares.
# ALSO_ENV (NAME=VALUE, a variable that a change under test reads) runs step 2's bench once more with
# that setting, on ALSO_GPUS (default GPUS): the same call's baseline for a change behind a variable.
# Writes OUTDIR/round.txt (verdicts and the table, last), OUTDIR/round.log (everything) and
# OUTDIR/runs.tar.gz (JSON, samples). Exits 1 when a check fails.
set -uo pipefail
out=${1:?usage: gpu-paths-round.sh OUTDIR}
work=$(mktemp -d /tmp/gpu-paths.XXXXXX)
mkdir -p "$out"
exec > >(tee -a "$out/round.log") 2>&1
cli=(node out/main/cli.js)
fail=0
say() { echo "$*" | tee -a "$out/round.txt"; }
smi_gpus() { nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits; }

say "== paths on several GPUs, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$out/round.txt"
say "cores: $(nproc); /dev/shm: $(df -h /dev/shm | awk 'NR == 2 {print $2 " (" $4 " free)"}'); uid $(id -u)"

# -- 1. the same bits on 1 and 4 GPUs -------------------------------------------------------------
t0=$SECONDS
"${cli[@]}" generate graph "$work/g3k.bin" --vertices "${CHECK_VERTICES:-3001}" --edges "${CHECK_EDGES:-60000}" --seed 5 > /dev/null
check=(${CHECK_GPUS:-1 4})
for n in "${check[@]}"; do
  mkdir -p "$work/g3k-$n"
  timeout 60 "${cli[@]}" paths "$work/g3k.bin" --backend gpu --variant tuned --paths --gpus "$n" --repeat 1 --output "$work/g3k-$n/d.bin" > "$work/g3k-$n.txt" 2>&1 || { say "paths --gpus $n FAILED: $(tail -3 "$work/g3k-$n.txt" | tr '\n' ' ')"; fail=1; }
  grep -i "parts\|requested\|WARNING" "$work/g3k-$n.txt" | sed "s/^/  g3k --gpus $n: /" | tee -a "$out/round.txt"
done
sums() { (cd "$1" 2>/dev/null && find . -type f | sort | xargs -r md5sum); }
first=${check[0]}
for n in "${check[@]}"; do say "V = 3001 with successors, md5 on $n GPU(s): $(sums "$work/g3k-$n" | tr '\n' ' ')"; done
same=1
for n in "${check[@]}"; do [ -n "$(sums "$work/g3k-$n")" ] && [ "$(sums "$work/g3k-$first")" = "$(sums "$work/g3k-$n")" ] || same=0; done
if [ $same = 1 ]; then say "  same bits: ok ($((SECONDS - t0)) s)"; else say "  same bits: FAIL"; fail=1; fi

# -- 2. V = 40 000 on 1, 2 and 4 GPUs, sampled ----------------------------------------------------
t0=$SECONDS
timeout 150 "${cli[@]}" generate graph "$work/g40k.bin" --vertices "${VERTICES:-40000}" --edges "${EDGES:-160000000}" --seed 1 | tee -a "$out/round.txt"
say "  generated in $((SECONDS - t0)) s"
smi_gpus > "$work/bench.idle.csv"
nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits -lms 200 > "$work/bench.samples.csv" &
smi=$!
t0=$SECONDS
PARALAB_PATHS_PARTS_LOG=1 timeout "${BENCH_LIMIT:-260}" "${cli[@]}" bench paths --file "$work/g40k.bin" --backend gpu --variant tuned --gpus "${GPUS:-1,2,4}" --repeat 3 --no-scipy --save "$work/bench.json" > "$work/bench.txt" 2> "$out/bench.err"
rc=$?
kill $smi 2>/dev/null; wait $smi 2>/dev/null
grep -v '^machine' "$work/bench.txt" | tee -a "$out/round.txt"
grep '^paths parts:' "$out/bench.err" | sed 's/^/  /' | tee -a "$out/round.txt"
say "-- bench paths: $((SECONDS - t0)) s, exit $rc"
[ $rc = 0 ] || { say "  FAIL: $(tail -5 "$out/bench.err" | tr '\n' ' ')"; fail=1; }
node scripts/gpu-check-run.mjs bench-paths "$work/bench.json" "$work/bench.samples.csv" "$work/bench.idle.csv" | tee -a "$out/round.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
cp "$work/bench.json" "$out/bench.json" 2>/dev/null
if [ -n "${ALSO_ENV:-}" ]; then
  t0=$SECONDS
  env "$ALSO_ENV" PARALAB_PATHS_PARTS_LOG=1 timeout "${BENCH_LIMIT:-260}" "${cli[@]}" bench paths --file "$work/g40k.bin" --backend gpu --variant tuned --gpus "${ALSO_GPUS:-${GPUS:-1,2,4}}" --repeat 3 --no-scipy --save "$work/also.json" > "$work/also.txt" 2> "$out/also.err"
  rc=$?
  say "-- the same bench with $ALSO_ENV: $((SECONDS - t0)) s, exit $rc"
  grep -v '^machine' "$work/also.txt" | sed 's/^/  /' | tee -a "$out/round.txt"
  grep '^paths parts:' "$out/also.err" | sed 's/^/  /' | tee -a "$out/round.txt"
  [ $rc = 0 ] || { say "  FAIL: $(tail -5 "$out/also.err" | tr '\n' ' ')"; fail=1; }
  cp "$work/also.json" "$out/also.json" 2>/dev/null
fi

# The table, last: each run's compute (median of 3, data resident), exchange, and where its parts ran.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
  const runs = Object.entries(r.runs)
  const one = runs.find(([, v]) => !v.gpus)?.[1]
  console.log(`V = ${r.graph.vertices}, checksum ${r.graph.checksum}${r.failed.length ? `; FAILED: ${r.failed.join(", ")}` : " (every run the same)"}`)
  console.log("| run | compute ms (min–max) | speed-up | exchange ms (a round; copying) | upload ms | GPUs observed |")
  console.log("|---|---|---|---|---|---|")
  for (const [name, v] of runs)
    console.log(`| ${name} | ${v.median_ms.toFixed(0)} (${v.min_ms.toFixed(0)}–${v.max_ms.toFixed(0)}) | ${one ? (one.median_ms / v.median_ms).toFixed(2) + "×" : ""} | ${v.exchange_ms !== undefined ? `${v.exchange_ms.toFixed(0)} (${v.exchange_round_ms.toFixed(2)}; ${v.exchange_copy_ms.toFixed(0)})` : ""} | ${v.upload_ms?.toFixed(0) ?? ""} | ${v.gpus_observed ? v.gpus_observed.join(" ") + (v.gpus_shared ? " SHARED " + v.gpus_shared : "") : ""} |`)
  for (const n of r.notes) console.log(`note: ${n}`)
' "$work/bench.json" 2>&1 | tee -a "$out/round.txt"

rm -f "$work/g40k.bin"
tar -czf "$out/runs.tar.gz" -C "$work" --exclude '*.bin' .
say "== $([ $fail = 0 ] && echo PASSED || echo FAILED) in ${SECONDS} s"
exit $fail
