"""Running programs: a new session per process, a wall-clock limit that kills the whole process group, an
output-size limit; untrusted ones inside the sandbox (sandbox.py: bubblewrap), with their GoogleTest report read
from a pipe (run_gtest; the report's format is read by gtest.py).

Why a pipe for the report: a static destructor, an exit handler or a left-over thread of the student's code runs in
the test process after GoogleTest has written its report, and can rewrite any file that process can write. So
GoogleTest writes the report to /dev/fd/N, the write end of a pipe the grader reads: what was written cannot be taken
back, and the grader accepts exactly one JSON document and nothing after it. Bytes written later (by a destructor)
or earlier (by a static initializer) make the run `tampered`.

The judge/worker split (common/include/course/remote.h) puts the student's code in another process altogether: the
judge (the lab's tests, the harness, the seed, the report; no student code) runs outside the sandbox as the sandbox's
user, and starts the worker (the student's file and a loop that runs the judge's calls) inside it, through the bwrap
command line it is given (--course-worker-wrap=WORD ...). The worker gets neither the seed nor the report pipe (the
judge closes every other descriptor before starting it).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from . import sandbox

REPORT = "@report@"  # in a command line: replaced by the path of the report pipe (/dev/fd/N)
REPORT_MAX_BYTES = 64 << 20  # a larger report is not read (and the run has no report)
SEED_VARIABLE = "COURSE_SEED"  # the judge's only: never in a worker's environment
JUDGE_ONLY = (SEED_VARIABLE, "CUDA_CACHE_PATH")  # the seed; a grader path (a worker could tell the grader by it)


@dataclasses.dataclass
class Completed:
    returncode: int | None  # None: killed by the timeout; negative: killed by that signal
    timed_out: bool
    seconds: float
    output_tail: str  # last lines of stdout+stderr (untrusted: for messages only, never for verdicts)
    report: bytes | None = None  # what arrived on the report pipe (run_sandboxed with report=True)
    tampered: bool = False  # something besides GoogleTest wrote to the report pipe (run_gtest)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Stopped(Exception):
    """Grading is stopping (ctrl-C): no program is started any more (kill_running)."""


_running: set[int] = set()  # the process groups of the programs run() is waiting for
_running_lock = threading.Lock()
_stopping = False


def kill_running(stop: bool = True) -> None:
    """Kills every program run() is waiting for (its whole process group); with `stop`, run() starts none until
    kill_running(False). Used when grading is interrupted (pipeline.py)."""
    global _stopping
    with _running_lock:
        _stopping = stop
        groups = list(_running) if stop else []
    for pgid in groups:
        _kill_group(pgid)


def _tail(log: Path, tail_bytes: int) -> str:
    with open(log, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - tail_bytes))
        return f.read().decode("utf-8", "replace")


def run(
    cmd: list[str],
    *,
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    max_output_bytes: int | None = None,
    tail_bytes: int = 4000,
    pass_fds: tuple[int, ...] = (),
    user: int | None = None,
) -> Completed:
    """Runs `cmd` in its own session; on timeout kills the whole process group. stdout+stderr go to `log`.
    `pass_fds` stay open in the program; `user` (the grader being root): the program runs as that user and group."""
    cwd.mkdir(parents=True, exist_ok=True)
    log = log or cwd / "output.log"
    if max_output_bytes and shutil.which("prlimit"):
        cmd = ["prlimit", f"--fsize={max_output_bytes}", "--core=0", "--"] + cmd
    as_user = {} if user is None or os.geteuid() != 0 else {"user": user, "group": user, "extra_groups": []}
    if _stopping:
        raise Stopped(f"grading is stopping: {Path(cmd[0]).name} not started")
    start = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=pass_fds,
            **as_user,
        )
        with _running_lock:
            _running.add(proc.pid)
            if _stopping:  # kill_running() came between the check above and this program's start
                _kill_group(proc.pid)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
        finally:
            _kill_group(proc.pid)  # children that outlived their parent
            with _running_lock:
                _running.discard(proc.pid)
    seconds = time.monotonic() - start
    return Completed(None if timed_out else proc.returncode, timed_out, seconds, _tail(log, tail_bytes))


class _Reader(threading.Thread):
    """Reads a pipe to its end while the program runs (a report larger than the pipe's buffer must not block it)."""

    def __init__(self, fd: int):
        super().__init__(daemon=True)
        self.fd, self.chunks, self.size = fd, [], 0

    def run(self) -> None:
        with os.fdopen(self.fd, "rb", buffering=0) as f:
            while chunk := f.read(1 << 16):
                self.size += len(chunk)
                if self.size <= REPORT_MAX_BYTES:
                    self.chunks.append(chunk)

    def data(self) -> bytes | None:
        self.join(timeout=5)  # in a sandbox every writer is dead by now; without one, a daemon may hold the pipe
        if self.is_alive() or self.size > REPORT_MAX_BYTES:
            return None
        return b"".join(self.chunks)


def _exit_code(status: bytes) -> int | None:
    """The sandboxed command's exit status from bwrap's --json-status-fd lines; None: it never ran (no sandbox)."""
    for line in status.decode("utf-8", "replace").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("exit-code"), int):
            code = data["exit-code"]
            return -(code - 128) if 128 < code < 128 + 65 else code  # bwrap reports a signal N as 128 + N
    return None


def run_sandboxed(
    cmd: list[str],
    box: sandbox.Box | None,
    *,
    cwd: Path,
    timeout: float,
    log: Path,
    report: bool = False,
    max_output_bytes: int | None = None,
    tail_bytes: int = 4000,
    policy: sandbox.Policy | None = None,
) -> Completed:
    """Runs untrusted `cmd` in `box` (without a sandbox, under --no-sandbox: in `cwd` with `box.env`). With `report`,
    every REPORT in `cmd` names the write end of a pipe whose content comes back in Completed.report. Raises
    sandbox.SandboxError when bwrap could not start the program (not the student's fault)."""
    policy = policy or sandbox.current()
    fds: list[int] = []
    reader = None
    if report:
        r, w = os.pipe()
        fds.append(w)
        if policy.enabled and policy.uid is not None and os.geteuid() == 0:
            os.fchown(w, policy.uid, policy.uid)  # the sandbox's user opens /dev/fd/N again, as GoogleTest does
        cmd = [a.replace(REPORT, f"/dev/fd/{w}") for a in cmd]
        reader = _Reader(r)
        reader.start()
    status_r, program = None, Path(cmd[0]).name if cmd else "?"
    try:
        if policy.enabled and box is not None:
            status_r, status_w = os.pipe()
            fds.append(status_w)
            cmd = sandbox.command(box, cmd, policy, status_w)
            c = run(
                cmd,
                cwd=cwd,
                timeout=timeout,
                env={"PATH": "/usr/bin:/bin"},
                log=log,
                tail_bytes=tail_bytes,
                pass_fds=tuple(fds),
                user=policy.uid,
            )
        else:
            # no sandbox: the run folder is `cwd` itself (box.env names the sandbox's RUN_FOLDER)
            env = {k: str(cwd) if v == str(sandbox.RUN_FOLDER) else v for k, v in box.env.items()} if box else None
            c = run(
                cmd,
                cwd=cwd,
                timeout=timeout,
                env=env,
                log=log,
                max_output_bytes=max_output_bytes,
                tail_bytes=tail_bytes,
                pass_fds=tuple(fds),
            )
    finally:
        for fd in fds:
            os.close(fd)
    if status_r is not None:
        with os.fdopen(status_r, "rb") as f:
            code = _exit_code(f.read())
        if code is None and not c.timed_out:
            raise sandbox.SandboxError(f"the sandbox could not start {program}: {c.output_tail.strip()[-500:]}")
        c.returncode = None if c.timed_out else code
    if reader is not None:
        c.report = reader.data()
    return c


def run_judge(
    cmd: list[str],
    env: dict[str, str],
    *,
    cwd: Path,
    timeout: float,
    log: Path,
    policy: sandbox.Policy,
) -> Completed:
    """Runs a judge program (trusted: the course's tests, no student code) outside the sandbox, as the sandbox's user
    when the grader is root, with REPORT in `cmd` naming the write end of the report pipe. No file-size limit: on the
    CPU backend the judge's device buffers are memfds, which RLIMIT_FSIZE counts (the worker, which writes the
    student's output to the shared log, has the limit in its sandbox)."""
    r, w = os.pipe()
    if policy.enabled and policy.uid is not None and os.geteuid() == 0:
        os.fchown(w, policy.uid, policy.uid)
    cmd = [a.replace(REPORT, f"/dev/fd/{w}") for a in cmd]
    reader = _Reader(r)
    reader.start()
    try:
        c = run(
            cmd,
            cwd=cwd,
            timeout=timeout,
            env=env,
            log=log,
            pass_fds=(w,),
            user=policy.uid if policy.enabled else None,
        )
    finally:
        os.close(w)
    c.report = reader.data()
    return c


def _flat(obj: object, nested: dict[str, tuple[type, ...]]) -> bool:
    """`obj` is an object whose values are scalars, except the keys of `nested` (with those container types)."""
    if not isinstance(obj, dict):
        return False
    return all(isinstance(v, nested[k]) if k in nested else not isinstance(v, (dict, list)) for k, v in obj.items())


def _gtest_shaped(doc: object) -> bool:
    """GoogleTest's report has containers only at testsuites[] / testsuite[] / failures[] (and skipped). Text
    written before and after GoogleTest's own document can only wrap it in a container somewhere else."""
    if not _flat(doc, {"testsuites": (list,)}):
        return False
    for suite in doc.get("testsuites", []):
        if not _flat(suite, {"testsuite": (list,)}):
            return False
        for case in suite.get("testsuite", []):
            if not _flat(case, {"failures": (list,), "skipped": (list, dict)}):
                return False
            skipped = case.get("skipped", [])
            if not all(
                _flat(x, {}) for x in case.get("failures", []) + (skipped if isinstance(skipped, list) else [skipped])
            ):
                return False
    return True


def split_report(data: bytes | None) -> tuple[str | None, bool]:
    """(the one JSON document written to the report pipe, or None; tampered: something besides it was written)."""
    text = (data or b"").decode("utf-8", "replace").strip()
    if not text:
        return None, False
    try:
        doc, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None, False  # cut short: the process died while writing
    if text[end:].strip() or not _gtest_shaped(doc):
        return None, True
    return text, False


def run_gtest(
    exe: Path,
    gtest_filter: str,
    *,
    workdir: Path,
    timeout: float,
    env: dict[str, str],
    max_output_bytes: int | None,
    devices: tuple[str, ...] = (),
    read_only: tuple[Path, ...] = (),
    prefix: tuple[str, ...] = (),
    policy: sandbox.Policy | None = None,
    worker: Path | None = None,
    call_seconds: float = 0,
    private: tuple[Path, ...] = (),
):
    """Runs one GoogleTest judge `exe` with its `worker`: the judge outside the sandbox, the worker (after `prefix`,
    e.g. compute-sanitizer) in the test sandbox, which reads `worker` and `read_only`, writes only a private run
    folder (sandbox.RUN_FOLDER; `workdir` keeps output.log and the report outside it) and sees `devices`. The worker's
    environment is `env` without the seed; a launcher call it does not answer within `call_seconds` (0: no limit)
    fails its test and stops it (the judge records property call_timeout_seconds). The sandbox also reads the folders
    outside the system that the program loads libraries from, unless one holds a path of `private`
    (sandbox.library_roots). Without a worker (a stand-in
    program in the grader's own tests), `exe` itself runs in the sandbox. Verdicts come from the judge's report only:
    a gtest.GTestRun."""
    from . import gtest  # (gtest imports this module)

    workdir.mkdir(parents=True, exist_ok=True)
    report = workdir / "report.json"
    report.unlink(missing_ok=True)
    gtest_args = [f"--gtest_filter={gtest_filter}", f"--gtest_output=json:{REPORT}", "--gtest_color=no"]
    limits = sandbox.run_limits(timeout, max_output_bytes, bool(devices))
    roots = read_only + sandbox.tool_roots(list(prefix[:1])) + sandbox.library_roots(worker or exe, private)
    log = workdir / "output.log"
    if worker is None:
        box = sandbox.run_box(exe, workdir, env, limits, devices, roots)
        cmd = [*prefix, str(exe), *gtest_args]
        c = run_sandboxed(
            cmd,
            box,
            cwd=workdir,
            timeout=timeout,
            log=log,
            report=True,
            max_output_bytes=max_output_bytes,
            policy=policy,
        )
    else:
        policy = policy or sandbox.current()
        worker_env = {k: v for k, v in env.items() if k not in JUDGE_ONLY}
        box = sandbox.run_box(worker, workdir, worker_env, limits, devices, roots)
        wrap = sandbox.command(box, list(prefix), policy, None) if policy.enabled else list(prefix)
        cmd = [str(exe), *gtest_args, f"--course-worker={worker}", *(f"--course-worker-wrap={w}" for w in wrap)]
        if call_seconds > 0:
            cmd.append(f"--course-call-seconds={call_seconds:g}")
        c = run_judge(cmd, env, cwd=workdir, timeout=timeout, log=log, policy=policy)
    if c.timed_out:
        return gtest.GTestRun(False, [], describe_exit(c, timeout), c)
    text, c.tampered = split_report(c.report)
    if c.tampered:
        return gtest.GTestRun(
            False,
            [],
            "something besides GoogleTest wrote to the test report (a static "
            "initializer or destructor, an exit handler, a thread or a child process?): the "
            "report is not trusted",
            c,
        )
    cases = None
    if text is not None:
        report.write_text(text, encoding="utf-8")
        cases = gtest.read_report(report)
    if cases is None:
        return gtest.GTestRun(False, [], describe_exit(c, timeout), c)
    if c.returncode not in (0, 1):
        return gtest.GTestRun(False, cases, describe_exit(c, timeout), c)
    return gtest.GTestRun(True, cases, "", c)


def describe_exit(c: Completed, timeout: float) -> str:
    if c.timed_out:
        return f"killed after the time limit of {timeout:g} s (an endless loop or a hang?)"
    if c.returncode is not None and c.returncode < 0:
        try:
            name = signal.Signals(-c.returncode).name
        except ValueError:
            name = f"signal {-c.returncode}"
        return f"crashed ({name})"
    return f"ended with exit status {c.returncode} without writing its test report"
