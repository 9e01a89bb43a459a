"""The jobs of a class graded on Slurm (slurm.py submits them with OUT/.slurm/*.sbatch; docs/slurm.md):

    python3 -m course_grader.slurm_tasks shard OUT/.slurm/plan.json K     one task of the array (run in grader/)
    python3 -m course_grader.slurm_tasks merge OUT/.slurm/plan.json       the merge job

A shard runs the one-machine grader (cli.main, with the run's options) on its copy of the shard's submissions into
OUT/shards/K, and records what the grader handed report.write_all (the results and the submissions) in
OUT/shards/K/shard.json; OUT/shards/K/status.json says how far it got. The merge writes OUT's outputs with
report.write_all from every shard's record, which makes them what one machine writes. The students of a shard with no
usable record are `not-graded`, with the reason: the shard's own error, else the task's state as Slurm knows it, else
'shard K produced no results'. It ends with OUT/.slurm/merge.json ({"failed": {K: reason}}), read by grade.py --wait.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import cli, config, report, slurm
from .diagnostics import shorten
from .intake import Submission
from .verdicts import LabResult

RECORD = "shard.json"
_WRITE_ALL = {"results", "subs", "labs", "ignored", "backend", "out", "plots"}  # report.write_all's own arguments
STATUS = "status.json"
FINISHED = set("COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY BOOT_FAIL DEADLINE PREEMPTED".split())


def _plain(value: object) -> bool:
    """A value that JSON keeps as it is."""
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)  # a reader sees the old file or the new one, never half of one


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# ---- a shard ---------------------------------------------------------------------------------------------------------


class _Tail(io.TextIOBase):
    """stderr, also remembered: the grader's last 'grade.py: ...' line says why a shard stopped."""

    def __init__(self, stream):
        self.stream, self.lines = stream, []

    def write(self, text: str) -> int:
        self.stream.write(text)
        self.lines = (self.lines + text.splitlines())[-50:]
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def reason(self) -> str:
        return next((line[10:] for line in reversed(self.lines) if line.startswith("grade.py: ")), "")


@contextlib.contextmanager
def _recording():
    """The arguments that the grader hands report.write_all while it writes its outputs, kept in a dict."""
    original = report.write_all
    signature = inspect.signature(original)
    seen: dict = {}

    def write_all(*args, **kwargs):
        seen.update(signature.bind(*args, **kwargs).arguments)
        return original(*args, **kwargs)

    report.write_all = write_all
    try:
        yield seen
    finally:
        report.write_all = original


def run_shard(plan: dict, k: int) -> int:
    out = Path(plan["out"])
    folder = slurm.shard_dir(out, k)
    shutil.rmtree(folder, ignore_errors=True)  # nothing of an earlier attempt survives
    folder.mkdir(parents=True)
    job = f"{os.environ.get('SLURM_ARRAY_JOB_ID', '?')}_{os.environ.get('SLURM_ARRAY_TASK_ID', k)}"
    status = {"state": "running", "host": socket.gethostname(), "job": job, "started": time.time()}
    _write_json(folder / STATUS, status)
    tail = _Tail(sys.stderr)
    try:
        seed = (slurm.slurm_dir(out) / "seed").read_text(encoding="utf-8").strip()  # never on a command line
        argv = [str(slurm.slurm_dir(out) / "input" / str(k)), "--out", str(folder), "--no-plots", "--seed", seed]
        argv += ["--work", str(Path(plan["work"]) / f"shard-{k}"), *plan["options"]]
        with _recording() as seen, contextlib.redirect_stderr(tail):
            rc = cli.main(argv)
        if "results" in seen:  # the grader wrote its outputs: what it wrote them from is the shard's record
            _write_json(folder / RECORD, _record(seen))
    except BaseException as e:  # recorded as the shard's failure, then raised on
        status.update(state="failed", message=f"the grader stopped: {type(e).__name__}: {e}")
        _write_json(folder / STATUS, status)
        raise
    if "results" not in seen:  # the grader stopped before writing its outputs
        status.update(state="failed", message=tail.reason() or f"the grader stopped (exit status {rc})")
        _write_json(folder / STATUS, status)
        print(f"shard {k}: {status['message']}", file=sys.stderr)
        return 1
    status.update(state="done", exit=rc, ended=time.time())
    _write_json(folder / STATUS, status)
    return 0


def _record(seen: dict) -> dict:
    """shard.json: report.write_all's arguments, as JSON (every result field, unrounded)."""
    subs = [{"student": s.student, "source": s.source, "notes": s.notes, "problem": s.problem} for s in seen["subs"]]
    results = [dataclasses.asdict(r) for r in seen["results"]]
    extra = {n: v for n, v in seen.items() if n not in _WRITE_ALL and _plain(v)}  # e.g. the sandbox's note
    return {"backend": seen["backend"], "results": results, "submissions": subs, "extra": extra}


# ---- the jobs' states, the merge ------------------------------------------------------------------------------------


def _query(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    try:
        c = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return c.stdout if c.returncode == 0 else None


def job_state(job: str) -> tuple[str, str]:
    """(state, exit code 'status:signal') of a job or array task ('123_4'): from sacct where accounting is on, else
    from the controller (which forgets a finished job after MinJobAge); ('', '') when neither knows it."""
    text = _query(["sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode"]) or ""
    for line in text.splitlines():
        parts = line.split("|")
        if len(parts) >= 3 and parts[0] == job and parts[1]:
            return parts[1].split()[0], parts[2]
    fields = dict(re.findall(r"(\w+)=(\S*)", _query(["scontrol", "-o", "show", "job", job]) or ""))
    return fields.get("JobState", ""), fields.get("ExitCode", "")


def why_failed(plan: dict, k: int) -> str:
    """Why shard k has no usable record, in one line."""
    status = _read_json(slurm.shard_dir(Path(plan["out"]), k) / STATUS) or {}
    jobs = [j for j in plan.get("jobs", []) if k in j.get("shards", [])]
    job = f"{jobs[-1]['array']}_{k}" if jobs else ""
    state, code = job_state(job) if job else ("", "")
    if status.get("state") == "failed":
        why = str(status.get("message") or "the grader failed")
    elif status.get("state") == "running":
        why = f"the task stopped while grading on {status.get('host', '?')}"
    elif status.get("state") == "done":
        why = f"shard {k}'s record ({RECORD}) is missing or does not hold its students"
    else:
        why = f"shard {k} produced no results"
    if state:
        why += f" (Slurm job {job}: {state}" + (f", exit code {code})" if code else ")")
    why = " | ".join(line.strip() for line in why.splitlines() if line.strip())
    return shorten(why, 400)


Shard = tuple[list[LabResult], list[Submission], dict]  # results, submissions, report.write_all's other arguments


def read_record(plan: dict, k: int, labs: tuple[str, ...]) -> Shard | None:
    """Shard k's record, or None when it is missing or does not hold exactly the shard's students x labs."""
    record = _read_json(slurm.shard_dir(Path(plan["out"]), k) / RECORD)
    if record is None or record.get("backend") != plan["backend"]:
        return None
    names = {f.name for f in dataclasses.fields(LabResult)}
    sub_names = {f.name for f in dataclasses.fields(Submission)} - {"labs"}
    try:
        results = [LabResult(**{n: v for n, v in r.items() if n in names}) for r in record["results"]]
        subs = [Submission(**{n: v for n, v in s.items() if n in sub_names}) for s in record["submissions"]]
    except (KeyError, TypeError, AttributeError):
        return None
    students = plan["shards"][k]["students"]
    if sorted((r.student, r.lab) for r in results) != sorted((s, lab) for s in students for lab in labs):
        return None
    if sorted(s.student for s in subs) != sorted(students):
        return None
    return results, subs, record.get("extra") or {}


def graded_labs(plan: dict, course: config.Course) -> tuple:
    """The run's labs, with the points of its assignment (grade.py --assignment) where it has one."""
    if plan.get("assignment"):
        return course.assignments[plan["assignment"]].select(course.existing_labs())
    return tuple(course.lab(n) for n in plan["labs"])


def not_graded(plan: dict, k: int, course: config.Course, why: str) -> Shard:
    message = f"shard {k} of the Slurm run failed: {why}; graded again when the shard is re-submitted"
    results = [
        LabResult(
            student,
            lab.number,
            "not-graded",
            message,
            correctness_max=lab.correctness_points,
            perf_max=lab.performance_points,
        )
        for student in plan["shards"][k]["students"]
        for lab in graded_labs(plan, course)
    ]
    return results, [Submission(student=s, source=s) for s in plan["shards"][k]["students"]], {}


def merge(plan: dict) -> int:
    out = Path(plan["out"])
    course = config.load(Path(plan["config"]))
    labs = graded_labs(plan, course)
    results: list[LabResult] = []
    subs: list[Submission] = []
    failed: dict[str, str] = {}
    extras: list[dict] = []
    for k in range(len(plan["shards"])):
        got = read_record(plan, k, tuple(plan["labs"]))
        if got is None:
            failed[str(k)] = why_failed(plan, k)
            got = not_graded(plan, k, course, failed[str(k)])
            print(f"merge: shard {k}: {failed[str(k)]}", file=sys.stderr)
        elif got[2] not in extras:
            extras.append(got[2])
        results += got[0]
        subs += got[1]
    results.sort(key=lambda r: (r.student, r.lab))  # the order one machine writes (grading.grade_all, intake)
    subs.sort(key=lambda s: s.student)
    if len(extras) > 1:  # e.g. shards graded with and without the sandbox: the first one's is written
        print(f"merge: the shards' outputs differ in {sorted(set().union(*extras))}: {extras}", file=sys.stderr)
    extra = extras[0] if extras else {}
    message = report.write_all(results, subs, labs, plan["ignored"], plan["backend"], out, plots=plan["plots"], **extra)
    if message:
        print(f"merge: {message}", file=sys.stderr)
    summary = {"job": os.environ.get("SLURM_JOB_ID", ""), "ended": time.time(), "failed": failed, "students": len(subs)}
    _write_json(slurm.slurm_dir(out) / "merge.json", summary)
    print(
        f"merge: {len(subs)} students from {len(plan['shards'])} shard(s) into {out}"
        + (f"; failed shard(s): {', '.join(failed)}" if failed else ""),
        file=sys.stderr,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="course_grader.slurm_tasks")
    p.add_argument("kind", choices=["shard", "merge"])
    p.add_argument("plan", type=Path)
    p.add_argument("shard", type=int, nargs="?", default=-1)
    a = p.parse_args(argv)
    try:
        plan = json.loads(a.plan.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(
            f"{a.kind}: cannot read the run's plan {a.plan} on {socket.gethostname()}: {e} (the nodes must see "
            "the output folder: a shared filesystem)",
            file=sys.stderr,
        )
        return 1
    if a.kind == "merge":
        return merge(plan)
    if not 0 <= a.shard < len(plan["shards"]):
        print(f"shard: no shard {a.shard} in {a.plan}", file=sys.stderr)
        return 2
    return run_shard(plan, a.shard)


if __name__ == "__main__":
    sys.exit(main())
