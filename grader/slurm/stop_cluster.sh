#!/usr/bin/env bash
# Stops the one-node Slurm cluster of grader/slurm/start_cluster.sh: cancels its jobs, then stops slurmd, slurmctld
# and munged, each by the process id in its pid file (nothing else is touched). Safe to run again.
#
#   sudo grader/slurm/stop_cluster.sh [--purge] [--quiet]
#
# --purge: also remove the run folder (COURSE_SLURM_DIR, default /tmp/course-slurm: configuration, key, logs, state).
set -euo pipefail

run_dir=${COURSE_SLURM_DIR:-/tmp/course-slurm}
purge=0
quiet=0
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    --quiet) quiet=1 ;;
    -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "stop_cluster.sh: unknown argument '$arg' (usage: stop_cluster.sh [--purge] [--quiet])" >&2; exit 2 ;;
  esac
done
say() { ((quiet)) || echo "stop_cluster.sh: $*" >&2; }

if [[ ! -d "$run_dir" ]]; then
  say "no cluster here (no run folder $run_dir)"
  exit 0
fi
export SLURM_CONF="$run_dir/slurm.conf"

pid_of() { [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null && cat "$1"; }

# The jobs first, while the daemons still run them: otherwise their processes would outlive the cluster.
if pid_of "$run_dir/slurmctld.pid" >/dev/null && command -v squeue >/dev/null 2>&1; then
  jobs=$(squeue -h -o '%A' 2>/dev/null || true)
  if [[ -n "$jobs" ]]; then
    say "cancelling jobs: ${jobs//$'\n'/ }"
    # shellcheck disable=SC2086
    scancel $jobs 2>/dev/null || true
    for _ in $(seq 1 15); do
      [[ -z "$(squeue -h -o '%A' 2>/dev/null || true)" ]] && break
      sleep 1
    done
  fi
fi

stopped=0
stop() {  # name, pid file
  local pid
  pid=$(pid_of "$2") || { rm -f "$2"; return 0; }
  stopped=$((stopped + 1))
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || { say "stopped $1 ($pid)"; rm -f "$2"; return 0; }
    sleep 0.2
  done
  say "$1 ($pid) did not stop in 10 s: killed"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$2"
}
stop slurmd "$run_dir/slurmd.pid"
stop slurmctld "$run_dir/slurmctld.pid"
stop munged "$run_dir/munge/munged.pid"
((stopped)) || say "not running (run folder $run_dir)"

if ((purge)); then
  rm -rf "$run_dir"
  say "removed $run_dir"
fi
