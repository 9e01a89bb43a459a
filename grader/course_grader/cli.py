"""Command line of the instructor grader: python3 grader/grade.py [SUBMISSIONS_DIR] --out OUT_DIR ...

main() parses the arguments and runs the command; grade() is the one command (grade a folder of submissions, write
the outputs, and check the expected verdicts when asked). Usage problems print 'grade.py: ...' and return 2.
"""
from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import time
from pathlib import Path

from . import config, expected, gpus, grading, intake, report
from .manifest import Lab
from .verdicts import GraderError

SAMPLES = config.REPO_ROOT / "grader" / "samples"
SAMPLES_TEST_SECONDS = 45  # per test program when grading the bundled samples (the hanging one waits this long)


class UsageError(Exception):
    """A problem with the command line or its folders: printed, exit status 2."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade a folder of submissions (one subfolder, .zip or .tar.gz per student). With no folder, "
                    "grades the bundled samples (grader/samples) and checks their expected verdicts.")
    p.add_argument("submissions", nargs="?", type=Path, help="folder of submissions (default: grader/samples)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: build/grades)")
    p.add_argument("--jobs", type=int, default=0,
                   help="parallel workers, each with its own build tree (default: 1; with GPUs: one per GPU)")
    p.add_argument("--labs", default="", help="comma-separated lab numbers, e.g. 01,03 (default: all)")
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
        return grade(args)
    except (UsageError, config.ConfigError) as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 2


# ---- the grade command ----------------------------------------------------------------------------------------------

def _folders(args: argparse.Namespace) -> tuple[Path, Path]:
    """(submissions, out), resolved; neither may hold the other."""
    submissions = (args.submissions or SAMPLES).resolve()
    out = (args.out or config.REPO_ROOT / "build" / "grades").resolve()
    if not submissions.is_dir():
        raise UsageError(f"{submissions} is not a folder")
    if out == submissions or submissions in out.parents:
        raise UsageError(f"the output folder {out} must not be inside the submissions folder")
    if out in submissions.parents:
        raise UsageError(f"the submissions folder must not be inside the output folder {out}")
    return submissions, out


def _labs(course: config.Course, numbers: str, config_path: Path) -> tuple[Lab, ...]:
    labs = course.existing_labs()
    if numbers:
        wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()}
        unknown = wanted - {lab.number for lab in labs}
        if unknown:
            raise UsageError(f"--labs: no lab {', '.join(sorted(unknown))} (no grader/labs/NN_name/lab.toml; "
                             f"configuration {config_path})")
        labs = tuple(lab for lab in labs if lab.number in wanted)
    if not labs:
        raise UsageError("no lab to grade")
    return labs


def _backend(choice: str) -> tuple[str, tuple[str, ...]]:
    """(backend, GPU indices)."""
    found = gpus.detect_gpus() if choice in ("auto", "gpu") else ()
    if choice == "gpu" and not found:
        raise UsageError("--backend gpu, but nvidia-smi lists no GPU")
    if found and not shutil.which("nvcc"):
        raise UsageError("a GPU is present but nvcc is not on PATH")
    return ("gpu" if found else "cpu"), found


def grade(args: argparse.Namespace) -> int:
    course = config.load(args.config)
    test_seconds = args.test_timeout
    if not test_seconds and args.submissions is None:
        test_seconds = min(course.limits.test_seconds, SAMPLES_TEST_SECONDS)  # the samples: a quick demonstration
    if test_seconds > 0:
        course = dataclasses.replace(course, limits=dataclasses.replace(course.limits, test_seconds=test_seconds))
    submissions, out = _folders(args)
    expect = args.expect or (SAMPLES / "expected.toml" if args.submissions is None else None)
    labs = _labs(course, args.labs, args.config)
    backend, gpu_ids = _backend(args.backend)
    jobs = args.jobs or (len(gpu_ids) if gpu_ids else 1)
    work = (args.work or out / ".work").resolve()

    subs, ignored = intake.discover(submissions, course, labs)
    print(f"grade.py: {len(subs)} submissions x {len(labs)} labs on the {backend} backend"
          + (f" (GPUs {', '.join(gpu_ids)})" if gpu_ids else " (performance not graded: no GPU)")
          + f", {jobs} worker(s); output in {out}", file=sys.stderr)
    opts = grading.Options(backend=backend, jobs=jobs, seed=args.seed, gpus=gpu_ids, work=work, quiet=args.quiet)
    start = time.monotonic()
    try:
        results = grading.grade_all(subs, labs, course, opts, work) if subs else []
    except GraderError as e:
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
    if expect is None:
        return 0
    mismatches = expected.check(results, expected.load(expect), backend)
    if mismatches:
        print(f"grade.py: verdicts differ from {expect}:\n  " + "\n  ".join(mismatches), file=sys.stderr)
        return 1
    print(f"grade.py: every verdict matches {expect}", file=sys.stderr)
    return 0
