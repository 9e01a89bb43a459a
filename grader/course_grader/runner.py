"""Running untrusted programs: a new session per process, a wall-clock limit that kills the whole process group,
a minimal environment, an output-size limit; and reading verdicts from GoogleTest's JSON file only."""
from __future__ import annotations

import dataclasses
import json
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


@dataclasses.dataclass
class TestCase:
    suite: str
    name: str
    status: str                     # "passed", "failed", "skipped"
    failures: list[str]
    properties: dict[str, str]

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"

    @property
    def is_perf(self) -> bool:
        return self.suite.endswith("Perf")


_STANDARD_KEYS = {"name", "status", "result", "timestamp", "time", "classname", "failures", "file", "line",
                  "value_param", "type_param", "skipped"}


def parse_gtest_json(path: Path) -> list[TestCase] | None:
    """The test cases of a GoogleTest JSON report, or None when it is missing or malformed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        cases = []
        for suite in data["testsuites"]:
            for case in suite.get("testsuite", []):
                failures = [str(f.get("failure", "")) for f in case.get("failures", []) or []]
                result = str(case.get("result", "COMPLETED")).upper()
                if str(case.get("status", "RUN")).upper() != "RUN":
                    continue  # NOTRUN: disabled or filtered out
                if result == "SKIPPED":
                    status = "skipped"
                elif failures:
                    status = "failed"
                elif result == "COMPLETED":
                    status = "passed"
                else:
                    status = "failed"  # SUPPRESSED or anything unexpected
                props = {k: str(v) for k, v in case.items() if k not in _STANDARD_KEYS and isinstance(v, (str, int, float))}
                cases.append(TestCase(str(suite["name"]), str(case["name"]), status, failures, props))
        return cases
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


@dataclasses.dataclass
class GTestRun:
    ok: bool                         # the report exists and is well formed
    cases: list[TestCase]
    problem: str                     # why not ok
    completed: Completed | None = None


def run_gtest(exe: Path, gtest_filter: str, *, workdir: Path, timeout: float, env: dict[str, str],
              max_output_bytes: int | None, extra_args: tuple[str, ...] = ()) -> GTestRun:
    """Runs one GoogleTest executable as its own process; verdicts come from its JSON report only."""
    workdir.mkdir(parents=True, exist_ok=True)
    report = workdir / "report.json"
    report.unlink(missing_ok=True)
    cmd = [str(exe), f"--gtest_filter={gtest_filter}", f"--gtest_output=json:{report}", "--gtest_color=no",
           *extra_args]
    c = run(cmd, cwd=workdir, timeout=timeout, env=env, log=workdir / "output.log", max_output_bytes=max_output_bytes)
    if c.timed_out:
        return GTestRun(False, [], describe_exit(c, timeout), c)
    cases = parse_gtest_json(report) if report.is_file() else None
    if cases is None:
        return GTestRun(False, [], describe_exit(c, timeout), c)
    if c.returncode not in (0, 1):
        return GTestRun(False, cases, describe_exit(c, timeout), c)
    return GTestRun(True, cases, "", c)
