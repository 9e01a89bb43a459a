"""Gradescope autograder: grades one upload's correctness on the CPU backend (Gradescope has no GPU) and marks
performance as graded separately on the course GPU.

Gradescope layout: the bundle is unpacked in ROOT/source (ROOT = /autograder), the student's upload is in
ROOT/submission, and ROOT/results/results.json is read back. Every path derives from --root, so the layout can be
simulated in a temporary folder (grader/tests_py/test_gradescope.py does).

    python3 -m course_grader.gradescope --root /autograder --labs 01 [--prebuild]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import config, grading, intake, report
from .build_tree import BuildTree
from .manifest import Lab
from .verdicts import GraderError

PERF_OUTPUT = (
    "Performance is graded separately on the course GPU (Gradescope has no GPU); "
    "the instructor's GPU run adds those points."
)


def labs_for(course: config.Course, numbers: str) -> tuple[Lab, ...]:
    labs = course.existing_labs()
    if numbers:
        wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()}
        labs = tuple(lab for lab in labs if lab.number in wanted)
    return labs


def prebuild(course: config.Course, labs: tuple[Lab, ...], work: Path) -> None:
    """At setup time: configure the build tree and build every lab's targets once with the skeletons, so that grading
    an upload recompiles only the student's file."""
    tree = BuildTree(course, work, 0, "cpu", course.existing_labs(), build_jobs=2)
    tree.configure()
    for lab in labs:
        files = {n: (course.repo_root / "labs" / lab.folder / n).read_bytes() for n in lab.files}
        ok, log = tree.build(lab, files)
        if not ok:
            raise GraderError(f"prebuilding lab{lab.number} with its skeleton failed:\n{log}")


def run(root: Path, course: config.Course, labs: tuple[Lab, ...], work: Path, seed: str = "") -> dict:
    submission = root / "submission"
    sub = intake.read_submission(submission, "submission", course, labs)
    opts = grading.Options(backend="cpu", jobs=1, seed=seed, work=work, quiet=True)
    results = grading.grade_all([sub], labs, course, opts, work)
    data = report.gradescope_results(results, sub.notes, perf_output=PERF_OUTPUT)
    out = root / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="course_grader.gradescope")
    p.add_argument("--root", type=Path, default=Path("/autograder"))
    p.add_argument("--labs", default="", help="lab numbers this assignment grades, e.g. 01 (default: all)")
    p.add_argument("--work", type=Path, default=None, help="build tree (default: ROOT/grader-work)")
    p.add_argument("--prebuild", action="store_true", help="setup time: configure and build the harness once")
    args = p.parse_args(argv)
    work = args.work or args.root / "grader-work"
    try:
        course = config.load()
        labs = labs_for(course, args.labs)
        if args.prebuild:
            prebuild(course, labs, work)
            return 0
        run(args.root, course, labs, work)
    except (GraderError, config.ConfigError) as e:
        out = args.root / "results"
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(
            json.dumps(
                {
                    "score": 0,
                    "output": f"The autograder failed (not your fault; tell the instructor): {e}",
                    "tests": [],
                },
                indent=2,
            )
        )
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
