#!/usr/bin/env bash
# Slurm's GPU grant on a machine of several NVIDIA GPUs, checked with nvidia-smi: a one-node Slurm
# cluster of this machine's own (Debian's Slurm and MUNGE .deb files, unpacked into a private prefix,
# never over /), a gres.conf listing every /dev/nvidiaN, and a 4-rank landslide job submitted through
# Paralab itself (`paralab landslide … --slurm --ntasks 4 --gpus-per-task 1 --backend gpu`); passes
# when each rank computed on a GPU of its own, the one Slurm granted it.
#   bash scripts/gpu-slurm-check.sh OUTDIR [DATA_DIR]
# Run from a folder holding the build (out/) and scripts/, as root, with node (and for the GPU run
# Dawn's addon) set up, e.g. through the project's GPU runner, which exec's its arguments. DATA_DIR
# holds tessina_header.txt, tessina_dem.txt and tessina_source.txt (default data/).
# Environment:
#   SLURM_DEBS   folder of the .deb files (default .slurm-debs): slurmctld, slurmd, slurm-client,
#                slurm-wlm-basic-plugins, munge, libmunge2 and the libraries they need
#   SLURM_PREFIX where they are unpacked, emptied first (default /opt/paralab-slurm)
#   STEPS        steps of the landslide run (default 400); RANKS (default 4)
#   CGROUPS      auto (default: ConstrainDevices where the machine's cgroups allow it) or off
#   FAKE_GPUS=N  a machine without GPUs (a build machine): N stand-in device nodes for gres.conf
#                (character devices of NVIDIA's major, 195, in the state folder), the CPU backend,
#                and no nvidia-smi: checks the cluster's start, the grant each rank gets, the
#                devices cgroup, the job through Paralab and the teardown
# Steps: the machine (OS, glibc, GPUs); the packages unpacked and their libraries checked; MUNGE
# with a key of its own, slurmctld and slurmd on free ports, state in a fresh folder; a probe step
# (srun --ntasks RANKS --gpus-per-task 1) in which each task says what Slurm granted it and which
# device nodes it can open; then the landslide job while nvidia-smi samples the GPUs and the ranks'
# processes (scripts/gpu-slurm-ranks.mjs), and last the verdict table: rank → granted → observed.
# Every daemon started here is stopped (by pid) at the end, the state folder removed.
# Writes OUTDIR/summary.txt (the verdicts), OUTDIR/check.log (everything) and OUTDIR/runs.tar.gz
# (configuration, logs, samples, the job folder's records). Exits 1 when a check fails.
set -uo pipefail
out=${1:?usage: gpu-slurm-check.sh OUTDIR [DATA_DIR]}
data=${2:-data}
debs=${SLURM_DEBS:-.slurm-debs}
prefix=${SLURM_PREFIX:-/opt/paralab-slurm}
steps=${STEPS:-400}
ranks=${RANKS:-4}
fake=${FAKE_GPUS:-}
cgroups=${CGROUPS:-auto}
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/check.log") 2>&1
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
die() { say "FAIL: $*"; exit 1; }
here=$(pwd)
state=$(mktemp -d /tmp/paralab-slurm-check.XXXXXX)
chmod 755 "$state"
name=paralabgpu$$
node_name=gpunode

say "== Slurm GPU check, $(date -u +%FT%TZ)"
# -- the machine ---------------------------------------------------------------------------------
{ cat /etc/os-release 2>/dev/null | grep -E '^(PRETTY_NAME|VERSION_ID)=' || echo 'no /etc/os-release'; } | sed 's/^/os: /' | tee -a "$out/summary.txt"
glibc=$(ldd --version 2>&1 | head -1)
say "glibc: $glibc"
say "kernel: $(uname -r); cores: $(nproc); memory: $(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 2^20}' /proc/meminfo); user: $(id -un)"
[ "$(id -u)" = 0 ] || die "slurmd and slurmctld are started as root here; this is $(id -un)"
# Debian 12's Slurm asks for symbols of glibc 2.34 at most (objdump -T over its binaries and libraries).
v=$(grep -o '[0-9]\+\.[0-9]\+$' <<< "$glibc")
[ -n "$v" ] && [ "$(printf '%s\n2.34\n' "$v" | sort -V | head -1)" = 2.34 ] || die "glibc $v is older than 2.34, which the carried Slurm needs"
command -v dpkg > /dev/null || die "dpkg is not here to unpack the .deb files"
gpus=()
if [ -n "$fake" ]; then
  say "gpus: none (FAKE_GPUS=$fake: stand-in device nodes, the CPU backend, no nvidia-smi)"
else
  nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$out/summary.txt"
  for n in /dev/nvidia[0-9]*; do [ -c "$n" ] && gpus+=("$n"); done
  [ ${#gpus[@]} -gt 0 ] || die "no /dev/nvidiaN here"
  ls -l /dev/nvidia* | sed 's/^/dev: /'
fi

# -- the packages --------------------------------------------------------------------------------
ls "$debs"/*.deb > /dev/null 2>&1 || die "no .deb files in $debs"
rm -rf "$prefix"
mkdir -p "$prefix"
for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix" || die "dpkg -x $f"; done
# Debian names the daemons slurmd-wlm and so on and links them through its alternatives; a daemon
# knows itself by its name (slurmctld-wlm would not load the node's GRES as slurmctld), so: links.
for d in slurmctld slurmd slurmstepd; do ln -sf "$d-wlm" "$prefix/usr/sbin/$d"; done
libs="$prefix/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu/slurm-wlm"
plugins="$prefix/usr/lib/x86_64-linux-gnu/slurm-wlm"
missing=$(for b in "$prefix"/usr/sbin/{munged,slurmctld,slurmd,slurmstepd} "$prefix"/usr/bin/{sbatch,srun,squeue,scontrol} "$plugins"/*.so; do
  LD_LIBRARY_PATH=$libs ldd "$b" 2>&1 | awk -v b="${b##*/}" '/not found/ {print b ": " $1}'
done | sort -u)
[ -z "$missing" ] || die "libraries missing for the carried Slurm: $(echo $missing)"
say "slurm: $(LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/slurmd" -V) and $(LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/munged" -V 2>&1 | head -1), unpacked into $prefix ($(ls "$debs"/*.deb | wc -l) packages)"
# Client commands through the system's loader with the prefix's libraries: nothing is added to the
# environment they pass on (sbatch records its environment for the job; srun hands its own to the ranks).
loader=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null || ls /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
mkdir -p "$prefix/bin"
for c in sbatch srun squeue sinfo scontrol scancel sacct; do
  printf '#!/bin/sh\nexec %q --library-path %q %q "$@"\n' "$loader" "$libs" "$prefix/usr/bin/$c" > "$prefix/bin/$c"
  chmod 755 "$prefix/bin/$c"
done
export PATH="$prefix/bin:$PATH"

# -- the cluster's configuration -----------------------------------------------------------------
mkdir -p "$state/etc" "$state/spool" "$state/ctld" "$state/dev" "$state/munge" "$state/munge-key"
chmod 755 "$state/munge"
chmod 700 "$state/munge-key"
if [ -n "$fake" ]; then
  # Stand-ins: character devices of NVIDIA's major and minors 0…N-1 (no driver behind them here: opening one says ENXIO, a devices cgroup's refusal EPERM).
  for ((i = 0; i < fake; i++)); do mknod "$state/dev/nvidia$i" c 195 "$i" || die "mknod $state/dev/nvidia$i"; gpus+=("$state/dev/nvidia$i"); done
fi
ngpus=${#gpus[@]}
read -r ctld_port node_port <<< "$(node -e '
  const net = require("net"); const ports = []
  const next = () => { const s = net.createServer(); s.listen(0, "127.0.0.1", () => { ports.push(s.address().port); s.close(() => ports.length < 2 ? next() : console.log(ports.join(" "))) }) }
  next()')"
[ -n "${node_port:-}" ] || die "no free ports"
host=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)
cpus=$(nproc)
memory=$(awk '/^MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)
export SLURM_CONF="$state/etc/slurm.conf"
{
  echo "AutoDetect=off"
  for i in "${!gpus[@]}"; do echo "NodeName=$node_name Name=gpu File=${gpus[$i]}"; done
} > "$state/etc/gres.conf"

# prepare_cgroup2: what systemd would have made for slurmd on a cgroup v2 host without it: the
# controllers enabled for the root's children and system.slice, and system.slice itself (where slurmd
# puts its step daemons' scope with IgnoreSystemd=yes). Made folders are removed at the end.
prepare_cgroup2() {
  local c
  for c in $(cat /sys/fs/cgroup/cgroup.controllers); do echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; done
  [ -d /sys/fs/cgroup/system.slice ] || { mkdir /sys/fs/cgroup/system.slice && fresh_cgroups+=(/sys/fs/cgroup/system.slice); }
  for c in $(cat /sys/fs/cgroup/system.slice/cgroup.controllers 2>/dev/null); do echo "+$c" > /sys/fs/cgroup/system.slice/cgroup.subtree_control 2>/dev/null; done
  echo "cgroup2: root subtree $(cat /sys/fs/cgroup/cgroup.subtree_control); system.slice $(cat /sys/fs/cgroup/system.slice/cgroup.subtree_control 2>/dev/null)"
}

# write_conf MODE: slurm.conf (and cgroup.conf) for cgroup mode v1, v2 or none.
write_conf() {
  local mode=$1 track=proctrack/linuxproc task=task/none
  if [ "$mode" != none ]; then
    track=proctrack/cgroup task=task/cgroup
    printf '%s\n' "CgroupPlugin=cgroup/$mode" "CgroupMountpoint=/sys/fs/cgroup" "ConstrainDevices=yes" "ConstrainCores=no" "ConstrainRAMSpace=no" "ConstrainSwapSpace=no" \
      $([ "$mode" = v2 ] && echo IgnoreSystemd=yes) > "$state/etc/cgroup.conf"
  elif [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    # slurmd of a cgroup v2 host loads cgroup/v2 for its step daemons whatever the plugins: no systemd
    # to ask for their scope, and nothing constrained.
    printf '%s\n' "CgroupPlugin=cgroup/v2" "CgroupMountpoint=/sys/fs/cgroup" "IgnoreSystemd=yes" "ConstrainDevices=no" "ConstrainCores=no" "ConstrainRAMSpace=no" "ConstrainSwapSpace=no" > "$state/etc/cgroup.conf"
  else
    rm -f "$state/etc/cgroup.conf"
  fi
  [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && prepare_cgroup2
  cat > "$SLURM_CONF" <<EOF
ClusterName=$name
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CredType=cred/munge
PluginDir=$plugins
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmdDebug=verbose
SlurmctldDebug=debug
DebugFlags=Gres
ProctrackType=$track
TaskPlugin=$task
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=2
GresTypes=gpu
NodeName=$node_name NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory Gres=gpu:$ngpus Port=$node_port State=UNKNOWN
PartitionName=gpus Nodes=$node_name Default=YES MaxTime=INFINITE State=UP
EOF
}

# The devices cgroup: v1 with its devices controller, or v2 with it enabled; else none (the ranks
# then rely on Paralab's own fence). The choice is tried below, and dropped if slurmd refuses it.
cgroup_mode=none
cgroup_why="CGROUPS=off"
if [ "$cgroups" != off ]; then
  if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    if grep -qw devices /sys/fs/cgroup/cgroup.controllers 2>/dev/null || [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then cgroup_mode=v2; cgroup_why="cgroup v2 (unified), writable"; else cgroup_why="cgroup v2, not writable here"; fi
  elif [ -d /sys/fs/cgroup/devices ] && [ -d /sys/fs/cgroup/freezer ]; then
    if mkdir "/sys/fs/cgroup/devices/paralab-probe-$$" 2>/dev/null; then rmdir "/sys/fs/cgroup/devices/paralab-probe-$$"; cgroup_mode=v1; cgroup_why="cgroup v1 with the devices and freezer controllers, writable"
    else cgroup_why="cgroup v1, its devices controller not writable here"; fi
  else
    cgroup_why="no devices controller under /sys/fs/cgroup ($(stat -fc %T /sys/fs/cgroup 2>/dev/null || echo absent))"
  fi
fi
# The cgroup folders Slurm makes (…/slurm), removed at the end unless they were here before.
fresh_cgroups=()
for d in /sys/fs/cgroup/{devices,freezer,memory,cpuset,cpuacct,cpu,pids,blkio}/slurm_$node_name /sys/fs/cgroup/{devices,freezer,memory,cpuset,cpuacct,cpu,pids,blkio}/slurm /sys/fs/cgroup/system.slice/slurmstepd.scope; do [ -e "$d" ] || fresh_cgroups+=("$d"); done

# -- daemons -------------------------------------------------------------------------------------
pidof_file() { local p; p=$(cat "$1" 2>/dev/null) && [[ $p =~ ^[0-9]+$ ]] && echo "$p"; }
stop_daemons() {
  local f p
  for f in "$state/slurmd.pid" "$state/slurmctld.pid"; do
    p=$(pidof_file "$f") && kill "$p" 2>/dev/null
    for _ in $(seq 1 20); do [ -n "$p" ] && kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    rm -f "$f"
  done
}
cleanup() {
  stop_daemons
  local p
  p=$(pidof_file "$state/munge/munged.pid") && kill "$p" 2>/dev/null
  # Empty cgroup folders Slurm left, deepest first, where none was here before.
  for d in "${fresh_cgroups[@]}"; do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done
  # Stopped early: the logs and configuration as they were.
  [ -e "$out/runs.tar.gz" ] || tar -czf "$out/logs.tar.gz" -C "$state" --exclude=munge-key --exclude='job-*' --exclude=dev . 2>/dev/null
  rm -rf "$state"
}
trap cleanup EXIT
logs() { for f in slurmctld.log slurmd.log munge/munged.log; do echo "--- $f"; tail -n 20 "$state/$f" 2>/dev/null; done; }

dd if=/dev/urandom of="$state/munge-key/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge-key/munge.key"
LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/munged" --socket="$state/munge/munge.socket" --key-file="$state/munge-key/munge.key" \
  --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" --seed-file="$state/munge/munged.seed" || { logs; die "munged did not start"; }

# start MODE: slurmctld and slurmd with that cgroup mode (state emptied); waits for the node to be idle.
start() {
  write_conf "$1"
  stop_daemons
  rm -rf "$state/ctld"/* "$state/spool"/*
  LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/slurmctld" -i || return 1
  LD_LIBRARY_PATH=$libs "$prefix/usr/sbin/slurmd" -N "$node_name" -d "$prefix/usr/sbin/slurmstepd" || return 1
  for _ in $(seq 1 120); do
    sinfo -h -N -o '%N %t' 2>/dev/null | grep -q "^$node_name idle$" && return 0
    sleep 0.5
  done
  return 1
}

cat > "$state/probe.sh" <<'EOF'
#!/bin/bash
# One task of the probe step: Slurm's grant in its environment, then each GPU device node opened.
opened=()
for n in "$@"; do
  if err=$( { exec 3< "$n"; } 2>&1 ); then opened+=("${n##*/}:open")
  else case $err in *"not permitted"*) opened+=("${n##*/}:EPERM");; *"No such device"*) opened+=("${n##*/}:ENXIO");; *) opened+=("${n##*/}:${err##*: }");; esac; fi
done
list=$(cat "/sys/fs/cgroup/devices$(grep :devices: /proc/self/cgroup | cut -d: -f3)/devices.list" 2>/dev/null | tr "\n" " ")
echo "task $SLURM_PROCID localid=$SLURM_LOCALID SLURM_STEP_GPUS=${SLURM_STEP_GPUS-unset} SLURM_JOB_GPUS=${SLURM_JOB_GPUS-unset} CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} GPU_DEVICE_ORDINAL=${GPU_DEVICE_ORDINAL-unset} LD_LIBRARY_PATH=${LD_LIBRARY_PATH-unset} nodes: ${opened[*]} devices.list: ${list:-none}"
EOF
chmod 755 "$state/probe.sh"
files=("$data/tessina_header.txt" "$data/tessina_dem.txt" "$data/tessina_source.txt")
if [ -n "$fake" ]; then backend=(--backend active); else backend=(--backend gpu --variant fused2); fi
# Fewer cores than ranks (a build machine): the ranks share them, as sbatch allows when asked.
over=()
[ "$cpus" -lt "$ranks" ] && over=(--sbatch-arg=--overcommit)
mkdir -p "$state/records"

# round MODE: the cluster with that cgroup mode, the probe step, then the landslide job, sampled.
round() {
  local mode=$1 t0=$SECONDS rc probe job envelope apps
  say ""
  say "==== cgroups: $([ "$mode" = none ] && echo "none: proctrack/linuxproc, task/none (the ranks rely on Paralab's own fence)" || echo "cgroup/$mode with ConstrainDevices=yes ($cgroup_why)")"
  if ! start "$mode"; then
    say "FAIL: slurmd and slurmctld did not come up with cgroup mode $mode:"
    logs | grep -i 'error\|fatal' | tail -6 | sed 's/^/  /' | tee -a "$out/summary.txt"
    fail=1
    return
  fi
  say "cluster: $name, one node ($cpus CPUs, ${memory} MiB, gpu:$ngpus), slurmctld port $ctld_port, slurmd port $node_port, up in $((SECONDS - t0)) s"
  scontrol show node "$node_name" | grep -i 'gres=' | sed 's/^ */node: /'

  # The probe step: what each task is granted, and which GPU nodes it can open.
  probe=$(timeout 120 sbatch --parsable --wait --ntasks="$ranks" --gpus-per-task=1 --output="$state/probe-$mode.out" --overcommit --wrap "srun --ntasks=$ranks --gpus-per-task=1 $state/probe.sh ${gpus[*]}" 2>&1)
  rc=$?
  say "-- probe step (srun --ntasks $ranks --gpus-per-task 1), job ${probe%%;*}, exit $rc:"
  sort -k2 -n "$state/probe-$mode.out" 2>/dev/null | tee -a "$out/summary.txt"
  [ $rc = 0 ] || { logs; fail=1; }

  # The landslide job through Paralab, its ranks watched and nvidia-smi sampling.
  job="$state/job-$mode"
  if [ -z "$fake" ]; then
    nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits > "$state/gpus-$mode.idle.csv"
    nvidia-smi --query-gpu=index,pci.bus_id,memory.used,utilization.gpu --format=csv,noheader,nounits -lms 200 > "$state/gpus-$mode.samples.csv" &
    smi_gpus=$!
    nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader,nounits -lms 200 > "$state/apps-$mode.samples.csv" &
    smi_apps=$!
  fi
  node scripts/gpu-slurm-ranks.mjs watch "$job" "$state/ranks-$mode.json" "${gpus[@]}" &
  watcher=$!
  t0=$SECONDS
  timeout 300 node out/main/cli.js landslide "${files[@]}" --steps "$steps" "${backend[@]}" --slurm --ntasks "$ranks" --gpus-per-task 1 "${over[@]}" --out "$job" --wait --json \
    > "$state/landslide-$mode.json" 2> "$state/landslide-$mode.err"
  rc=$?
  kill -TERM $watcher 2>/dev/null; wait $watcher 2>/dev/null
  [ -z "$fake" ] && { kill $smi_gpus $smi_apps 2>/dev/null; wait $smi_gpus $smi_apps 2>/dev/null; }
  say "-- paralab landslide … --steps $steps ${backend[*]} --slurm --ntasks $ranks --gpus-per-task 1 ${over[*]} --wait ($((SECONDS - t0)) s, exit $rc)"
  [ $rc = 0 ] || { say "  FAIL: $(tail -5 "$state/landslide-$mode.err" | tr '\n' ' ')"; fail=1; }
  # What each rank said of its GPU (its task's stderr).
  cat "$job"/tasks/0/stderr.log 2>/dev/null | grep -h 'Slurm\|fence' | sort | uniq -c | sed 's/^ */  /' | tee -a "$out/summary.txt"
  grep -h 'WARNING' "$state/landslide-$mode.err" | sed 's/^/  /' | tee -a "$out/summary.txt"
  envelope=$(find "$job" -name envelope.json 2>/dev/null | head -1)
  if [ -z "$fake" ] && [ -n "$envelope" ]; then
    node scripts/gpu-check-run.mjs "slurm-landslide-$mode" "$envelope" "$state/gpus-$mode.samples.csv" "$state/gpus-$mode.idle.csv" | tee -a "$out/summary.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || fail=1
  fi
  apps=$state/apps-$mode.samples.csv
  [ -n "$fake" ] && apps=none
  node scripts/gpu-slurm-ranks.mjs verdict "$state/ranks-$mode.json" "${envelope:-none}" "$apps" | tee -a "$out/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
  [ -d "$job" ] && find "$job" \( -name '*.json' -o -name '*.log' -o -name '*.sbatch' \) -type f | while read -r f; do
    mkdir -p "$state/records/job-$mode/$(dirname "${f#$job/}")"; cp "$f" "$state/records/job-$mode/${f#$job/}"; done
  cp "$state/slurmd.log" "$state/records/slurmd-$mode.log" 2>/dev/null
  cp "$state/slurmctld.log" "$state/records/slurmctld-$mode.log" 2>/dev/null
}

say "gres.conf: $(grep -c '^NodeName' "$state/etc/gres.conf") GPUs ($(grep -o 'File=[^ ]*' "$state/etc/gres.conf" | sed 's/File=//' | tr '\n' ' '))"
# With the devices cgroup where this machine has one, then without it: Paralab's own fence.
[ "$cgroup_mode" != none ] && round "$cgroup_mode"
[ "$cgroup_mode" = none ] && say "cgroups: none usable ($cgroup_why)"
round none

cp "$state"/*.csv "$state"/*.json "$state"/*.out "$state"/*.err "$state/etc" "$state/records/" 2>/dev/null
cp "$state/munge/munged.log" "$state/records/" 2>/dev/null
tar -czf "$out/runs.tar.gz" -C "$state/records" .
say ""
say "== $([ $fail = 0 ] && echo PASSED || echo FAILED) in ${SECONDS} s"
exit $fail
