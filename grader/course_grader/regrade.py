"""grade.py SUBMISSIONS --out OUT --only STUDENT: grade one student again and merge the result into OUT's class
outputs, which an earlier run wrote (cli.py parses; this module checks, merges and writes).

The earlier run's results are read from OUT/class.json (record.py). Before anything is graded, the re-grade must be
able to merge: the record exists, the student is in the submissions folder, and this run grades like the class run
(same labs or assignment with the same points, same backend, same sandbox); otherwise RegradeError says what differs
and nothing is written. Then every output (class.csv, summary.md, class.json, the student's results.json, the plots)
is written into a staging folder OUT/.regrade-<time>/, the files it replaces are copied into
OUT/previous/<time>-<student>/, and each new file is renamed over the old one (a rename is atomic: a reader sees the
old file or the new one).
"""
from __future__ import annotations

import dataclasses
import difflib
import shutil
import sys
import time
from pathlib import Path

from . import grading, intake, record, report
from .assignments import Assignment
from .config import Course
from .manifest import Lab
from .verdicts import GraderError, LabResult

PREVIOUS = "previous"  # OUT/previous/<time>-<student>/: the outputs as they were before each re-grade


class RegradeError(Exception):
    """The re-grade cannot be merged into OUT: printed, exit status 2; nothing written."""


def load_previous(out: Path) -> record.Record:
    try:
        return record.load(out)
    except record.RecordError as e:
        raise RegradeError(
            f"--only merges into the outputs of an earlier class run, and there are none to merge into: {e}. "
            f"Grade the whole class into {out} first (without --only)"
        ) from None


def labs_like(previous: record.Record, course: Course, numbers: str, name: str) -> tuple[Assignment | None, str]:
    """(assignment, lab numbers) of the class run, which the re-grade must use: --labs and --assignment may be left
    out, and when given must be the class run's."""
    if name and name != previous.assignment or numbers and previous.assignment:
        was = f"assignment {previous.assignment}" if previous.assignment else f"labs {', '.join(previous.labs)}"
        raise RegradeError(f"the class in this output folder was graded as {was}: re-grade the same way")
    if numbers:
        wanted = sorted({n.strip().zfill(2) for n in numbers.split(",") if n.strip()})
        if wanted != sorted(previous.labs):
            raise RegradeError(
                f"the class in this output folder was graded for labs {', '.join(previous.labs)}, not "
                f"{', '.join(wanted)}: re-grade the same labs (or leave out --labs)"
            )
    if previous.assignment:
        if previous.assignment not in course.assignments:
            raise RegradeError(
                f"the class was graded as assignment {previous.assignment}, which grader/course.toml no longer defines"
            )
        return course.assignments[previous.assignment], ""
    return None, ",".join(previous.labs)


def check_alike(previous: record.Record, labs: tuple[Lab, ...], backend: str, isolation: str) -> None:
    """This run grades like the class run did, so that its results can stand beside the others."""
    if backend != previous.backend:
        raise RegradeError(
            f"the class was graded on the {previous.backend} backend and this run would grade on the {backend} "
            f"backend: re-grade on a machine like the class run's (or with --backend {previous.backend})"
        )
    if isolation != previous.isolation:
        raise RegradeError(
            f"the class was graded with sandbox '{previous.isolation}' and this run has '{isolation}': re-grade "
            "with the same sandbox setting"
        )
    points = {r.lab: (r.correctness_max, r.perf_max) for r in previous.results}
    for lab in labs:
        was = points.get(lab.number)
        if was is not None and was != (lab.correctness_points, lab.performance_points):
            raise RegradeError(
                f"lab{lab.number}'s points changed since the class was graded ({was[0]:g} + {was[1]:g} then, "
                f"{lab.correctness_points:g} + {lab.performance_points:g} now): grade the whole class again"
            )


def find_student(subs: list[intake.Submission], wanted: str, folder: Path) -> intake.Submission:
    """The submission of `wanted`: a student id as the outputs name it, or the entry's name in the folder."""
    for sub in subs:
        if sub.student == wanted:
            return sub
    for sub in subs:
        if wanted in (sub.source, intake.without_suffix(sub.source)):
            return sub
    near = difflib.get_close_matches(wanted, [s.student for s in subs], n=3)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    raise RegradeError(f"--only {wanted}: no such student in {folder}{hint}")


def _stamp(out: Path, student: str) -> str:
    base = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    stamp, n = f"{base}-{student}", 1
    while (out / PREVIOUS / stamp).exists() or (out / f".regrade-{stamp}").exists():
        n += 1
        stamp = f"{base}-{student}-{n}"
    return stamp


def merge(
    previous: record.Record,
    sub: intake.Submission,
    results: list[LabResult],
    ignored: list[str],
    labs: tuple[Lab, ...],
    out: Path,
    plots: bool,
    visibility: dict | None,
    assignment: Assignment | None,
) -> tuple[Path, str]:
    """Replaces the student's results in the class outputs. Returns (the folder of the previous outputs, a message
    about the plots)."""
    merged = sorted(
        [r for r in previous.results if r.student != sub.student] + results, key=lambda r: (r.student, r.lab)
    )
    subs = sorted([s for s in previous.submissions if s.student != sub.student] + [sub], key=lambda s: s.student)
    stamp = _stamp(out, sub.student)
    staging = out / f".regrade-{stamp}"
    staging.mkdir()
    try:
        name, due = (assignment.name, assignment.due) if assignment else ("", "")
        report.write_csv(merged, staging / "class.csv", previous.isolation)
        mine = [r for r in merged if r.student == sub.student]
        report.write_student_results(mine, [sub], staging, previous.isolation, visibility, name)
        made, message = report.write_plots(merged, labs, staging) if plots else ([], "")
        backend = previous.backend
        report.write_summary(merged, subs, labs, ignored, backend, staging, made, previous.isolation, name, due)
        rec = record.Record(backend, previous.labs, merged, subs, ignored, previous.isolation, visibility, name, due)
        report.write_atomic(staging / record.NAME, record.to_json(rec))
        new = sorted(p.relative_to(staging) for p in staging.rglob("*") if p.is_file())
        kept = out / PREVIOUS / stamp
        kept.mkdir(parents=True)
        for rel in new:  # first every old file is kept, then the new ones replace them
            if (out / rel).is_file():
                (kept / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(out / rel, kept / rel)
        for rel in new:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging / rel).replace(out / rel)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return kept, message


def run(
    course: Course,
    opts: grading.Options,
    previous: record.Record,
    sub: intake.Submission,
    ignored: list[str],
    labs: tuple[Lab, ...],
    assignment: Assignment | None,
    out: Path,
    plots: bool,
) -> int:
    """Grades `sub` and merges its results into OUT's class outputs; the exit status of grade.py."""
    added = "" if any(s.student == sub.student for s in previous.submissions) else " (not in the class outputs yet)"
    print(f"grade.py: re-grading {sub.student}{added}: {len(labs)} labs on the {opts.backend} backend", file=sys.stderr)
    try:
        results = grading.grade_all([sub], labs, course, opts, opts.work or out / ".work")
    except GraderError as e:
        print(f"grade.py: grading stopped: {e}; the outputs in {out} are unchanged", file=sys.stderr)
        return 2
    visibility = dataclasses.asdict(course.visibility)
    kept, message = merge(previous, sub, results, ignored, labs, out, plots, visibility, assignment)
    if message:
        print(f"grade.py: {message}", file=sys.stderr)
    print(
        f"grade.py: {sub.student}: {', '.join(f'lab{r.lab} {r.verdict}' for r in results)}. Merged into "
        f"{out / 'class.csv'}, summary.md, {record.NAME} and results/{sub.student}/results.json; the previous "
        f"outputs are in {kept}",
        file=sys.stderr,
    )
    return 0
