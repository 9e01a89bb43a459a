#!/usr/bin/env bash
# Measure the data of every figure on this machine's GPU, then draw the figures (about 5 minutes on an H100).
#
#   grader/bench/run_all.sh OUT_DIR
#
# Builds the bench programs (target course_bench, grader/bench/CMakeLists.txt) in BUILD_DIR, configuring it first if
# it is new; runs grader/bench/run_bench.py, which sweeps every [[bench]] table of grader/labs/*/lab.toml (with the
# Nsight Compute counts of figures.toml when ncu is on PATH); draws the figures with docs/figures/make_figures.py.
# Writes, in the layout of docs/ (copy data/ and figures/ into docs/ to publish them):
#   OUT_DIR/data/NAME.json       one per figure (the fields: grader/bench/merge.py)
#   OUT_DIR/figures/NAME.png     drawn from them
#   OUT_DIR/bench/               build.log, run_bench.log (every figure's table), figures.log, summary.txt, and
#                                work/: each run's records and log
# Environment: BUILD_DIR (default build/bench), CUDA_ARCHS (default native; for a new tree), JOBS (default: all
# cores). A figure whose kernel fails its result check is not written (a figure never shows a wrong kernel); the other
# steps still run, and the exit status is 1.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1" && out=$(cd "$1" && pwd)
build=${BUILD_DIR:-$root/build/bench}
jobs=${JOBS:-$(nproc)}
logs=$out/bench
mkdir -p "$out/data" "$out/figures" "$logs"
steps=()
status=0

# step NAME LOG COMMAND...: runs COMMAND with its output in LOG and records its time and verdict.
step() {
  local name=$1 log=$2 start=$SECONDS rc
  shift 2
  echo "== $name: $*"
  "$@" >"$log" 2>&1
  rc=$?
  steps+=("$(printf '%-10s %4ds  %s' "$name" $((SECONDS - start)) "$([[ $rc == 0 ]] && echo ok || echo "FAILED (rc $rc)")")")
  if [[ $rc != 0 ]]; then
    status=1
    tail -n 15 "$log" | sed 's/^/   | /'
  fi
  return $rc
}

if [[ ! -f $build/CMakeCache.txt ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  step configure "$logs/configure.log" cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-native}" || exit 1
fi
step build "$logs/build.log" cmake --build "$build" --target course_bench -j "$jobs" || exit 1
step bench "$logs/run_bench.log" python3 "$root/grader/bench/run_bench.py" --build "$build" --out "$out/data" \
  --work "$logs/work"
step figures "$logs/figures.log" python3 "$root/docs/figures/make_figures.py" --data "$out/data" --out "$out/figures"

{
  echo "grader/bench/run_all.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || echo ?)"
  echo
  sed -n '/^\[1\//,$p' "$logs/run_bench.log"  # every run, every figure's table, the failures
  echo
  echo "files:"
  (cd "$out" && ls -l data figures | sed 's/^/  /')
  echo "steps:"
  printf '  %s\n' "${steps[@]}"
  echo "total: ${SECONDS}s"
} >"$logs/summary.txt"
cat "$logs/summary.txt"
exit $status
