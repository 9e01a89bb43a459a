#!/usr/bin/env bash
# Measure the data of every figure on this machine's GPU, then draw the figures. About 3-5 minutes on an H200.
#
#   docs/bench/run_all.sh OUT_DIR
#
# Builds the bench programs (docs/bench/CMakeLists.txt, target course_bench) for the GPU present, runs each, counts
# the lab 04 bank conflicts with Nsight Compute when ncu is on PATH, and draws the PNGs. Writes, in the layout of
# docs/ (copy data/ and figures/ into docs/ to publish them):
#   OUT_DIR/data/NAME.json       one per figure: matadd, gemm_sizes, tile_size, bank_conflicts, stencil_radius,
#                                reduction (fields: docs/bench/bench.h)
#   OUT_DIR/figures/NAME.png     drawn from them by docs/figures/make_figures.py
#   OUT_DIR/logs/                each step's output
#   OUT_DIR/summary.txt          the machine, the tables of every bench and the step times; printed last
# Environment: BUILD_DIR (default build/bench), CUDA_ARCHS (default native), JOBS (default: all cores).
# A bench whose kernel fails its correctness check writes no JSON (a figure never shows a wrong kernel); the other
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
mkdir -p "$out/data" "$out/figures" "$out/logs"
summary=$out/summary.txt
failed=()
steps=()

# step NAME COMMAND...: runs COMMAND with its output in logs/NAME.log, records its time and whether it failed.
step() {
  local name=$1 start=$SECONDS rc
  shift
  echo "== $name: $*"
  "$@" >"$out/logs/$name.log" 2>&1
  rc=$?
  local verdict=ok
  [[ $rc == 0 ]] || verdict="FAILED (rc $rc)"
  steps+=("$(printf '%-22s %4ds  %s' "$name" $((SECONDS - start)) "$verdict")")
  if [[ $rc != 0 ]]; then
    failed+=("$name")
    tail -n 15 "$out/logs/$name.log" | sed 's/^/   | /'
  fi
  return $rc
}

# optional NAME COMMAND...: a step whose failure is reported but does not fail the run.
optional() {
  if ! step "$@"; then
    unset 'failed[-1]'
    steps[-1]+=" (optional)"
  fi
}

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
step configure cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-native}"
if ! step build cmake --build "$build" --target course_bench -j "$jobs"; then
  grep -q "unknown target\|No rule to make target" "$out/logs/build.log" &&
    echo "   the bench targets are missing: docs/CMakeLists.txt needs the line add_subdirectory(bench)" >&2
fi

bin=$build/docs/bench
step matadd          "$bin/bench_matadd"    --out "$out/data/matadd.json"
step gemm_sizes      "$bin/bench_gemm"      --figure gemm_sizes     --out "$out/data/gemm_sizes.json"
step tile_size       "$bin/bench_gemm"      --figure tile_size      --out "$out/data/tile_size.json"
step bank_conflicts  "$bin/bench_gemm"      --figure bank_conflicts --out "$out/data/bank_conflicts.json"
step stencil_radius  "$bin/bench_stencil"   --out "$out/data/stencil_radius.json"
step reduction       "$bin/bench_reduction" --out "$out/data/reduction.json"

# Bank conflicts of one launch of each lab 04 kernel at 2048^3, as grader/tools/ncu_bank_conflicts.sh counts them
# (same metrics, clocks left alone), added to bank_conflicts.json. Without ncu, or without permission to read the
# GPU's counters, the figure shows the speed-up over the unpadded baseline instead.
ncu_size=2048
if [[ -f "$out/data/bank_conflicts.json" ]] && command -v ncu >/dev/null; then
  metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  optional ncu timeout 180 ncu --clock-control none --csv --print-units base --metrics "$metrics" \
    --log-file "$out/logs/ncu_bank_conflicts.csv" "$bin/bench_gemm" --figure bank_conflicts --profile $ncu_size
  if ! grep -q '_op_ld.sum' "$out/logs/ncu_bank_conflicts.csv" 2>/dev/null; then  # older ncu: fewest options
    optional ncu_plain timeout 180 ncu --csv --metrics "$metrics" "$bin/bench_gemm" --figure bank_conflicts \
      --profile $ncu_size
  fi
  optional ncu_counts python3 "$root/docs/bench/add_ncu_counts.py" "$out/data/bank_conflicts.json" $ncu_size \
    "$out/logs/ncu_bank_conflicts.csv" "$out/logs/ncu.log" "$out/logs/ncu_plain.log"
else
  steps+=("$(printf '%-22s %4s   %s' ncu - 'skipped (no ncu on PATH, or no bank_conflicts.json)')")
fi

step figures python3 "$root/docs/figures/make_figures.py" --data "$out/data" --out "$out/figures"

# ---- summary ---------------------------------------------------------------------------------------------------------
{
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
  echo "docs/bench/run_all.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $commit"
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || echo ?)"
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -n 2 | head -n 1 || echo ?)"
  echo
  for name in matadd gemm_sizes tile_size bank_conflicts stencil_radius reduction; do
    # each bench ends its output with its table, headed "<figure> — <title>"
    awk -v f="$name — " 'index($0, f) == 1 {on = 1} on' "$out/logs/$name.log" 2>/dev/null | grep -v '^wrote '
    echo
  done
  if [[ -f "$out/logs/ncu_counts.log" ]]; then
    echo "Nsight Compute, lab 04 kernels:"
    cat "$out/logs/ncu_counts.log"
    echo
  fi
  echo "files:"
  (cd "$out" && ls -l data figures | sed 's/^/  /')
  echo
  echo "steps:"
  printf '  %s\n' "${steps[@]}"
  echo "total: ${SECONDS}s; failed: ${failed[*]:-none}"
} >"$summary"
echo
cat "$summary"
[[ ${#failed[@]} == 0 ]]
