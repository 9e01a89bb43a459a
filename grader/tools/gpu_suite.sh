#!/usr/bin/env bash
# The whole GPU suite in one go, for a machine with an NVIDIA GPU (it is how the course's numbers are produced):
#   1. build for this GPU and run the self-test (solutions incl. perf, catalogue, variants) on the GPU;
#   2. build the student folder with the solutions pasted in and run `ctest -R labNN` for every lab;
#   3. calibrate: every perf test, several processes each (grader/tools/calibrate.py);
#   4. bank conflicts of lab 04 under Nsight Compute, when ncu and the lab exist;
#   5. bench: the figures' sweeps (grader/bench/run_all.sh on build/gpu): <output dir>/data/NAME.json (copy them to
#      docs/data/) and <output dir>/figures/NAME.png (to docs/figures/), logs in <output dir>/bench/. About 5 minutes.
#   6. idioms: the kernels in public CUDA idioms of grader/idioms graded on this GPU by the grader, each against the
#      gpu verdict its spec expects (the CPU ones are the ctest course.grader.idioms): <output dir>/idioms.log.
#   7. adversarial: the adversarial suite (grader/adversarial) graded with the GPU backend, every gpu expectation and
#      known gap checked (grader/adversarial/run.py --backend gpu; outputs in <output dir>/adversarial). Needs
#      bubblewrap: without a sandbox it is skipped, never run.
# On a GPU machine without a package manager, put Boost.Context, toml++ and bubblewrap under a prefix of their own
# (headers, libraries with their CMake configs, a bwrap that finds its libraries) and export
# CMAKE_PREFIX_PATH=<prefix> PATH=<prefix>/bin:$PATH first: every build tree, the grader's included, finds them there,
# and the test sandboxes read the library folders the programs were linked against (sandbox.library_roots).
# Usage: grader/tools/gpu_suite.sh <output dir> [stages] [calibration runs, default 5]
#   stages: a comma-separated subset of build,selftest,student,calibrate,ncu,bench,idioms,adversarial (default: all),
#   so a long suite can be split over several calls on the same machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: gpu_suite.sh <output dir> [stages] [runs]}
stages=${2:-build,selftest,student,calibrate,ncu,bench,idioms,adversarial}
runs=${3:-5}
want() { [[ ",$stages," == *",$1,"* ]]; }
mkdir -p "$out"
jobs=$(nproc)
arch=${CUDA_ARCH:-native}
status=0
step() { echo "== $(date +%T) $*" | tee -a "$out/summary.txt"; }

step "GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
if want build; then
  step "configure + build (arch $arch, $jobs jobs)"
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    > "$out/build.log" 2>&1 && cmake --build build/gpu -j "$jobs" >> "$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; step "BUILD FAILED"; exit 1; }
fi

if want selftest; then
  step "self-test on the GPU (the docs checks run in CI, not here)"
  ctest --test-dir build/gpu -L selftest -LE docs -j "$jobs" --output-on-failure --timeout 600 \
    > "$out/ctest_selftest.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$out/ctest_selftest.log" | tail -30 | tee -a "$out/summary.txt"
fi

if want student; then
  step "student build with the solutions pasted in: ctest -R labNN"
  cmake -S . -B build/student -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DCOURSE_STUDENT_DIR="$PWD/solutions" -DCOURSE_BUILD_SOLUTIONS=OFF > "$out/student.log" 2>&1 \
  && cmake --build build/student -j "$jobs" >> "$out/student.log" 2>&1 \
  && ctest --test-dir build/student -R '^lab[0-9][0-9]\.' -j "$jobs" --output-on-failure >> "$out/student.log" 2>&1 \
  || status=1
  grep -E "tests passed|Failed|\*\*\*" "$out/student.log" | tail -20 | tee -a "$out/summary.txt"
fi

if want calibrate; then
  step "calibration: $runs processes per perf executable"
  python3 grader/tools/calibrate.py --build build/gpu --runs "$runs" --json "$out/calibration.json" \
    > "$out/calibration.md" 2> "$out/calibration.err" || status=1
  cat "$out/calibration.md" >> "$out/summary.txt"
fi

if want ncu && command -v ncu > /dev/null && [ -x build/gpu/grader/solution04_gpu ]; then
  step "lab 04 bank conflicts (Nsight Compute)"
  grader/tools/ncu_bank_conflicts.sh build/gpu/grader/solution04_gpu > "$out/ncu_lab04.txt" 2>&1 || status=1
  tail -20 "$out/ncu_lab04.txt" >> "$out/summary.txt"
fi
if want bench; then
  step "bench: the figures' sweeps (grader/bench/run_all.sh): $out/data, $out/figures"
  BUILD_DIR=build/gpu CUDA_ARCHS="$arch" JOBS="$jobs" grader/bench/run_all.sh "$out" > "$out/bench.log" 2>&1 || status=1
  sed -n '/^run_bench: /,$p' "$out/bench.log" | tee -a "$out/summary.txt"
fi
if want idioms; then
  # Their gpu verdicts assume the grading tree has the CPU backend's check mode, which runs first on every machine
  # (a bug it reports is `wrong`, a feature it lacks `not-graded`): it needs Boost.Context (./setup.sh installs it).
  # (the grader's trees are configured like build/gpu: CMAKE_PREFIX_PATH may name a carried Boost.Context)
  if grep -Eq '^boost_context_DIR:PATH=/' build/gpu/CMakeCache.txt 2> /dev/null; then
    step "idioms: grader/idioms graded on this GPU against their expected gpu verdicts"
    python3 grader/grade.py grader/idioms/idioms.toml --out "$out/idioms" --backend gpu --labs 01,03,04,05,06,07 --no-plots \
      > "$out/idioms.log" 2>&1 || status=1
    grep -E "expected|differ|verdict|match" "$out/idioms.log" | tail -25 | tee -a "$out/summary.txt"
  else
    step "idioms: SKIPPED, no Boost.Context (sudo apt-get install libboost-context-dev): no check mode to run first"
    status=1
  fi
fi
if want adversarial; then
  step "adversarial suite on the GPU backend (grader/adversarial/run.py): $out/adversarial"
  python3 grader/adversarial/run.py --backend gpu --out "$out/adversarial" > "$out/adversarial.log" 2>&1
  case $? in
    0) ;;
    77) step "adversarial suite SKIPPED: $(grep -m1 SKIPPED "$out/adversarial.log")" ;;
    *) status=1 ;;
  esac
  sed -n '/^run.py: [0-9]* submissions graded/,$p' "$out/adversarial.log" | tee -a "$out/summary.txt"
fi
step "done (status $status)"
exit $status
