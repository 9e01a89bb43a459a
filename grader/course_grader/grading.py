"""Grading a class: every student x lab, on `jobs` workers that each own a build tree (build_tree.py), as a pipeline
(pipeline.py): on the GPU backend the next students are built while one student's tests hold each GPU. One student x
lab is graded by lab_grader.py; verdicts are defined in verdicts.py. What each task did when is written to
<work>/timeline.json."""
from __future__ import annotations

import dataclasses
import secrets
import shutil
from pathlib import Path

from . import intake, pipeline
from .build_tree import BuildTree
from .config import Course
from .lab_grader import LabGrader
from .manifest import Lab
from .progress import Progress
from .verdicts import LabResult


@dataclasses.dataclass
class Options:
    backend: str  # "cpu" or "gpu"
    jobs: int = 1  # workers, each with its own build tree (pipeline.default_jobs)
    seed: str = ""  # secret COURSE_SEED; random when empty
    gpus: tuple[str, ...] = ()  # GPU indices for the gpu backend
    work: Path | None = None  # build trees and scratch (default <out>/.work)
    quiet: bool = False


def grade_all(
    subs: list[intake.Submission], labs: tuple[Lab, ...], course: Course, opts: Options, work: Path
) -> list[LabResult]:
    """Every submission x lab, sorted by student and lab. Raises verdicts.GraderError when the grader cannot go on."""
    work.mkdir(parents=True, exist_ok=True)
    for sub in subs:  # the students graded now start afresh; the others' kept reports stay (grade.py --only)
        shutil.rmtree(work / "scratch" / sub.student, ignore_errors=True)
        shutil.rmtree(work / "runs" / sub.student, ignore_errors=True)
    grader = LabGrader(course, opts, work, opts.seed or secrets.token_hex(16))
    line: pipeline.Pipeline = pipeline.Pipeline(opts.gpus if opts.backend == "gpu" else ())
    grader.gpu_pool = line.slots  # the stage boundary: LabGrader takes a GPU for its tests from the pipeline
    tasks = [(s, lab) for s in subs for lab in labs]
    progress = Progress(len(tasks), opts.quiet)
    jobs = max(1, opts.jobs)
    build_jobs = pipeline.build_jobs(jobs, len(line.gpus), pipeline.cores())
    trees = [BuildTree(course, work, i, opts.backend, course.existing_labs(), build_jobs) for i in range(jobs)]

    def one(task: tuple[intake.Submission, Lab], tree: BuildTree) -> LabResult:
        return grader.grade(task[0], task[1], tree)

    def done(task: tuple[intake.Submission, Lab], r: LabResult) -> None:
        progress.step(f"{r.student} lab{r.lab}: {r.verdict}")

    try:
        results = line.run(tasks, trees, one, done)
    finally:
        line.write_timeline(work / "timeline.json", [f"{s.student} lab{lab.number}" for s, lab in tasks])
    return sorted(results, key=lambda r: (r.student, r.lab))
