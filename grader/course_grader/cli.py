"""Command line of the instructor grader: python3 grader/grade.py [SUBMISSIONS_DIR] --out OUT_DIR ..."""
from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import time
from pathlib import Path

from . import config, expected, grading, intake, report

SAMPLES = config.REPO_ROOT / "grader" / "samples"
SAMPLES_TEST_SECONDS = 45  # per test program when grading the bundled samples (the hanging one waits this long)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade a folder of submissions (one subfolder, .zip or .tar.gz per student). With no folder, "
                    "grades the bundled samples (grader/samples) and checks their expected verdicts.")
    p.add_argument("submissions", nargs="?", type=Path, help="folder of submissions (default: grader/samples)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: build/grades)")
    p.add_argument("--jobs", type=int, default=0,
                   help="parallel workers, each with its own build tree (default: 1; with GPUs: one per GPU)")
    p.add_argument("--labs", default="", help="comma-separated lab numbers, e.g. 01,03 (default: all that exist)")
    p.add_argument("--backend", choices=["auto", "cpu", "gpu"], default="auto",
                   help="auto: gpu when nvidia-smi lists a GPU, else cpu")
    p.add_argument("--config", type=Path, default=config.DEFAULT_CONFIG, help="course configuration")
    p.add_argument("--work", type=Path, default=None,
                   help="build trees and scratch (default: OUT/.work; kept so the next run reuses the build trees)")
    p.add_argument("--expect", type=Path, default=None,
                   help="expected verdicts to check (default: grader/samples/expected.toml when grading the samples)")
    p.add_argument("--seed", default="", help=argparse.SUPPRESS)  # reproduce a run; never printed or written
    p.add_argument("--test-timeout", type=float, default=0, help="seconds per test program (default: course.toml)")
    p.add_argument("--no-plots", action="store_true", help="do not draw plots")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        course = config.load(args.config)
    except config.ConfigError as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 2
    test_seconds = args.test_timeout
    if not test_seconds and args.submissions is None:
        test_seconds = min(course.limits.test_seconds, SAMPLES_TEST_SECONDS)  # the samples: a quick demonstration
    if test_seconds > 0:
        course = dataclasses.replace(course, limits=dataclasses.replace(course.limits, test_seconds=test_seconds))
    submissions = (args.submissions or SAMPLES).resolve()
    out = (args.out or config.REPO_ROOT / "build" / "grades").resolve()
    expect = args.expect or (SAMPLES / "expected.toml" if args.submissions is None else None)
    if not submissions.is_dir():
        print(f"grade.py: {submissions} is not a folder", file=sys.stderr)
        return 2
    if out == submissions or submissions in out.parents:
        print(f"grade.py: the output folder {out} must not be inside the submissions folder", file=sys.stderr)
        return 2
    if out in submissions.parents:
        print(f"grade.py: the submissions folder must not be inside the output folder {out}", file=sys.stderr)
        return 2

    labs = course.existing_labs()
    if args.labs:
        wanted = {n.strip().zfill(2) for n in args.labs.split(",") if n.strip()}
        unknown = wanted - {l.number for l in course.labs}
        if unknown:
            print(f"grade.py: --labs: no lab {', '.join(sorted(unknown))} in {args.config}", file=sys.stderr)
            return 2
        absent = wanted - {l.number for l in labs}
        if absent:
            print(f"grade.py: lab {', '.join(sorted(absent))} does not exist yet (no grader/labs/labNN.cmake); "
                  "skipped", file=sys.stderr)
        labs = tuple(l for l in labs if l.number in wanted)
    if not labs:
        print("grade.py: no lab to grade", file=sys.stderr)
        return 2

    gpus = grading.detect_gpus() if args.backend in ("auto", "gpu") else ()
    backend = "gpu" if gpus else "cpu"
    if args.backend == "gpu" and not gpus:
        print("grade.py: --backend gpu, but nvidia-smi lists no GPU", file=sys.stderr)
        return 2
    if backend == "gpu" and not shutil.which("nvcc"):
        print("grade.py: a GPU is present but nvcc is not on PATH", file=sys.stderr)
        return 2
    jobs = args.jobs or (len(gpus) if gpus else 1)
    work = (args.work or out / ".work").resolve()

    subs, ignored = intake.discover(submissions, course, labs)
    print(f"grade.py: {len(subs)} submissions x {len(labs)} labs on the {backend} backend"
          + (f" (GPUs {', '.join(gpus)})" if gpus else " (performance not graded: no GPU)")
          + f", {jobs} worker(s); output in {out}", file=sys.stderr)
    opts = grading.Options(backend=backend, jobs=jobs, seed=args.seed, gpus=gpus, work=work, quiet=args.quiet)
    start = time.monotonic()
    try:
        results = grading.grade_all(subs, labs, course, opts, work) if subs else []
    except grading.GraderError as e:
        print(f"grade.py: grading stopped: {e}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - start
    message = report.write_all(results, subs, labs, ignored, backend, out, plots=not args.no_plots)
    if message:
        print(f"grade.py: {message}", file=sys.stderr)
    graded = [r for r in results if r.verdict not in ("missing", "rejected")]
    per = f", {seconds / max(1, len({r.student for r in graded})):.1f} s per submission" if graded else ""
    print(f"grade.py: graded {len(subs)} submissions in {seconds:.0f} s{per}. "
          f"Wrote {out / 'class.csv'}, {out / 'summary.md'}, {out / 'results'}/<student>/results.json",
          file=sys.stderr)
    if not subs:
        print("grade.py: the submissions folder holds no submission (no subfolder, .zip or .tar.gz)", file=sys.stderr)
    if expect is not None:
        mismatches = expected.check(results, expected.load(expect), backend)
        if mismatches:
            print("grade.py: verdicts differ from " + str(expect) + ":\n  " + "\n  ".join(mismatches), file=sys.stderr)
            return 1
        print(f"grade.py: every verdict matches {expect}", file=sys.stderr)
    return 0
