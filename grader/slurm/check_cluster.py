#!/usr/bin/env python3
"""ctest course.grader.slurm: grades a small class through a one-node Slurm cluster started on this machine, and
checks that the merged outputs are what one machine writes (docs/slurm.md). As root:

    python3 grader/slurm/check_cluster.py --work BUILD/slurm-test [--install] [--keep]

1. starts the cluster with start_cluster.sh, with a run folder and ports of its own for this work folder (--install:
   apt-get install slurm-wlm munge where they are missing);
2. writes a class: four samples of grader/samples/samples.toml for lab 01, a corrupt archive and a stray file;
3. grades it through Slurm in 2 shards with --wait (CPU backend, lab 01), then on one machine with the same seed,
   reusing shard 0's build tree (WORK/trees/shard-0);
4. compares class.csv, summary.md and every results.json (timings aside);
5. makes shard 1 fail (its work folder replaced by a file), re-submits it and checks that its students are
   `not-graded` with the reason; then re-submits it as it was and compares again;
6. stops the cluster (and removes its run folder when everything passed; --keep leaves it running).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRADER = HERE.parent
sys.path.insert(0, str(GRADER))

from course_grader import config, samples  # noqa: E402

# Not "not_compiling": its message lists the compiler's errors in the order in which the lab's two programs (built from
# the same file in parallel) fail, which differs from run to run on one machine as well.
SAMPLES = ("correct", "wrong", "forbidden", "misnamed")
SEED = "check-cluster-seed"
TIMING = {"execution_time", "seconds", "elapsed", "duration"}


def say(text: str) -> None:
    print(f"check_cluster: {text}", flush=True)


def make_class(folder: Path) -> list[str]:
    """The class: some samples of lab 01, a corrupt archive (a student all the same) and a file that is no
    submission. Returns the students."""
    shutil.rmtree(folder, ignore_errors=True)
    course = config.load()
    chosen = tuple(s for s in samples.load() if s.name in SAMPLES)
    samples.generate(chosen, folder, (course.lab("01"),))
    (folder / "zoe.zip").write_bytes(b"PK\x03\x04 this archive was cut short")
    (folder / "notes.txt").write_text("the instructor's notes: not a submission\n")
    return sorted([*SAMPLES, "zoe"])


def grade(argv: list[str], env: dict[str, str], status: int = 0) -> float:
    start = time.monotonic()
    c = subprocess.run([sys.executable, str(GRADER / "grade.py"), *argv], env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if c.returncode != status:
        sys.stderr.write(c.stdout + c.stderr)
        raise AssertionError(f"grade.py {' '.join(argv)} exited with {c.returncode}, not {status}")
    return seconds


def failed_shard(out: Path, trees: Path, env: dict[str, str]) -> float:
    """Shard 1 re-submitted with its work folder made unusable: its students are not-graded, with the reason."""
    tree = trees / "shard-1"
    tree.rename(tree.with_name("shard-1.aside"))
    try:
        tree.write_text("not a folder: shard 1's grader cannot start\n")
        seconds = grade(["--out", str(out), "--slurm-resubmit", "1", "--wait"], env, status=1)
    finally:
        tree.unlink(missing_ok=True)
        tree.with_name("shard-1.aside").rename(tree)
    plan = json.loads((out / ".slurm" / "plan.json").read_text())
    rows = [r.split(",", 7) for r in (out / "class.csv").read_text().splitlines()[1:]]
    lost = [r for r in rows if r[6] == "not-graded"]
    if sorted(r[0] for r in lost) != plan["shards"][1]["students"] or len(lost) == len(rows):
        raise AssertionError(f"after shard 1 failed, the not-graded rows are {lost}")
    if not all("shard 1 of the Slurm run failed" in r[7] and "FAILED" in r[7] for r in lost):
        raise AssertionError(f"the reason of a failed shard is missing: {lost[0][7]}")
    return seconds


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"\b\d+(\.\d+)? s\b", "<t> s", value)
    return value


def compare(merged: Path, one: Path, students: list[str]) -> None:
    """The merged outputs equal the one-machine outputs; every student is there."""
    problems = []
    for name in ("class.csv", "summary.md"):
        if _untimed((merged / name).read_text()) != _untimed((one / name).read_text()):
            problems.append(f"{name} differs: diff {merged / name} {one / name}")
    found = sorted(p.name for p in (merged / "results").iterdir())
    if found != sorted(p.name for p in (one / "results").iterdir()) or found != students:
        problems.append(f"students differ: merged {found}, one machine {sorted(os.listdir(one / 'results'))}")
    for student in found:
        a, b = (json.loads((d / "results" / student / "results.json").read_text()) for d in (merged, one))
        if _untimed(a) != _untimed(b):
            problems.append(f"results.json of {student} differs: {merged / 'results' / student}")
    rows = (merged / "class.csv").read_text().splitlines()[1:]
    if sorted(r.split(",")[0] for r in rows) != students:  # one row each (one lab): nobody dropped
        problems.append(f"class.csv rows: {rows}")
    if problems:
        raise AssertionError("\n  ".join(["the merged outputs are not the one-machine outputs:", *problems]))


def cluster_of(work: Path) -> tuple[str, str]:
    """(run folder, controller port) of this work folder's cluster: test runs from two build trees at once (or a
    cluster already on this machine, on Slurm's usual port 6817) never share one. The folder is short: the MUNGE
    socket's path must fit a socket address."""
    tag = hashlib.sha256(str(work).encode()).hexdigest()[:8]
    return f"/tmp/course-slurm-ctest-{tag}", str(7000 + 2 * (int(tag, 16) % 1000))


def cluster(script: str, *args: str, env: dict[str, str]) -> None:
    c = subprocess.run([str(HERE / script), *args], env=env, capture_output=True, text=True)
    sys.stderr.write(c.stderr)
    if c.returncode != 0:
        raise AssertionError(f"{script} {' '.join(args)} exited with {c.returncode}")


def main() -> int:
    p = argparse.ArgumentParser(prog="check_cluster.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, required=True, help="the class, the outputs and the build trees")
    p.add_argument("--install", action="store_true", help="install slurm-wlm and munge where they are missing")
    p.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = p.parse_args()
    if os.geteuid() != 0:
        say("needs root: slurmd starts jobs as their users (run ctest as root, or sudo)")
        return 1
    work = args.work.resolve()
    run_dir, port = cluster_of(work)
    env = dict(os.environ, COURSE_SLURM_DIR=run_dir, COURSE_SLURM_PORT=port, SLURM_CONF=f"{run_dir}/slurm.conf")
    passed = False
    started = time.monotonic()
    try:
        cluster("start_cluster.sh", *(["--install"] if args.install else []), env=env)
        say(f"cluster up: {time.monotonic() - started:.0f} s")
        students = make_class(work / "class")
        for folder in ("slurm", "one"):
            shutil.rmtree(work / folder, ignore_errors=True)
        common = [str(work / "class"), "--labs", "01", "--backend", "cpu", "--no-plots", "--seed", SEED]
        common += ["--test-timeout", "45"]
        # Through Slurm first: the two shards build their trees at once (minutes, the first time); then one machine
        # reuses shard 0's tree.
        on_slurm = ["--out", str(work / "slurm"), "--slurm", "--shards", "2", "--wait", "--work", str(work / "trees")]
        say(f"graded {len(students)} submissions through Slurm in 2 shards: {grade([*common, *on_slurm], env):.0f} s")
        one = ["--out", str(work / "one"), "--work", str(work / "trees" / "shard-0"), "--quiet"]
        say(f"graded them on one machine: {grade([*common, *one], env):.0f} s")
        compare(work / "slurm", work / "one", students)
        say("the merged class.csv, summary.md and results.json are the one-machine ones")
        seconds = failed_shard(work / "slurm", work / "trees", env)
        say(f"shard 1 failed on purpose ({seconds:.0f} s): its students are not-graded with the reason, no one else")
        seconds = grade(["--out", str(work / "slurm"), "--slurm-resubmit", "1", "--wait"], env)
        compare(work / "slurm", work / "one", students)
        say(f"shard 1 re-submitted alone and merged again ({seconds:.0f} s): the outputs are unchanged")
        passed = True
    except AssertionError as e:
        say(f"FAILED: {e}")
        say(f"the jobs' logs: {work / 'slurm' / '.slurm' / 'logs'}; the cluster's: {run_dir}/log")
    finally:
        try:
            if not args.keep:
                cluster("stop_cluster.sh", *(["--purge"] if passed else []), env=env)
        except AssertionError as e:
            say(f"FAILED: {e}")
            passed = False
    say(f"{'passed' if passed else 'failed'} in {time.monotonic() - started:.0f} s")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
