#!/bin/bash
# The reduced Haizea sweep on a real one-node Slurm cluster started here: munged, slurmctld
# and slurmd with their own configuration, keys, ports and state in a temporary directory.
# The sweep runs as a job array (scripts/slurm/haizea_array.sbatch) and the merge job
# (haizea_merge.sbatch) depends on it with afterok; the merged tables and CSV must equal a
# single process's byte for byte. With --also, a second example's sweep runs on the same
# cluster at the same time, through the generic scripts/slurm/sweep_array.sbatch and
# sweep_merge.sbatch, and is checked the same way. Every daemon started here is stopped by its
# process id on exit, whatever happened.
#
#   run_sweep.sh <haizea_experiment> <source dir> <shards> [sweep options...]
#                [--also <example> <files compared,...> <output options,...> [sweep options...]]
#
# (the second sweep's files and output options are comma-separated; its output options are
# given to the single process and to the merge job alike).
#
# Exit 77 (ctest SKIP_RETURN_CODE) where it cannot run: not root (slurmd must be), or no
# Slurm/munge and no way to install them (scripts/lib/packages.sh: leasehold_slurm_packages).
set -euo pipefail
program=$(realpath "$1")
source_dir=$(realpath "$2")
shards=$3
shift 3
sweep=()
while [ $# -gt 0 ] && [ "$1" != --also ]; do
  sweep+=("$1")
  shift
done
also=()  # the second sweep: program, files, output options, sweep options
if [ $# -gt 0 ]; then
  [ $# -ge 4 ] || { echo "usage: ... --also <example> <files,...> <output options,...> [sweep options]" >&2; exit 2; }
  also_program=$(realpath "$2")
  IFS=, read -r -a also_files <<<"$3"
  IFS=, read -r -a also_output <<<"$4"
  shift 4
  also=("$@")
fi
skip() {
  echo "SKIP: $*"
  exit 77
}

[ "$(id -u)" -eq 0 ] || skip "the Slurm test must run as root (slurmd runs jobs as their user)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  # shellcheck source=../../scripts/lib/packages.sh
  source "$source_dir/scripts/lib/packages.sh"
  # shellcheck disable=SC2154
  ensure_packages "${leasehold_slurm_packages[@]}" >&2 ||
    skip "Debian's slurm-wlm and munge are not installed and apt-get could not install them"
fi
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol scancel; do
  command -v "$tool" >/dev/null || skip "$tool is missing after installing slurm-wlm and munge"
done

tmp=$(mktemp -d /tmp/leasehold-slurm.XXXXXX)
pids=()  # daemons started here, in the order to stop them last-first
cleanup() {
  local code=$?
  set +e
  if [ -f "$tmp/slurm.conf" ] && [ -f "$tmp/slurmctld.pid" ]; then
    # Jobs still running (a failed or timed-out test): cancelled, then their steps killed.
    scancel --quiet --full "${jobs[@]}" 2>/dev/null
    for _ in $(seq 20); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
    for pid in $(scontrol listpids 2>/dev/null | awk 'NR > 1 { print $1 }'); do
      kill -9 "$pid" 2>/dev/null
    done
  fi
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null
      sleep 0.2
    fi
  done
  local left=()
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null && left+=("$pid")
  done
  if [ ${#left[@]} -ne 0 ]; then
    echo "FAIL: daemons still running after the test: ${left[*]}" >&2
    code=1
  fi
  if [ "$code" -ne 0 ]; then
    for log in slurmctld.log slurmd.log munged.log; do
      [ -f "$tmp/$log" ] && { echo "--- $log (last lines)"; tail -n 15 "$tmp/$log"; }
    done
    [ -d "$tmp/run" ] && { echo "--- job outputs"; tail -n 5 "$tmp"/run/*.out "$tmp"/also/run/*.out 2>/dev/null; }
  fi
  rm -rf "$tmp"
  exit "$code"
}
jobs=()
trap cleanup EXIT

# Waits for a pid file and records the daemon's pid.
daemon_pid() {
  local file=$1
  for _ in $(seq 100); do
    if [ -s "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null; then
      pids+=("$(cat "$file")")
      return 0
    fi
    sleep 0.1
  done
  echo "FAIL: $file did not appear: the daemon did not start" >&2
  return 1
}

# Two free TCP ports next to each other, away from Slurm's defaults (6817/6818), so that the
# test never talks to a cluster already on this machine.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
base=16817
while ! port_free "$base" || ! port_free $((base + 1)); do
  base=$((base + 2))
  [ "$base" -lt 16917 ] || skip "no free TCP port pair in 16817-16917"
done

host=$(hostname -s)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/run/shards" "$tmp/reference" "$tmp/also/run/shards" \
  "$tmp/also/reference"
chmod 755 "$tmp"  # munged wants its socket reachable by every user

mungekey --create --keyfile "$tmp/munge.key"
munged --force --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed"
daemon_pid "$tmp/munged.pid"

cat >"$tmp/slurm.conf" <<CONF
ClusterName=lh
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
started=$(date +%s)
slurmctld -f "$SLURM_CONF" -i
daemon_pid "$tmp/slurmctld.pid"
slurmd -f "$SLURM_CONF"
daemon_pid "$tmp/slurmd.pid"

# The node must register before jobs can start on it.
for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { echo "FAIL: node $host is '$state', not idle, after 30 s" >&2; exit 1; }

# The single process's tables and CSV, the expected result.
(cd "$tmp/reference" && "$program" "${sweep[@]}" --no-timing --csv sweep.csv >tables.txt)

array=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 --chdir="$tmp/run" \
  --output="$tmp/run/shard-%a.out" "$source_dir/scripts/slurm/haizea_array.sbatch" \
  "$program" "$tmp/run/shards" "${sweep[@]}")
jobs+=("$array")
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --chdir="$tmp/run" --output="$tmp/run/tables.txt" --error="$tmp/run/merge.err" \
  "$source_dir/scripts/slurm/haizea_merge.sbatch" "$program" "$tmp/run/shards" sweep.csv \
  --no-timing)
jobs+=("$merge")
echo "submitted array job $array ($shards tasks) and merge job $merge (afterok:$array)"
if [ -n "${also_program:-}" ]; then
  (cd "$tmp/also/reference" && "$also_program" "${also[@]}" "${also_output[@]}" >tables.txt)
  also_array=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 \
    --chdir="$tmp/also/run" --output="$tmp/also/run/shard-%a.out" \
    "$source_dir/scripts/slurm/sweep_array.sbatch" "$also_program" "$tmp/also/run/shards" \
    "${also[@]}")
  jobs+=("$also_array")
  also_merge=$(sbatch --parsable --dependency="afterok:$also_array" --kill-on-invalid-dep=yes \
    --chdir="$tmp/also/run" --output="$tmp/also/run/tables.txt" \
    --error="$tmp/also/run/merge.err" "$source_dir/scripts/slurm/sweep_merge.sbatch" \
    "$also_program" "$tmp/also/run/shards" "${also_output[@]}")
  jobs+=("$also_merge")
  echo "submitted $(basename "$also_program"): array job $also_array and merge job $also_merge"
fi

limit=${LEASEHOLD_SLURM_TIMEOUT:-300}  # seconds for the jobs, queueing included
submitted=$(date +%s)
job_list=$(IFS=,; echo "${jobs[*]}")
while [ -n "$(squeue -h -j "$job_list" -o %i 2>/dev/null)" ]; do
  if [ $(($(date +%s) - submitted)) -ge "$limit" ]; then
    echo "FAIL: the jobs did not finish within $limit s" >&2
    squeue >&2
    exit 1
  fi
  sleep 1
done
for job in "${jobs[@]}"; do
  states=$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z_]*' | sort -u)
  if [ "$states" != "JobState=COMPLETED" ]; then
    echo "FAIL: job $job ended as $(echo "$states" | tr '\n' ' ')" >&2
    exit 1
  fi
done
for file in sweep.csv tables.txt; do
  if ! cmp "$tmp/reference/$file" "$tmp/run/$file"; then
    echo "FAIL: the merged $file differs from the single process's" >&2
    diff "$tmp/reference/$file" "$tmp/run/$file" | head -n 20 >&2
    exit 1
  fi
done
count=$(ls "$tmp/run/shards" | wc -l)
[ "$count" -eq "$shards" ] || { echo "FAIL: $count shard files, expected $shards" >&2; exit 1; }
echo "PASS: $shards array tasks + afterok merge on Slurm $(sinfo -V | awk '{print $2}'):" \
  "merged tables and CSV byte-identical to one process ($(($(date +%s) - started)) s with" \
  "the cluster's start)"
if [ -n "${also_program:-}" ]; then
  for file in "${also_files[@]}" tables.txt; do
    if ! cmp "$tmp/also/reference/$file" "$tmp/also/run/$file"; then
      echo "FAIL: $(basename "$also_program")'s merged $file differs from the single process's" >&2
      diff "$tmp/also/reference/$file" "$tmp/also/run/$file" | head -n 20 >&2
      exit 1
    fi
  done
  count=$(ls "$tmp/also/run/shards" | wc -l)
  [ "$count" -eq "$shards" ] || { echo "FAIL: $count shard files of the second sweep" >&2; exit 1; }
  echo "PASS: $(basename "$also_program") too: ${also_files[*]} and tables byte-identical"
fi
