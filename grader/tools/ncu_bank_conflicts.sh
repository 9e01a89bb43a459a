#!/usr/bin/env bash
# Shared-memory bank conflicts of the lab 04 kernels on a real GPU, counted by Nsight Compute.
#
#   grader/tools/ncu_bank_conflicts.sh <lab04 GPU test binary> [gtest filter]
#   e.g. grader/tools/ncu_bank_conflicts.sh build/grader/solution04_gpu
#        grader/tools/ncu_bank_conflicts.sh build/grader/lab04_gpu 'PaddedGemm.MatchesReference/1024x1024x1024'
#
# Runs the test binary (default filter: the perf test, PaddedGemmPerf.*, 2048^3) under ncu twice, profiling the first
# launch of the unpadded baseline kernel and then the first launch of the lab's padded kernel, and prints the load and
# store bank conflicts of each (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum). Clocks are left
# alone (--clock-control none), as in the course's timings. The timings the test prints under ncu are meaningless
# (profiling serializes and replays kernels): read only the conflict counts. Needs ncu on PATH and permission to read
# the GPU performance counters.
#
# For reference (calibration kernels, H200, 1024^3): unpadded 234.9 M load conflicts, padded 141 K. At 2048^3
# expect about 8 times as many (twice the k-steps, four times the blocks).
set -euo pipefail

if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 <lab04 GPU test binary, e.g. build/grader/solution04_gpu> [gtest filter]" >&2
  exit 2
fi
binary=$1
filter=${2:-'PaddedGemmPerf.*'}
command -v ncu >/dev/null || { echo "$0: ncu (Nsight Compute) is not on PATH" >&2; exit 2; }

metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
status=0
for kernel in unpadded_gemm_kernel padded_gemm_kernel; do
  log=$(mktemp)
  # The test's own verdict is not the point here (timing under ncu is distorted): ignore its exit status.
  ncu --clock-control none --metrics "$metrics" --kernel-name "regex:^${kernel}" --launch-count 1 \
      "$binary" "--gtest_filter=${filter}" >"$log" 2>&1 || true
  ld=$(awk '/op_ld\.sum/ {print $NF; exit}' "$log")
  st=$(awk '/op_st\.sum/ {print $NF; exit}' "$log")
  launch=$(grep -m1 -E "^ *${kernel}" "$log" | sed -E 's/^ +//' || true)
  if [[ -z "$ld" || -z "$st" ]]; then
    echo "${kernel}: no measurement. ncu said:" >&2
    tail -n 20 "$log" >&2
    status=1
  else
    printf '%-22s load conflicts %15s   store conflicts %15s   (%s)\n' "$kernel" "$ld" "$st" "${launch:-launch not shown}"
  fi
  rm -f "$log"
done
exit $status
