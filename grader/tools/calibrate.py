#!/usr/bin/env python3
"""Calibrate the perf thresholds: run every lab's perf tests several times on this GPU, tabulate the ratios and
suggest the marks as [thresholds.gpu.<model>] sections to paste into the labs' manifests.

For each lab with [[perf]] tests in its manifest (grader/labs/NN_name/lab.toml), runs the declared perf tests of
  solutionNN_gpu                 the reference solution                                   must pass
  labNN_variant_<name>_gpu       the manifest's correct variants                          must pass
  labNN_catalogue_<name>_gpu     catalogue entries with gpu = "perf-fail" (known slow)    must fail
(programs of a CUDA build tree with the self-test: COURSE_BUILD_SOLUTIONS=ON, the default) each --runs times, as
separate processes, and reads what each test recorded (ratio, threshold, its section, verdict, result check) from
GoogleTest's JSON report (course_grader.gtest). The suggested mark of a perf key is --fraction (85 %) of the slowest
kernel that must pass (median over the runs), rounded down to --step (0.05); a comment says when a kernel that must
fail reaches it. Prints a Markdown table and the sections; --json writes the raw numbers.

  python3 grader/tools/calibrate.py --build build/gpu --runs 5 --json calibration.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))

from course_grader import catalogue, gtest, manifest  # noqa: E402


def executables(build: Path, lab: manifest.Lab) -> list[tuple[str, Path]]:
    """(role, worker program) for one lab: the names CourseLab.cmake gives the solution, variant and catalogue
    programs (each runs under the lab's judge, labNN_judge_gpu)."""
    grader = build / "grader"
    out = [("must pass", grader / f"solution{lab.number}_gpu")]
    out += [("must pass", grader / f"lab{lab.number}_variant_{Path(v).stem}_gpu") for v in lab.variants]
    out += [
        ("must fail", grader / f"lab{lab.number}_catalogue_{m.name}_gpu")
        for m in catalogue.load_catalogue(lab, ROOT)
        if m.gpu == "perf-fail"
    ]
    return out


def run_once(exe: Path, lab: manifest.Lab, timeout: float) -> dict[str, dict]:
    """One judge process running the lab's perf tests with the worker `exe` (common/include/course/remote.h):
    {test: what it recorded, or {"problem": why not}}."""
    judge = exe.parent / f"lab{lab.number}_judge_gpu"
    with tempfile.TemporaryDirectory() as tmp:
        r = gtest.run_gtest(
            judge,
            ":".join(p.test for p in lab.perf),
            workdir=Path(tmp),
            timeout=timeout,
            env=None,
            max_output_bytes=None,
            extra_args=(f"--course-worker={exe}",),
        )
    results = {}
    for perf in lab.perf:
        case = r.case(perf.test)
        if not r.ok:
            results[perf.test] = {"problem": r.problem}
        elif case is None or case.status == "skipped":
            results[perf.test] = {"problem": "did not run" if case is None else "skipped"}
        else:
            rec, why = gtest.perf_record(case)
            results[perf.test] = (
                {"problem": why, "failures": case.failures[:1]}
                if rec is None
                else {
                    "ratio": rec.ratio,
                    "threshold": rec.threshold,
                    "threshold_section": rec.threshold_section,
                    "metric": rec.metric,
                    "device": rec.device,
                    "result_check": rec.result_check,
                    "verdict": rec.verdict,
                    "ceiling": rec.ceiling,
                    "ceiling_fraction": rec.ceiling_fraction,
                    "review": rec.review,
                    "test_passed": case.status == "passed",
                }
            )
    return results


def suggest(value: float, fraction: float, step: float) -> float:
    return round(math.floor(value * fraction / step + 1e-9) * step, 6)


def tool_output(cmd: list[str]) -> str:
    try:
        c = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return c.stdout.strip() if c.returncode == 0 else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, type=Path, help="a CMake build tree with CUDA and the self-test")
    parser.add_argument("--runs", type=int, default=5, help="processes per program (default 5)")
    parser.add_argument("--labs", default="", help="comma-separated lab numbers (default: every lab with [[perf]])")
    parser.add_argument("--json", type=Path, help="write the raw numbers here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per process")
    parser.add_argument("--fraction", type=float, default=0.85, help="mark = this fraction of the slowest passing")
    parser.add_argument("--step", type=float, default=0.05, help="marks are rounded down to a multiple of this")
    args = parser.parse_args()
    args.build = args.build.resolve()  # the programs run in scratch folders: their paths must not be relative

    if not (args.build / "grader").is_dir():
        sys.exit(f"calibrate: {args.build / 'grader'} does not exist: build the project with CUDA first")
    try:
        labs = [lab for lab in manifest.load_labs(ROOT) if lab.perf]
        gpus = manifest.load_gpus(ROOT / "grader" / "course.toml")
        wanted = {n.strip().zfill(2) for n in args.labs.split(",") if n.strip()}
        labs = [lab for lab in labs if not wanted or lab.number in wanted]
        programs = {lab.number: executables(args.build, lab) for lab in labs}
    except manifest.ManifestError as e:
        sys.exit(f"calibrate: {e}")

    record = {
        "date": datetime.date.today().isoformat(),
        "runs": args.runs,
        "executables": {},
        "gpu": tool_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]) or "unknown",
        "cuda": (tool_output(["nvcc", "--version"]).splitlines() or ["unknown"])[-1],
    }
    rows = []  # (lab, role, program, test, key, ratios, record of the first run)
    devices = set()
    for lab in labs:
        keys = {p.test: p.key for p in lab.perf}
        for role, exe in programs[lab.number]:
            if not exe.is_file():
                print(f"calibrate: missing {exe} (build with COURSE_BUILD_SOLUTIONS=ON and CUDA)", file=sys.stderr)
                continue
            runs = [run_once(exe, lab, args.timeout) for _ in range(args.runs)]
            record["executables"][exe.name] = runs
            for test, key in keys.items():
                good = [r[test] for r in runs if "ratio" in r[test]]
                problems = sorted({r[test]["problem"] for r in runs if "ratio" not in r[test]})
                if problems:
                    print(f"calibrate: {exe.name} {test}: {'; '.join(problems)}", file=sys.stderr)
                if good:
                    devices.update(g["device"] for g in good if g["device"])
                    rows.append((lab, role, exe.name, test, key, [g["ratio"] for g in good], good))
            print(f"calibrate: {exe.name} done", file=sys.stderr, flush=True)

    print(f"GPU: {record['gpu']}; {record['cuda']}; {record['date']}; {args.runs} processes per program\n")
    print(
        "| program | role | test | ratios (one per process) | median | min | threshold [section] | verdict pass "
        "| result check pass | of the ceiling (max) | held for review |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for lab, role, name, test, key, ratios, good in rows:
        first = good[0]
        print(
            f"| {name} | {role} | {test} | {', '.join(f'{r:.3f}' for r in ratios)} | {statistics.median(ratios):.3f} "
            f"| {min(ratios):.3f} | {first['threshold']:.3f} [{first['threshold_section']}] "
            f"| {sum(g['verdict'] == 'pass' for g in good)}/{len(good)} "
            f"| {sum(g['result_check'] == 'pass' for g in good)}/{len(good)} "
            f"| {max((g.get('ceiling_fraction') or 0) for g in good):.3f} {first.get('ceiling', '')} "
            f"| {sum(bool(g.get('review')) for g in good)}/{len(good)} |"
        )
    print_sections(labs, rows, devices, gpus, args.fraction, args.step)
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))
    return 0


def print_sections(labs, rows, devices: set[str], gpus: dict[str, str], fraction: float, step: float) -> None:
    """The suggested marks, one [thresholds.gpu.<model>] section per lab, in manifest form."""
    if len(devices) != 1:
        print(f"\ncalibrate: no suggestion: the runs report {len(devices)} devices ({', '.join(sorted(devices))})")
        return
    device = devices.pop()
    model = manifest.gpu_key(device)
    print(
        f"\n# Suggested marks on {device}: {fraction:.0%} of the slowest kernel that must pass (median of the "
        f"runs), rounded down to {step:g}."
    )
    if model not in gpus:
        print(
            f'# First add  {model} = "{device}"  under [gpus] in grader/course.toml (a section for a model not '
            "listed there stops the configure step)."
        )
    for lab in labs:
        lines = []
        for perf in lab.perf:
            passing = [
                (statistics.median(r[5]), r[2])
                for r in rows
                if r[0] is lab and r[3] == perf.test and r[1] == "must pass"
            ]
            failing = [
                (statistics.median(r[5]), r[2])
                for r in rows
                if r[0] is lab and r[3] == perf.test and r[1] == "must fail"
            ]
            if not passing:
                lines.append(f"# {perf.key}: no kernel that must pass was measured")
                continue
            slowest, name = min(passing)
            mark = suggest(slowest, fraction, step)
            now = lab.thresholds.get(f"gpu.{model}", {}).get(perf.key)
            note = f"slowest that must pass: {name} {slowest:.3f}" + (f"; now {now:g}" if now is not None else "")
            if failing:
                fastest, bad = max(failing)
                note += f"; fastest that must fail: {bad} {fastest:.3f}"
                if fastest >= mark:
                    note += " -- NOT SEPARATED: it would pass"
            lines.append(f"{perf.key} = {mark:.2f}   # {note}")
        print(f"\n# {lab.path.relative_to(ROOT)}\n[thresholds.gpu.{model}]")
        print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
