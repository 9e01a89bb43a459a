"""Running untrusted programs: a new session per process, a wall-clock limit that kills the whole process group,
a minimal environment, an output-size limit. (Their GoogleTest reports are read by gtest.py.)"""
from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path


@dataclasses.dataclass
class Completed:
    returncode: int | None   # None: killed by the timeout
    timed_out: bool
    seconds: float
    output_tail: str         # last lines of stdout+stderr (untrusted: for messages only, never for verdicts)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(cmd: list[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None,
        log: Path | None = None, max_output_bytes: int | None = None, tail_bytes: int = 4000) -> Completed:
    """Runs `cmd` in its own session; on timeout kills the whole process group. stdout+stderr go to `log`."""
    cwd.mkdir(parents=True, exist_ok=True)
    log = log or cwd / "output.log"
    if max_output_bytes and shutil.which("prlimit"):
        cmd = ["prlimit", f"--fsize={max_output_bytes}", "--core=0", "--"] + cmd
    start = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
        finally:
            _kill_group(proc.pid)  # children that outlived their parent
    seconds = time.monotonic() - start
    with open(log, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - tail_bytes))
        tail = f.read().decode("utf-8", "replace")
    return Completed(None if timed_out else proc.returncode, timed_out, seconds, tail)


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
