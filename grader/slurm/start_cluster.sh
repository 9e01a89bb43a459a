#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine, for testing the grader's Slurm mode (docs/slurm.md): MUNGE, the
# controller (slurmctld) and the node (slurmd), all three as root, with every file in one run folder. Nothing under
# /etc is read or written: the client commands find this cluster through SLURM_CONF, which the script prints.
#
#   sudo grader/slurm/start_cluster.sh [--install]     then:  export SLURM_CONF=<run folder>/slurm.conf
#   sudo grader/slurm/stop_cluster.sh [--purge]
#
# --install: install Debian's slurm-wlm and munge with apt-get when they are missing (otherwise: a message, exit 3).
# Environment: COURSE_SLURM_DIR (run folder, default /tmp/course-slurm), COURSE_SLURM_PORT (the controller's port,
# default 6817; the node uses the next one). Safe to run again: a cluster that answers is left as it is.
# The plugins are the ones that work in a container (no cgroups, no accounting database): processes are tracked by
# the process tree, tasks are not pinned, and finished jobs are known to the controller for MinJobAge seconds.
# Exit status: 0 the node is idle; 2 usage; 3 slurm-wlm or munge missing; 4 not root; 1 a daemon did not start.
set -euo pipefail

run_dir=${COURSE_SLURM_DIR:-/tmp/course-slurm}
port=${COURSE_SLURM_PORT:-6817}
install=0
for arg in "$@"; do
  case "$arg" in
    --install) install=1 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "start_cluster.sh: unknown argument '$arg' (usage: start_cluster.sh [--install])" >&2; exit 2 ;;
  esac
done
say() { echo "start_cluster.sh: $*" >&2; }

if [[ $(id -u) -ne 0 ]]; then
  say "run it as root (sudo $0): slurmd starts every job as the user who submitted it"
  exit 4
fi

tools=(munged munge slurmctld slurmd sinfo sbatch scontrol squeue)
missing=()
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  if ((!install)); then
    say "not installed: ${missing[*]}. Install them: sudo apt-get install slurm-wlm munge" \
        "(or run this script with --install)"
    exit 3
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    say "not installed: ${missing[*]}, and there is no apt-get here: install Slurm and MUNGE for this system"
    exit 3
  fi
  say "installing slurm-wlm and munge (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; } \
    || { say "apt-get install slurm-wlm munge failed"; exit 3; }
fi

conf="$run_dir/slurm.conf"
socket="$run_dir/munge/munge.socket"
export SLURM_CONF="$conf"

alive() { [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
node_state() { sinfo -h -N -o '%t' 2>/dev/null | head -n 1; }

if alive "$run_dir/slurmctld.pid" && alive "$run_dir/slurmd.pid" && alive "$run_dir/munge/munged.pid" \
   && [[ -n "$(node_state)" ]]; then
  say "already running (run folder $run_dir)"
else
  if [[ -e "$run_dir" ]]; then
    "$(dirname "$0")/stop_cluster.sh" --quiet || true   # a half-started or stale cluster: its daemons go first
  fi
  mkdir -p "$run_dir/munge/private" "$run_dir/log" "$run_dir/ctld" "$run_dir/spool"
  chmod 0755 "$run_dir" "$run_dir/munge"  # munged wants its socket's folder searchable by everyone
  chmod 0700 "$run_dir/munge/private"
  if [[ ! -s "$run_dir/munge/private/munge.key" ]]; then
    dd if=/dev/urandom of="$run_dir/munge/private/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$run_dir/munge/private/munge.key"
  fi
  munged --key-file="$run_dir/munge/private/munge.key" --socket="$socket" --pid-file="$run_dir/munge/munged.pid" \
         --log-file="$run_dir/log/munged.log" --seed-file="$run_dir/munge/private/munged.seed" \
    || { say "munged did not start:"; tail -n 5 "$run_dir/log/munged.log" >&2; exit 1; }

  host=$(hostname -s)
  # The node as this machine is: CPUs, sockets, cores, threads and memory, as slurmd itself measures them.
  hardware=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]* //')
  cat >"$conf" <<EOF
# A one-node cluster for testing the course grader (grader/slurm/start_cluster.sh); made $(date -u +%FT%TZ).
ClusterName=course
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$run_dir/ctld
SlurmdSpoolDir=$run_dir/spool
SlurmctldPidFile=$run_dir/slurmctld.pid
SlurmdPidFile=$run_dir/slurmd.pid
SlurmctldLogFile=$run_dir/log/slurmctld.log
SlurmdLogFile=$run_dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=course Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # -c: no state from an earlier cluster in this folder (old jobs, old node states)
  slurmctld -c -f "$conf" || { say "slurmctld did not start:"; tail -n 5 "$run_dir/log/slurmctld.log" >&2; exit 1; }
  slurmd -f "$conf" || { say "slurmd did not start:"; tail -n 5 "$run_dir/log/slurmd.log" >&2; exit 1; }
fi

# Ready when the node is idle (or already running jobs); a node left down or drained by an earlier run is resumed.
for _ in $(seq 1 60); do
  state=$(node_state)
  case "$state" in
    idle* | mix* | alloc*)
      say "one-node cluster up: node $(hostname -s) is $state; logs in $run_dir/log"
      echo "export SLURM_CONF=$conf"
      exit 0 ;;
    down* | drain* | drng*)
      scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
say "the node did not become idle within 60 s (sinfo: '$(node_state)'); the logs say why:"
tail -n 5 "$run_dir/log/slurmctld.log" "$run_dir/log/slurmd.log" >&2 || true
exit 1
