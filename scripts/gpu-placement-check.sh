#!/usr/bin/env bash
# Where Paralab's GPU work lands on a machine of several NVIDIA GPUs, checked with nvidia-smi rather
# than taken from what the runs say. One script for one call on a GPU machine, run from a folder
# holding the build (out/) and scripts/, with node and Dawn's addon set up (e.g. through the
# project's GPU runner, which exec's its arguments):
#   bash scripts/gpu-placement-check.sh OUTDIR [DATA_DIR] [--speed]
# DATA_DIR holds tessina_header.txt, tessina_dem.txt, tessina_source.txt (default data/).
#  1. The route, GPU by GPU: a marker process (scripts/gpu-marker.mjs: the device Dawn gives it,
#     1 GiB written) started where every /dev/nvidiaN but one is /dev/null (a mount namespace:
#     unshare -m as root, else -Urm); passes when nvidia-smi sees its memory on that GPU alone.
#     Also: where an unfenced marker lands, and whether nvidia-smi lists the marker's pid (from
#     outside, and from inside the namespace), which is how runs observe their own placement.
#  2. paralab device: the GPUs listed with their addresses and the route.
#  3. bench landslide --ranks 1, 2, 4 (Tessina tiled 6x7) and bench paths --gpus 1,2,4 while
#     nvidia-smi samples every GPU's memory and utilisation (scripts/gpu-check-run.mjs): fails when a
#     GPU a run claims stays idle; reports runs whose parts shared a GPU.
#  4. With --speed: landslide ranks 1,2,4 on the 12x14 tiling (strong scaling) and 6x7 / 12x7 / 12x14
#     on 1 / 2 / 4 ranks (weak scaling), 4000 steps.
# STEPS (default 4000), TILE (default 6x7) and VERTICES (default 10000) size the runs of step 3.
# Writes OUTDIR/summary.txt (the verdicts), OUTDIR/check.log (everything) and OUTDIR/runs.tar.gz
# (each run's JSON and samples). Exits 1 when a check fails.
set -uo pipefail
out=${1:?usage: gpu-placement-check.sh OUTDIR [DATA_DIR] [--speed]}
data=${2:-data}
speed=${3:-}
work=$(mktemp -d /tmp/gpu-check.XXXXXX)
mkdir -p "$out"
exec > >(tee -a "$out/check.log") 2>&1
cli=(node out/main/cli.js)
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
smi_gpus() { nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits; }
files=(--header "$data/tessina_header.txt" --dem "$data/tessina_dem.txt" --source "$data/tessina_source.txt")

say "== GPU placement check, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$out/summary.txt"
ls -l /dev/nvidia* 2>&1 | sed 's/^/dev: /'
if [ "$(id -u)" = 0 ]; then flags=(-m); else flags=(-Urm); fi
fence_script='while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 126; shift; done; shift; exec "$@"'
# fenced MINOR command…: the command with every /dev/nvidiaN but /dev/nvidiaMINOR hidden.
fenced() {
  local keep=$1 hide=() n
  shift
  for n in /dev/nvidia[0-9]*; do [ -e "$n" ] && [ "$n" != "/dev/nvidia$keep" ] && hide+=("$n"); done
  unshare "${flags[@]}" -- sh -c "$fence_script" fence "${hide[@]}" -- "$@"
}

# -- 1. markers -------------------------------------------------------------------------------
smi_gpus > "$work/idle.csv"
# marker NAME [MINOR]: a marker (fenced onto MINOR when given); prints where its memory went.
marker() {
  local name=$1 minor=${2:-} log="$work/marker-$1.log" pid="" i
  smi_gpus > "$work/before-$name.csv"
  if [ -n "$minor" ]; then fenced "$minor" node scripts/gpu-marker.mjs 1024 90 > "$log" 2>&1 &
  else node scripts/gpu-marker.mjs 1024 90 > "$log" 2>&1 & fi
  local job=$!
  for i in $(seq 1 120); do grep -q '^ready' "$log" && break; kill -0 $job 2>/dev/null || break; sleep 0.5; done
  pid=$(awk '/^ready/ {print $2}' "$log")
  sleep 2
  smi_gpus > "$work/marker-$name.csv"
  local apps xml inside=""
  apps=$(nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader | grep "^${pid:-none}," | tr '\n' ' ')
  xml=$(nvidia-smi -q -x | grep -c "<pid>${pid:-none}</pid>")
  [ -n "$minor" ] && inside=$(fenced "$minor" nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader 2>&1 | tr '\n' ' ')
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  kill $job 2>/dev/null; wait $job 2>/dev/null
  # Its memory freed before the next marker starts.
  for i in $(seq 1 20); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  sleep 1
  # The GPUs whose memory rose by ≥ 900 MiB (the marker's 1 GiB) over their idle reading.
  local landed
  landed=$(join -t, <(sort "$work/before-$name.csv") <(sort "$work/marker-$name.csv") | awk -F', *' '$6 - $3 >= 900 {printf "%s(%s) ", $1, $2}')
  echo "$name|${pid:-none}|$landed|$apps|$xml|$inside|$(head -c 300 "$log" | tr '\n' ' ')"
}
# index,minor of each GPU: the minor (N of /dev/nvidiaN) from the driver's listing by bus address.
minors=$(nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | tr -d ' ' | while IFS=, read -r index bus; do
  bus=$(echo "${bus#0000}" | tr 'A-F' 'a-f')
  echo "$index,$(awk '/^Device Minor:/ {print $3}' "/proc/driver/nvidia/gpus/$bus/information" 2>/dev/null)"
done)
echo "$minors" | sed 's/^/index,minor: /'
r=$(marker unfenced)
IFS='|' read -r _ pid landed apps xml inside logtext <<< "$r"
say "marker unfenced: pid $pid landed on GPU ${landed:-none}; compute-apps: ${apps:-not listed}; in -q -x: $xml; log: $logtext"
fence_ok=1
for line in $minors; do
  index=${line%,*}; minor=${line#*,}
  r=$(marker "gpu$index" "$minor")
  IFS='|' read -r _ pid landed apps xml inside logtext <<< "$r"
  verdict=ok
  [ "$(echo $landed)" = "$index($(awk -F', *' -v i=$index '$1 == i {print $2}' "$work/idle.csv"))" ] || { verdict=FAIL; fence_ok=0; fail=1; }
  say "marker fenced onto /dev/nvidia$minor (GPU $index): pid $pid landed on GPU ${landed:-none} $verdict; compute-apps: ${apps:-not listed}; in -q -x: $xml; nvidia-smi inside the fence: ${inside:-nothing}"
  [ "$verdict" = ok ] || say "  marker log: $logtext"
done

# -- 2. paralab device ------------------------------------------------------------------------
"${cli[@]}" device > "$work/device.txt" 2>&1
sed -n '/^GPUs of this machine/,/^separately by/p' "$work/device.txt" | tee -a "$out/summary.txt"

# -- 3. runs under sampling -------------------------------------------------------------------
# sampled NAME command…: the command with nvidia-smi sampling every GPU each 200 ms, then the check.
sampled() {
  local name=$1
  shift
  smi_gpus > "$work/$name.idle.csv"
  nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits -lms 200 > "$work/$name.samples.csv" &
  local smi=$! t0=$SECONDS
  "$@" > "$work/$name.json" 2> "$work/$name.err"
  local rc=$?
  kill $smi 2>/dev/null; wait $smi 2>/dev/null
  say "-- $name ($((SECONDS - t0)) s, exit $rc): $*"
  [ $rc = 0 ] || { say "  FAIL: $(tail -3 "$work/$name.err" | tr '\n' ' ')"; fail=1; }
  node scripts/gpu-check-run.mjs "$name" "$work/$name.json" "$work/$name.samples.csv" "$work/$name.idle.csv" | tee -a "$out/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
    for (const c of r.counts ?? []) console.log(`  ranks ${c.ranks}: ${c.median_ms.toFixed(0)} ms${c.efficiency ? `, efficiency ${(c.efficiency * 100).toFixed(1)} %` : ""}, exchange max ${c.exchange_ms_max.toFixed(1)} ms; requested ${c.gpus_requested}; observed ${c.gpus_observed}${c.gpus_shared ? "; SHARED " + c.gpus_shared : ""}`)
    for (const [k, v] of Object.entries(r.runs ?? {})) console.log(`  ${k}: ${v.median_ms.toFixed(0)} ms${v.gpus ? `; requested ${v.gpus_requested}; observed ${v.gpus_observed}${v.gpus_shared ? "; SHARED " + v.gpus_shared : ""}` : ""}`)
    for (const n of r.notes ?? []) console.log(`  note: ${n}`)
  ' "$work/$name.json" 2>/dev/null | tee -a "$out/summary.txt"
}
landslide=(bench landslide "${files[@]}" --steps "${STEPS:-4000}" --backend gpu --variant fused2 --repeat 1 --json)
for n in 1 2 4; do sampled "landslide-ranks-$n" "${cli[@]}" "${landslide[@]}" --tile "${TILE:-6x7}" --ranks "$n"; done
sampled paths-gpus "${cli[@]}" bench paths --vertices "${VERTICES:-10000}" --backend gpu --variant tuned --gpus 1,2,4 --repeat 2 --no-scipy --json

# -- 4. speed -----------------------------------------------------------------------------------
if [ "$speed" = --speed ]; then
  sampled landslide-strong-12x14 "${cli[@]}" "${landslide[@]}" --tile 12x14 --ranks 1,2,4
  sampled landslide-weak-1 "${cli[@]}" "${landslide[@]}" --tile 6x7 --ranks 1
  sampled landslide-weak-2 "${cli[@]}" "${landslide[@]}" --tile 12x7 --ranks 2
  sampled landslide-weak-4 "${cli[@]}" "${landslide[@]}" --tile 12x14 --ranks 4
fi

tar -czf "$out/runs.tar.gz" -C "$work" .
say "== $([ $fail = 0 ] && echo PASSED || echo FAILED) in ${SECONDS} s"
exit $fail
