#!/usr/bin/env bash
# `paralab bench headline` on a lent GPU machine in one call, from a folder holding this build's out/,
# .gpu/ (from ../shared/gpu/pack.sh), data/landslide/ (the Tessina grids) and, for --against, another
# build's out/ under rel/:
#   bash scripts/gpu-headline.sh OUTDIR [bench headline options…]
# Writes OUTDIR/headline.json (figures and verdicts), OUTDIR/headline.md (the table) and
# OUTDIR/headline.log; exits as the command does (1: a figure slower beyond its noise).
set -uo pipefail
out=${1:?usage: gpu-headline.sh OUTDIR [options]}
shift
mkdir -p "$out"
against=()
[ -f rel/out/main/cli.js ] && against=(--against rel/out/main/cli.js)
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader | sed 's/^/card: /'
bash .gpu/run.sh node out/main/cli.js bench headline --tessina data/landslide "${against[@]}" --save "$out/headline.json" --force "$@" > "$out/headline.md" 2> "$out/headline.log"
rc=$?
cat "$out/headline.md"
grep -i "slower\|error\|failed" "$out/headline.log" | tail -20
echo "exit $rc"
exit $rc
