#!/usr/bin/env python3
"""The adversarial suite: grade it with grade.py on one backend, then check the verdicts and what the attacks tried
to change.

    python3 grader/adversarial/run.py [--backend cpu|gpu] [--out DIR] [--work DIR] [--jobs N]

Two specs, each generated into OUT/<spec>.submissions and graded by one grade.py run into OUT/<spec>, both with one
build work folder (OUT/.work unless --work) and one seed chosen here: suite.toml (and the files it includes) with the
course's time limit per test program, hangs.toml with HANG_SECONDS. Then (course_grader/expected.py) every verdict
must be as the spec says for the backend, and the known gaps are listed, each an error once it has closed; a
CPU-backend gap also counts on a GPU whose grading tree builds check mode. And (checks.py): no canary file of an escape
outside the sandbox, no connection to the listeners opened for the run, the seed in no output or kept log, the outputs
whole and from this run with every student graded, no test log past the file-size limit and nothing else left in the
run folders.

Exit status: 0 everything as expected; 1 a verdict or a check failed; 2 the suite could not run; 77 no working sandbox
here (CTest's SKIP_RETURN_CODE): without bubblewrap the attacks would run with this user's privileges, so none runs.
"""
from __future__ import annotations

import argparse
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRADER = HERE.parent
sys.path.insert(0, str(GRADER))
sys.path.insert(0, str(HERE))

import checks  # noqa: E402

from course_grader import build_tree, config, expected, record, samples, sandbox  # noqa: E402

SPECS = {"suite": HERE / "suite.toml", "hangs": HERE / "hangs.toml"}  # output folder -> spec
HANG_SECONDS = 10  # per test program for hangs.toml: each hangs within seconds in the first program that runs it
SKIP = 77


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--out", type=Path, default=GRADER.parent / "build" / "adversarial", help="output folder")
    p.add_argument("--work", type=Path, default=None, help="build trees and scratch (default OUT/.work)")
    p.add_argument("--jobs", type=int, default=0, help="grade.py --jobs (default: its own, 2 on two cores or more)")
    return p.parse_args(argv)


def _sandbox_missing(paths: tuple[Path, ...]) -> str:
    try:
        sandbox.setup(False, paths)
    except sandbox.SandboxError as e:
        return str(e)
    return ""


def _grade(folder: Path, out: Path, work: Path, args: argparse.Namespace, labs: list[str], seed: str, hang: bool):
    """grade.py on one folder of submissions; False when it could not grade (exit status 2, or a crash)."""
    cmd = [sys.executable, str(GRADER / "grade.py"), str(folder), "--out", str(out), "--work", str(work)]
    cmd += ["--backend", args.backend, "--labs", ",".join(labs), "--jobs", str(args.jobs), "--seed", seed]
    cmd += ["--no-plots", "--quiet"] + (["--test-timeout", str(HANG_SECONDS)] if hang else [])
    print(f"run.py: grade.py {folder.name} into {out}", flush=True)
    return subprocess.run(cmd, cwd=GRADER.parent).returncode == 0


def _check_mode(work: Path, backend: str, course: config.Course) -> bool:
    """Whether the grading tree builds check mode (the CPU backend) besides `backend`'s programs."""
    try:
        return "check" in build_tree.read_targets(work / f"build-{backend}-0", course.lab("01"))
    except (build_tree.GraderError, KeyError):
        return False


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = args.out.resolve()
    work = (args.work or out / ".work").resolve()
    course = config.load()
    try:
        loaded = {name: samples.load(path) for name, path in SPECS.items()}
    except samples.SampleError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    work.mkdir(parents=True, exist_ok=True)
    why = _sandbox_missing((course.repo_root, work))
    if why:
        print(f"run.py: SKIPPED: the adversarial suite runs only in the sandbox: {why}")
        return SKIP
    top, deep = checks.canary_places(out, work, out)
    checks.remove_canaries(top, deep)
    listeners = checks.Listeners()
    seed = secrets.token_hex(16)
    start = time.time()
    problems = []
    for name, group in loaded.items():
        folder = out / f"{name}.submissions"
        shutil.rmtree(folder, ignore_errors=True)
        samples.generate(group, folder, course.existing_labs())
        labs = sorted({s.lab for s in group})
        if not _grade(folder, out / name, work, args, labs, seed, hang=name == "hangs"):
            problems.append(f"grade.py did not complete grading {folder}")
    seconds = time.time() - start
    time.sleep(3)  # a daemon that escaped would write its canary 2 s after its run

    problems += listeners.close()
    check_mode = _check_mode(work, args.backend, course)
    mismatches, gaps = [], []
    for name, group in loaded.items():
        spec = samples.expectations(group)
        problems += checks.outputs_problems(out / name, spec, start)
        try:
            results = record.load(out / name).results
        except record.RecordError as e:
            problems.append(str(e))
            continue
        mismatches += expected.check(results, spec, args.backend, check_mode)
        gaps += expected.gaps(results, spec, args.backend, check_mode)
    students = [s.name for group in loaded.values() for s in group]
    runs = [work / "runs" / s for s in students if (work / "runs" / s).is_dir()]
    problems += checks.canaries(top, deep)
    problems += checks.seed_leaks(seed, out, runs)
    problems += checks.run_folder_problems(runs, course.limits.max_output_bytes)

    tree = "with check mode" if check_mode else "without check mode"
    print(f"\nrun.py: {len(students)} submissions graded in {seconds:.0f} s on the {args.backend} backend ({tree})")
    print(f"run.py: known gaps still open ({len(gaps)}):" + "".join(f"\n  {g}" for g in gaps))
    problems = mismatches + problems
    if problems:
        print(f"run.py: FAILED ({len(problems)}):" + "".join(f"\n  {p}" for p in problems))
        return 1
    print(
        "run.py: every verdict as expected; no trace of an escape, no connection, no seed in the outputs, "
        "every output whole"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
