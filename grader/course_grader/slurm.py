"""Grading a class on a Slurm cluster: python3 grader/grade.py SUBMISSIONS --out OUT --slurm [--shards N] ...

The class is split into shards (consecutive runs of the students sorted by id). A job array runs one task per shard:
each runs the one-machine grader (cli.py, with this command's options) on a copy of its shard's submissions, on its
node's GPUs (--gres), into OUT/shards/K. A merge job that starts when the whole array has ended (afterany) writes
OUT's class.csv, results/ and summary.md from the shards' records, with report.py, as one machine would; the students
of a shard that failed are `not-graded`, with the reason. --slurm-resubmit K runs shard K again, then the merge.
The tasks are slurm_tasks.py (docs/slurm.md). All lives under OUT, which the nodes must see (a shared filesystem):

    .slurm/plan.json   the shards, the options, the jobs submitted    .slurm/seed     the tests' seed (mode 0600)
    .slurm/input/K/    shard K's submissions, copied when submitted    .slurm/logs/    the jobs' output
    shards/K/          shard K's own outputs, shard.json (its record) and status.json
"""
from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import assignments, config, intake

GRADER = Path(__file__).resolve().parents[1]
DEFAULT_SHARDS = 4
# The one-machine options a shard task is given as they were given here ({dest: option}). Every other option of
# cli.parse_args must be handled in plan() (tests_py/test_slurm.py checks that none is forgotten).
FORWARDED = {
    d: "--" + d.replace("_", "-") for d in ("labs", "assignment", "config", "jobs", "test_timeout", "no_sandbox")
}
HANDLED = {"submissions", "out", "work", "seed", "backend", "no_plots", "quiet", "expect", "only"}
OPTIONS = {"slurm", "shards", "partition", "gres", "slurm_args", "slurm_resubmit", "wait"}


class SlurmError(Exception):
    """A problem with the Slurm command line, the cluster or the run in OUT: printed, exit status 2."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("grading on a Slurm cluster (docs/slurm.md)")
    g.add_argument("--slurm", action="store_true", help="submit the grading as a Slurm job array, then a merge job")
    g.add_argument("--shards", type=int, default=0, help=f"array tasks (default {DEFAULT_SHARDS}; <= the students)")
    g.add_argument("--partition", default="", help="Slurm partition of the jobs (default: the cluster's)")
    g.add_argument("--gres", default="", help="per shard task, e.g. gpu:1 (the default with --backend gpu)")
    g.add_argument("--slurm-args", default="", help="more sbatch options for each job, e.g. '--time=1:00:00 -A c42'")
    g.add_argument("--slurm-resubmit", default="", metavar="K[,K]", help="run these shards of OUT's run again")
    g.add_argument("--wait", action="store_true", help="return when the merge job has ended (exit 1: a shard failed)")


def say(text: str) -> None:
    print(f"grade.py: {text}", file=sys.stderr)


def _again(out: Path, shards: list[str]) -> str:
    return f"python3 {GRADER / 'grade.py'} --out {out} --slurm-resubmit {','.join(shards)}"


def requested(args: argparse.Namespace) -> bool:
    return any(bool(getattr(args, name, None)) for name in OPTIONS)


def run(args: argparse.Namespace) -> int:
    """The Slurm mode of grade.py; usage and cluster problems print 'grade.py: ...' and return 2."""
    try:
        if args.slurm_resubmit:
            return resubmit(args)
        if not args.slurm:
            raise SlurmError("--shards, --partition, --gres, --slurm-args and --wait go with --slurm")
        return submit(args)
    except SlurmError as e:
        say(str(e))
        return 2


# ---- the shards ------------------------------------------------------------------------------------------------------


def entries(folder: Path) -> dict[str, list[str]]:
    """{student id: [entry names]} of a submissions folder, by intake.discover's rules (a folder or an archive per
    student; hidden entries, links and other files are not submissions)."""
    found: dict[str, list[str]] = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False) or (
            entry.is_file(follow_symlinks=False) and intake.is_archive(entry.name)
        ):
            found.setdefault(intake.student_id(entry.name), []).append(entry.name)
    return found


def split(students: list[str], shards: int) -> list[list[str]]:
    """The students sorted by id, in `shards` consecutive runs whose sizes differ by at most one (no empty one)."""
    ordered = sorted(students)
    n = max(1, min(shards, len(ordered)))
    size, extra = divmod(len(ordered), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        out.append(ordered[start:end])
        start = end
    return out


def parse_shards(text: str, count: int) -> list[int]:
    try:
        wanted = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise SlurmError(f"--slurm-resubmit {text}: expected shard numbers, e.g. 1 or 0,3") from None
    bad = [k for k in wanted if not 0 <= k < count]
    if not wanted or bad:
        raise SlurmError(f"--slurm-resubmit {text}: the run has shards 0 to {count - 1}")
    return wanted


# ---- the plan: OUT/.slurm/plan.json ----------------------------------------------------------------------------------


def slurm_dir(out: Path) -> Path:
    return out / ".slurm"


def shard_dir(out: Path, k: int) -> Path:
    return out / "shards" / str(k)


def load_plan(out: Path) -> dict:
    path = slurm_dir(out) / "plan.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SlurmError(f"no Slurm run in {out} ({path}: {getattr(e, 'strerror', None) or e})") from e


def save_plan(plan: dict) -> None:
    path = slurm_dir(Path(plan["out"])) / "plan.json"
    path.with_suffix(".tmp").write_text(json.dumps(plan, indent=1) + "\n", encoding="utf-8")
    os.replace(path.with_suffix(".tmp"), path)


def _write_secret(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _labs(course: config.Course, numbers: str, assignment: str = "") -> list[str]:
    if assignment:
        if numbers:
            raise SlurmError("--labs and --assignment do not go together: an assignment names its labs")
        if assignment not in course.assignments:
            raise SlurmError(f"--assignment {assignment}: no [assignments.{assignment}] in grader/course.toml")
        try:
            return [lab.number for lab in course.assignments[assignment].select(course.existing_labs())]
        except assignments.AssignmentError as e:
            raise SlurmError(str(e)) from e
    known = [lab.number for lab in course.existing_labs()]
    wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()} or set(known)
    unknown = wanted - set(known)
    if unknown:
        raise SlurmError(f"--labs: no lab {', '.join(sorted(unknown))} (no grader/labs/NN_name/lab.toml)")
    return [n for n in known if n in wanted]


def _backend(args: argparse.Namespace) -> tuple[str, str]:
    """(backend, gres) for every shard: decided here, so that all shards grade alike. auto means gpu with --gres."""
    gpu = args.backend == "gpu" or (args.backend == "auto" and "gpu" in args.gres)
    return ("gpu", args.gres or "gpu:1") if gpu else ("cpu", args.gres)


def _forwarded(args: argparse.Namespace) -> list[str]:
    argv: list[str] = []
    for dest, option in FORWARDED.items():
        value = getattr(args, dest, None)
        if value is True:
            argv.append(option)
        elif value not in (None, False, "", 0):
            argv += [option, str(value.resolve() if isinstance(value, Path) else value)]
    return argv


def plan(
    args: argparse.Namespace,
    submissions: Path,
    out: Path,
    found: dict[str, list[str]],
    ignored: list[str],
    labs: list[str],
) -> dict:
    backend, gres = _backend(args)
    work = (args.work or out / ".work").resolve()
    shards = split(list(found), args.shards or DEFAULT_SHARDS)
    return {
        "version": 1,
        "submissions": str(submissions),
        "out": str(out),
        "work": str(work),
        "python": sys.executable,
        "grader": str(GRADER),
        "config": str(Path(args.config).resolve()),
        "labs": labs,
        "assignment": args.assignment,
        "backend": backend,
        "plots": not args.no_plots,
        "options": ["--backend", backend, *_forwarded(args)],
        "ignored": ignored,
        "sbatch": {"partition": args.partition, "gres": gres, "extra": shlex.split(args.slurm_args)},
        "shards": [{"students": ids, "entries": [e for i in ids for e in found[i]]} for ids in shards],
        "jobs": [],
    }


def _folders(args: argparse.Namespace) -> tuple[Path, Path]:
    if args.submissions is None or not args.submissions.is_dir():
        raise SlurmError("--slurm grades a folder of submissions: give its path (the samples: generate them first)")
    if args.expect is not None:
        raise SlurmError("--expect is not checked on Slurm: check the merged class.csv, or grade on one machine")
    submissions = args.submissions.resolve()
    out = (args.out or config.REPO_ROOT / "build" / "grades").resolve()
    if out == submissions or submissions in out.parents or out in submissions.parents:
        raise SlurmError(f"the output folder {out} and the submissions folder {submissions} must not nest")
    return submissions, out


def _copy(src: Path, dest: Path) -> None:
    """One submission entry, copied as it is (links stay links: the grader's intake refuses them)."""
    if src.is_dir():
        try:
            shutil.copytree(src, dest, symlinks=True)
        except shutil.Error as e:  # special files: the copy has the rest
            say(f"{src}: not copied: {'; '.join(str(x[2]) for x in e.args[0][:3])}")
    else:
        shutil.copy2(src, dest)


# ---- submitting ------------------------------------------------------------------------------------------------------


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if not path:
        raise SlurmError(
            f"--slurm: {tool} is not on PATH: this machine is not a Slurm submit host. Run grade.py on the cluster's "
            "login node, or without --slurm to grade here (a test cluster: docs/slurm.md)"
        )
    return path


def _cluster() -> None:
    """The controller answers (sinfo), before anything is written."""
    _need("sbatch")
    try:
        c = subprocess.run([_need("sinfo"), "-h", "-o", "%P %a"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SlurmError(f"--slurm: the cluster does not answer: sinfo: {e}") from e
    if c.returncode != 0:
        why = (c.stderr.strip() or f"exit status {c.returncode}").splitlines()[-1]
        raise SlurmError(f"--slurm: the cluster does not answer (sinfo: {why}); is SLURM_CONF or slurm.conf right?")


def _idle(out: Path) -> None:
    """No earlier submission into OUT is still going on: its tasks would write where this one's do."""
    from .slurm_tasks import FINISHED, job_state  # the tasks' module imports this one

    merge = load_plan(out)["jobs"][-1]["merge"] if (slurm_dir(out) / "plan.json").is_file() else ""
    if merge and job_state(merge)[0] not in FINISHED | {""}:  # the merge job ends after every task of its array
        raise SlurmError(f"the run in {out} has not ended (merge job {merge}): wait for it, or scancel its jobs")


def _sbatch(argv: list[str]) -> str:
    """Submits; returns the job id."""
    try:
        c = subprocess.run([_need("sbatch"), "--parsable", *argv], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SlurmError(f"sbatch failed: {e}") from e
    job = c.stdout.strip().split(";")[0]
    if c.returncode != 0 or not re.fullmatch(r"\d+", job):
        why = (c.stderr.strip() or c.stdout.strip() or f"exit status {c.returncode}").splitlines()[-1]
        raise SlurmError(f"sbatch refused the job: {why} (sbatch {shlex.join(argv)})")
    return job


def _script(plan_: dict, kind: str) -> Path:
    """OUT/.slurm/<kind>.sbatch: the batch script of the shard tasks or of the merge job."""
    path = slurm_dir(Path(plan_["out"])) / f"{kind}.sbatch"
    task = ' "$SLURM_ARRAY_TASK_ID"' if kind == "shard" else ""
    path.write_text(
        "#!/bin/bash\n"
        f"# The {kind} job of a class graded on Slurm, written by grader/course_grader/slurm.py (docs/slurm.md).\n"
        f"exec {shlex.quote(plan_['python'])} -m course_grader.slurm_tasks {kind} "
        f"{shlex.quote(str(slurm_dir(Path(plan_['out'])) / 'plan.json'))}{task}\n",
        encoding="utf-8",
    )
    return path


def _submit_jobs(plan_: dict, shards: list[int]) -> tuple[str, str]:
    """sbatch the array of `shards`, then the merge job after it; recorded in the plan. (array id, merge id)"""
    out, opts = Path(plan_["out"]), plan_["sbatch"]
    logs = slurm_dir(out) / "logs"
    logs.mkdir(exist_ok=True)
    partition = ["--partition", opts["partition"]] if opts["partition"] else []
    common = ["--chdir", plan_["grader"], "--no-requeue", *partition, *opts["extra"]]
    count = len(plan_["shards"])
    tasks = ",".join(map(str, shards)) if len(shards) < count else f"0-{count - 1}"
    gres = ["--gres", opts["gres"]] if opts["gres"] else []
    shard_log, merge_log = str(logs / "shard-%a-job%A.out"), str(logs / "merge-job%j.out")
    script = str(_script(plan_, "shard"))
    array = _sbatch([*common, f"--array={tasks}", *gres, "--job-name=grade-shard", "--output", shard_log, script])
    after, script = f"--dependency=afterany:{array}", str(_script(plan_, "merge"))
    try:
        merge = _sbatch([*common, after, "--job-name=grade-merge", "--output", merge_log, script])
    except SlurmError as e:
        raise SlurmError(f"{e}; the shard array {array} was submitted: scancel {array}") from e
    plan_["jobs"].append({"array": array, "merge": merge, "shards": shards, "submitted": time.time()})
    save_plan(plan_)
    return array, merge


def _announce(plan_: dict, array: str, merge: str, shards: list[int]) -> None:
    out = Path(plan_["out"])
    print(
        f"grade.py: submitted shard array {array} ({len(shards)} task(s): shard {', '.join(map(str, shards))}) and "
        f"merge job {merge}, which writes {out / 'class.csv'} when the array has ended.\n"
        f"  watch:     squeue -j {array},{merge}     (ended: sacct -j {array},{merge}, where accounting is on)\n"
        f"  logs:      {slurm_dir(out) / 'logs'}\n"
        f"  a failed shard K: {_again(out, ['K'])}",
        file=sys.stderr,
    )


def submit(args: argparse.Namespace) -> int:
    if args.only:
        raise SlurmError("--only re-grades one student on this machine: run it without --slurm (into the same --out)")
    _cluster()
    if args.shards < 0:
        raise SlurmError("--shards must be positive")
    course = config.load(args.config)
    submissions, out = _folders(args)
    labs = _labs(course, args.labs, args.assignment)
    _idle(out)
    found = entries(submissions)
    subs, ignored = intake.discover(submissions, course, tuple(course.lab(n) for n in labs))
    if sorted(found) != [s.student for s in subs]:  # the shards must hold exactly the students one machine grades
        raise SlurmError(f"the students found in {submissions} differ from the grader's intake; grade on one machine")
    if not found:
        raise SlurmError(f"{submissions} holds no submission (no subfolder, .zip or .tar.gz)")
    p = plan(args, submissions, out, found, ignored, labs)
    folder = slurm_dir(out)
    for stale in (folder / "input", out / "shards", folder / "merge.json"):
        shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)  # the seed and the submissions' copies: the user's only
    _write_secret(folder / "seed", args.seed or secrets.token_hex(16))
    for k, shard in enumerate(p["shards"]):
        (folder / "input" / str(k)).mkdir(parents=True)
        for name in shard["entries"]:
            _copy(submissions / name, folder / "input" / str(k) / name)
    gres = f" ({p['sbatch']['gres']} per shard)" if p["sbatch"]["gres"] else ""
    say(f"{len(found)} submissions x {len(labs)} labs, {len(p['shards'])} shard(s), {p['backend']} backend{gres}")
    shards = list(range(len(p["shards"])))
    array, merge = _submit_jobs(p, shards)
    _announce(p, array, merge, shards)
    return wait(p, merge) if args.wait else 0


def resubmit(args: argparse.Namespace) -> int:
    out = (args.out or config.REPO_ROOT / "build" / "grades").resolve()
    p = load_plan(out)
    shards = parse_shards(args.slurm_resubmit, len(p["shards"]))
    _cluster()
    _idle(out)
    for k in shards:
        shutil.rmtree(shard_dir(out, k), ignore_errors=True)  # no result of the failed attempt may be merged
    (slurm_dir(out) / "merge.json").unlink(missing_ok=True)
    say(f"re-submitting shard(s) {', '.join(map(str, shards))} of {out}")
    array, merge = _submit_jobs(p, shards)
    _announce(p, array, merge, shards)
    return wait(p, merge) if args.wait else 0


def wait(plan_: dict, merge: str) -> int:
    """Until the merge job has ended; then what it wrote says how the run went: 0 every shard graded, 1 not."""
    from .slurm_tasks import FINISHED, job_state  # the tasks' module imports this one

    say(f"waiting for merge job {merge}")
    unknown = 0
    while True:
        state, _ = job_state(merge)
        unknown = 0 if state else unknown + 1
        if state in FINISHED or unknown >= 3:  # finished, or forgotten by the controller (3 times: no hiccup)
            break
        time.sleep(3)
    out = Path(plan_["out"])
    try:
        merged = json.loads((slurm_dir(out) / "merge.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        say(f"merge job {merge} ended ({state or 'state unknown'}) without merging: its log is in {out}/.slurm/logs")
        return 1
    failed = merged.get("failed", {})
    if failed:
        say(f"shard(s) {', '.join(failed)} failed: their students are not-graded. Re-submit: {_again(out, failed)}")
        return 1
    say(f"every shard graded; merged into {out}")
    return 0
