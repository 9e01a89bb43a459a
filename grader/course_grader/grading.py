"""Grading a class: every student x lab, on `jobs` workers that each own a build tree (build_tree.py) and, on the GPU
backend, one GPU at a time. One student x lab is graded by lab_grader.py; verdicts are defined in verdicts.py."""
from __future__ import annotations

import dataclasses
import os
import queue
import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import intake
from .build_tree import BuildTree
from .config import Course
from .lab_grader import LabGrader
from .manifest import Lab
from .progress import Progress
from .verdicts import LabResult


@dataclasses.dataclass
class Options:
    backend: str  # "cpu" or "gpu"
    jobs: int = 1
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
    tasks = [(s, lab) for s in subs for lab in labs]
    progress = Progress(len(tasks), opts.quiet)
    jobs = max(1, opts.jobs)
    build_jobs = max(1, (os.cpu_count() or 2) // jobs)
    trees: queue.Queue[BuildTree] = queue.Queue()
    for i in range(jobs):
        trees.put(BuildTree(course, work, i, opts.backend, course.existing_labs(), build_jobs))

    def one(task: tuple[intake.Submission, Lab]) -> LabResult:
        sub, lab = task
        tree = trees.get()
        try:
            r = grader.grade(sub, lab, tree)
        finally:
            trees.put(tree)
        progress.step(f"{sub.student} lab{lab.number}: {r.verdict}")
        return r

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, tasks))
    return sorted(results, key=lambda r: (r.student, r.lab))
