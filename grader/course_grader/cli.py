"""Command line of the instructor grader: python3 grader/grade.py [SUBMISSIONS_DIR | SAMPLES.toml] --out OUT_DIR ...

main() parses the arguments and runs the command; grade() is the one command (grade a folder of submissions, write
the outputs, and check the expected verdicts when asked). With no folder, or with a samples spec (default
grader/samples/samples.toml, see samples.py), it first generates the sample submissions into OUT_DIR/.samples and
checks their expected verdicts. --assignment NAME grades the labs of an assignment of grader/course.toml
(assignments.py); --only STUDENT grades one student again and merges the result into OUT_DIR's outputs
(regrade.py). Usage problems print 'grade.py: ...' and return 2.
"""
from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import time
from pathlib import Path

from . import assignments, config, expected, gpus, grading, intake, pipeline, regrade, report, samples, sandbox, slurm
from .assignments import Assignment
from .manifest import Lab
from .verdicts import GraderError

SAMPLES_SPEC = samples.SPEC
SAMPLES_FOLDER = ".samples"  # OUT/.samples: the generated sample submissions, made afresh on each run
SAMPLES_TEST_SECONDS = 45  # per test program when grading the bundled samples (the hanging one waits this long)


class UsageError(Exception):
    """A problem with the command line or its folders: printed, exit status 2."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade a folder of submissions (one subfolder, .zip or .tar.gz per student). With no folder, "
        "generates the bundled samples (grader/samples/samples.toml) into OUT/.samples, grades them and "
        "checks their expected verdicts.",
    )
    p.add_argument(
        "submissions",
        nargs="?",
        type=Path,
        help="folder of submissions, or a samples spec (.toml) to generate and grade "
        "(default: grader/samples/samples.toml)",
    )
    p.add_argument("--out", type=Path, default=None, help="output folder (default: build/grades)")
    p.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="parallel workers, each with its own build tree (default: 2, 1 on one core; with GPUs: three per GPU, "
        "the others building or running check mode while one's tests hold the GPU, where there are 2 cores per "
        "worker)",
    )
    p.add_argument("--labs", default="", help="comma-separated lab numbers, e.g. 01,03 (default: all)")
    p.add_argument(
        "--assignment",
        default="",
        metavar="NAME",
        help="grade the labs of this assignment of grader/course.toml ([assignments.NAME]), with its points",
    )
    p.add_argument(
        "--only",
        default="",
        metavar="STUDENT",
        help="grade this student again and merge the result into OUT's outputs of an earlier class run (the "
        "previous outputs are kept in OUT/previous/)",
    )
    p.add_argument(
        "--backend",
        choices=["auto", "cpu", "gpu"],
        default="auto",
        help="auto: gpu when nvidia-smi lists a GPU, else cpu",
    )
    p.add_argument("--config", type=Path, default=config.DEFAULT_CONFIG, help="course configuration")
    p.add_argument(
        "--work",
        type=Path,
        default=None,
        help="build trees and scratch (default: OUT/.work; kept so the next run reuses the build trees)",
    )
    p.add_argument(
        "--expect",
        type=Path,
        default=None,
        help="samples spec whose expected verdicts to check (default: the spec when grading samples)",
    )
    p.add_argument("--seed", default="", help=argparse.SUPPRESS)  # reproduce a run; never printed or written
    p.add_argument("--test-timeout", type=float, default=0, help="seconds per test program (default: course.toml)")
    p.add_argument("--no-plots", action="store_true", help="do not draw plots")
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run student code without the bubblewrap sandbox, with the grader's privileges (only where bwrap "
        "cannot work; every output records it)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress line")
    slurm.add_arguments(p)  # --slurm and its options: slurm.py
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if slurm.requested(args):
            return slurm.run(args)  # a job array of shards, each graded by grade() on a node, then a merge job
        return grade(args)
    except (UsageError, config.ConfigError, samples.SampleError, regrade.RegradeError) as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ngrade.py: interrupted: the running tests were stopped and no output was written", file=sys.stderr)
        return 130


# ---- the grade command ----------------------------------------------------------------------------------------------


def _spec(submissions: Path | None) -> Path | None:
    """The samples spec to generate the submissions from: the default one with no folder, the .toml file given, or
    the samples.toml of the folder given (grader/samples)."""
    if submissions is None:
        return SAMPLES_SPEC
    if submissions.suffix == ".toml" and submissions.is_file():
        return submissions.resolve()
    if (submissions / SAMPLES_SPEC.name).is_file():
        return (submissions / SAMPLES_SPEC.name).resolve()
    return None


def _folders(args: argparse.Namespace, spec: Path | None) -> tuple[Path, Path]:
    """(submissions, out), resolved; neither may hold the other. Samples are generated into OUT/.samples."""
    out = (args.out or config.REPO_ROOT / "build" / "grades").resolve()
    if spec is not None:
        return out / SAMPLES_FOLDER, out
    submissions = args.submissions.resolve()
    if not submissions.is_dir():
        raise UsageError(f"{submissions} is not a folder (nor a samples spec, a .toml file)")
    if out == submissions or submissions in out.parents:
        raise UsageError(f"the output folder {out} must not be inside the submissions folder")
    if out in submissions.parents:
        raise UsageError(f"the submissions folder must not be inside the output folder {out}")
    return submissions, out


def _labs(
    course: config.Course, numbers: str, config_path: Path, assignment: str = ""
) -> tuple[Assignment | None, tuple[Lab, ...]]:
    """(the assignment or None, the labs to grade): the assignment's labs with its points, else --labs, else all."""
    if assignment:
        if numbers:
            raise UsageError("--labs and --assignment do not go together: an assignment names its labs")
        if assignment not in course.assignments:
            known = ", ".join(sorted(course.assignments)) or "none"
            raise UsageError(
                f"--assignment {assignment}: no [assignments.{assignment}] in {config_path} (defined: {known})"
            )
        chosen = course.assignments[assignment]
        try:
            return chosen, chosen.select(course.existing_labs())
        except assignments.AssignmentError as e:
            raise UsageError(str(e)) from e
    labs = course.existing_labs()
    if numbers:
        wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()}
        unknown = wanted - {lab.number for lab in labs}
        if unknown:
            raise UsageError(
                f"--labs: no lab {', '.join(sorted(unknown))} (no grader/labs/NN_name/lab.toml; "
                f"configuration {config_path})"
            )
        labs = tuple(lab for lab in labs if lab.number in wanted)
    if not labs:
        raise UsageError("no lab to grade")
    return None, labs


def _backend(choice: str) -> tuple[str, tuple[str, ...]]:
    """(backend, GPU indices)."""
    found = gpus.detect_gpus() if choice in ("auto", "gpu") else ()
    if choice == "gpu" and not found:
        raise UsageError("--backend gpu, but nvidia-smi lists no GPU")
    if found and not shutil.which("nvcc"):
        raise UsageError("a GPU is present but nvcc is not on PATH")
    return ("gpu" if found else "cpu"), found


def _sandbox(no_sandbox: bool, course: config.Course, work: Path) -> sandbox.Policy:
    """The sandbox for student code, probed once; without it grading stops, unless --no-sandbox."""
    work.mkdir(parents=True, exist_ok=True)
    try:
        policy = sandbox.setup(no_sandbox, (course.repo_root, work))
    except sandbox.SandboxError as e:
        raise UsageError(str(e)) from e
    sandbox.use(policy)
    if not policy.enabled:
        print(
            "grade.py: WARNING: --no-sandbox: student code runs with this user's privileges (every output says " "so)",
            file=sys.stderr,
        )
    return policy


def _generate(spec: Path, folder: Path, labs: tuple[Lab, ...]) -> None:
    """The sample submissions of `labs` from `spec`, written afresh into `folder` (OUT/.samples)."""
    made = samples.load(spec)  # checked before the previous ones are removed
    shutil.rmtree(folder, ignore_errors=True)
    written = samples.generate(made, folder, labs)
    print(f"grade.py: generated {len(written)} sample submissions from {spec} into {folder}", file=sys.stderr)


def grade(args: argparse.Namespace) -> int:
    course = config.load(args.config)
    spec = _spec(args.submissions)
    if args.only and (spec is not None or args.expect is not None):
        raise UsageError("--only re-grades one student of a folder of submissions: give that folder (not samples)")
    test_seconds = args.test_timeout
    if not test_seconds and spec is not None:
        test_seconds = min(course.limits.test_seconds, SAMPLES_TEST_SECONDS)  # the samples: a quick demonstration
    if test_seconds > 0:
        course = dataclasses.replace(course, limits=dataclasses.replace(course.limits, test_seconds=test_seconds))
    submissions, out = _folders(args, spec)
    expect = args.expect or spec
    wanted = expected.load(expect) if expect is not None else None  # a bad spec stops before any grading
    numbers, name = args.labs, args.assignment
    previous = regrade.load_previous(out) if args.only else None  # before any grading: something to merge into
    if previous is not None:
        chosen, numbers = regrade.labs_like(previous, course, numbers, name)
        name = chosen.name if chosen else ""
    assignment, labs = _labs(course, numbers, args.config, name)
    backend, gpu_ids = _backend(args.backend)
    work = (args.work or out / ".work").resolve()
    policy = _sandbox(args.no_sandbox, course, work)
    if previous is not None:
        regrade.check_alike(previous, labs, backend, policy.note)
    if spec is not None:
        _generate(spec, submissions, labs)
    jobs = args.jobs or pipeline.default_jobs(len(gpu_ids), pipeline.cores())

    subs, ignored = intake.discover(submissions, course, labs)
    opts = grading.Options(backend=backend, jobs=jobs, seed=args.seed, gpus=gpu_ids, work=work, quiet=args.quiet)
    if previous is not None:
        sub = regrade.find_student(subs, args.only, submissions)
        return regrade.run(course, opts, previous, sub, ignored, labs, assignment, out, not args.no_plots)
    print(
        f"grade.py: {len(subs)} submissions x {len(labs)} labs on the {backend} backend"
        + (f" (GPUs {', '.join(gpu_ids)})" if gpu_ids else " (performance not graded: no GPU)")
        + f", {jobs} worker(s); output in {out}",
        file=sys.stderr,
    )
    start = time.monotonic()
    try:
        results = grading.grade_all(subs, labs, course, opts, work) if subs else []
    except GraderError as e:
        print(f"grade.py: grading stopped: {e}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - start
    message = report.write_all(
        results,
        subs,
        labs,
        ignored,
        backend,
        out,
        plots=not args.no_plots,
        isolation=policy.note,
        visibility=dataclasses.asdict(course.visibility),
        assignment=assignment.name if assignment else "",
        due=assignment.due if assignment else "",
    )
    if message:
        print(f"grade.py: {message}", file=sys.stderr)
    graded = [r for r in results if r.verdict not in ("missing", "rejected")]
    per = f", {seconds / max(1, len({r.student for r in graded})):.1f} s per submission" if graded else ""
    print(
        f"grade.py: graded {len(subs)} submissions in {seconds:.0f} s{per}. "
        f"Wrote {out / 'class.csv'}, {out / 'summary.md'}, {out / 'class.json'}, "
        f"{out / 'results'}/<student>/results.json",
        file=sys.stderr,
    )
    if not subs:
        print("grade.py: the submissions folder holds no submission (no subfolder, .zip or .tar.gz)", file=sys.stderr)
    if wanted is None:
        return 0
    open_gaps = expected.gaps(results, wanted, backend)
    if open_gaps:
        print(f"grade.py: known gaps still open ({len(open_gaps)}):\n  " + "\n  ".join(open_gaps), file=sys.stderr)
    mismatches = expected.check(results, wanted, backend)
    if mismatches:
        print(f"grade.py: verdicts differ from {expect}:\n  " + "\n  ".join(mismatches), file=sys.stderr)
        return 1
    print(f"grade.py: every verdict matches {expect}", file=sys.stderr)
    return 0
