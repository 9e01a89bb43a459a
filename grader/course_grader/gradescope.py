"""Gradescope autograder: grades one upload's correctness on the CPU backend (Gradescope has no GPU) and marks
performance as graded separately on the course GPU.

Gradescope layout: the bundle is unpacked in ROOT/source (ROOT = /autograder), the student's upload is in
ROOT/submission, and ROOT/results/results.json is read back. Every path derives from --root, so the layout can be
simulated in a temporary folder (grader/tests_py/test_gradescope.py does).

    python3 -m course_grader.gradescope --root /autograder [--labs 01 | --assignment NAME] [--prebuild]

--assignment NAME grades the labs of an assignment of grader/course.toml with its points; results.json follows
course.toml's [visibility] (results_json.py).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import assignments, config, grading, intake, report, results_json
from .build_tree import BuildTree
from .manifest import Lab
from .verdicts import GraderError


def labs_for(course: config.Course, numbers: str, assignment: str = "") -> tuple[Lab, ...]:
    """The labs to grade: the assignment's (with its points), else those numbered in `numbers`, else all."""
    if assignment:
        if assignment not in course.assignments:
            known = ", ".join(sorted(course.assignments)) or "none"
            raise config.ConfigError(f"no assignment '{assignment}' in grader/course.toml (defined: {known})")
        return course.assignments[assignment].select(course.existing_labs())
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


def run(
    root: Path, course: config.Course, labs: tuple[Lab, ...], work: Path, seed: str = "", assignment: str = ""
) -> dict:
    start = time.monotonic()
    submission = root / "submission"
    sub = intake.read_submission(submission, "submission", course, labs)
    opts = grading.Options(backend="cpu", jobs=1, seed=seed, work=work, quiet=True)
    results = grading.grade_all([sub], labs, course, opts, work)
    data = results_json.student_results(
        results,
        sub.notes,
        course.visibility,
        graded_elsewhere=True,
        execution_time=time.monotonic() - start,
        extra={"assignment": assignment} if assignment else None,
    )
    out = root / "results"
    out.mkdir(parents=True, exist_ok=True)
    report.write_atomic(out / "results.json", json.dumps(data, indent=2) + "\n")
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="course_grader.gradescope")
    p.add_argument("--root", type=Path, default=Path("/autograder"))
    p.add_argument("--labs", default="", help="lab numbers this assignment grades, e.g. 01 (default: all)")
    p.add_argument("--assignment", default="", help="an assignment of grader/course.toml: its labs and points")
    p.add_argument("--work", type=Path, default=None, help="build tree (default: ROOT/grader-work)")
    p.add_argument("--prebuild", action="store_true", help="setup time: configure and build the harness once")
    args = p.parse_args(argv)
    work = args.work or args.root / "grader-work"
    try:
        course = config.load()
        labs = labs_for(course, args.labs, args.assignment)
        if args.prebuild:
            prebuild(course, labs, work)
            return 0
        run(args.root, course, labs, work, assignment=args.assignment)
    except (GraderError, config.ConfigError, assignments.AssignmentError) as e:
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
