#!/usr/bin/env python3
"""Calibrate the perf thresholds: run every lab's perf tests several times on this GPU and tabulate the ratios.

Runs, for each lab that has a thresholds file, the perf tests (GoogleTest suites ending in "Perf") of
  solutionNN_gpu                 the reference solution
  labNN_variant_<name>_gpu       correct variants that must pass (e.g. a plain scalar kernel)
  labNN_catalogue_<name>_gpu     known-slow kernels that must fail
each --runs times, as separate processes, and reads the ratios from GoogleTest's JSON output (the tests record
them with RecordProperty). Prints a Markdown table and writes the raw numbers as JSON.

  python3 grader/tools/calibrate.py --build build/gpu --runs 5 --json calibration.json
"""
import argparse
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def perf_results(exe, timeout):
    """Runs the perf tests of one executable once; returns {test name: properties}."""
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "out.json"
        proc = subprocess.run([str(exe), "--gtest_filter=*Perf.*", f"--gtest_output=json:{report}"],
                              capture_output=True, text=True, timeout=timeout)
        if not report.exists():
            raise RuntimeError(f"{exe.name} produced no report (exit {proc.returncode}):\n{proc.stdout[-2000:]}"
                               f"{proc.stderr[-2000:]}")
        data = json.loads(report.read_text())
    results = {}
    for suite in data.get("testsuites", []):
        for case in suite.get("testsuite", []):
            name = f"{suite['name']}.{case['name']}"
            props = {k: case[k] for k in ("ratio", "threshold", "metric", "device") if k in case}
            props["passed"] = not case.get("failures")
            props["skipped"] = case.get("result") == "SKIPPED" or "ratio" not in case
            results[name] = props
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, type=pathlib.Path, help="a CMake build tree with GPU targets")
    parser.add_argument("--runs", type=int, default=5, help="processes per executable (default 5)")
    parser.add_argument("--labs", default="", help="comma-separated lab numbers (default: all with thresholds)")
    parser.add_argument("--json", type=pathlib.Path, help="write the raw numbers here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per process")
    args = parser.parse_args()

    grader_dir = args.build / "grader"
    if not grader_dir.is_dir():
        sys.exit(f"calibrate: {grader_dir} does not exist: build the project with CUDA first")
    labs = sorted(p.stem[3:] for p in (ROOT / "grader" / "thresholds").glob("lab[0-9][0-9].toml"))
    if args.labs:
        labs = [lab for lab in labs if lab in args.labs.split(",")]

    record = {"date": datetime.date.today().isoformat(), "runs": args.runs, "executables": {}}
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True)
    record["gpu"] = smi.stdout.strip() or "unknown"
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True)
    record["cuda"] = nvcc.stdout.strip().splitlines()[-1] if nvcc.returncode == 0 else "unknown"

    rows = []
    for lab in labs:
        exes = [grader_dir / f"solution{lab}_gpu"]
        exes += sorted(grader_dir.glob(f"lab{lab}_variant_*_gpu"))
        exes += sorted(grader_dir.glob(f"lab{lab}_catalogue_*_gpu"))
        for exe in exes:
            if not exe.exists():
                print(f"calibrate: missing {exe}", file=sys.stderr)
                continue
            runs = [perf_results(exe, args.timeout) for _ in range(args.runs)]
            record["executables"][exe.name] = runs
            for test in runs[0]:
                ratios = [r[test]["ratio"] for r in runs if test in r and not r[test]["skipped"]]
                if not ratios:
                    continue
                ratios = [float(x) for x in ratios]
                passes = sum(1 for r in runs if r[test]["passed"])
                rows.append((exe.name, test, ratios, runs[0][test].get("threshold", "?"), passes))
            print(f"calibrate: {exe.name} done", file=sys.stderr, flush=True)

    print(f"GPU: {record['gpu']}; {record['cuda']}; {record['date']}; {args.runs} processes per executable\n")
    print("| executable | test | ratios (one per process) | median | min | threshold | passed |")
    print("|---|---|---|---|---|---|---|")
    for exe, test, ratios, threshold, passes in rows:
        print(f"| {exe} | {test} | {', '.join(f'{r:.3f}' for r in ratios)} | {statistics.median(ratios):.3f} "
              f"| {min(ratios):.3f} | {float(threshold):.3f} | {passes}/{len(ratios)} |")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
