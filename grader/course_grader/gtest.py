"""GoogleTest's JSON report: the one place that reads it (the grader, the Gradescope autograder and
tools/calibrate.py all go through here), and running one test executable to get it.

A test program's verdicts come from this report only, never from its printed output. A perf test (a suite whose name
ends in "Perf") records its measurement as test properties: metric, ratio, threshold, threshold_section, device,
result_check ("pass"/"fail": the result verified after the timed runs) and verdict ("pass"/"fail": ratio >=
threshold); perf_record() reads them.
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

from . import runner


@dataclasses.dataclass
class TestCase:
    suite: str
    name: str
    status: str  # "passed", "failed", "skipped"
    failures: list[str]  # failure messages (untrusted text: shown, never interpreted)
    properties: dict[str, str]  # RecordProperty values

    @property
    def full_name(self) -> str:
        return f"{self.suite}.{self.name}"

    @property
    def is_perf(self) -> bool:
        return self.suite.endswith("Perf")


# Keys of a test case object that GoogleTest writes itself; every other key is a recorded property.
_STANDARD_KEYS = {
    "name",
    "status",
    "result",
    "timestamp",
    "time",
    "classname",
    "failures",
    "file",
    "line",
    "value_param",
    "type_param",
    "skipped",
}


def read_report(path: Path) -> list[TestCase] | None:
    """The test cases that ran (NOTRUN ones are left out), or None when the report is missing or malformed."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8", errors="replace"))
        cases = []
        for suite in data["testsuites"]:
            for case in suite.get("testsuite", []):
                if str(case.get("status", "RUN")).upper() != "RUN":
                    continue  # NOTRUN: disabled or filtered out
                failures = [str(f.get("failure", "")) for f in case.get("failures", []) or []]
                result = str(case.get("result", "COMPLETED")).upper()
                if result == "SKIPPED":
                    status = "skipped"
                elif failures:
                    status = "failed"
                elif result == "COMPLETED":
                    status = "passed"
                else:
                    status = "failed"  # SUPPRESSED or anything unexpected
                props = {
                    k: str(v)
                    for k, v in case.items()
                    if k not in _STANDARD_KEYS and isinstance(v, (str, int, float)) and not isinstance(v, bool)
                }
                cases.append(TestCase(str(suite["name"]), str(case["name"]), status, failures, props))
        return cases
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


# ---- a perf test's recorded measurement ------------------------------------------------------------------------------

PASS_FAIL = ("pass", "fail")


@dataclasses.dataclass(frozen=True)
class PerfRecord:
    ratio: float
    threshold: float
    result_check: str  # "pass": the result after the timed runs was right
    verdict: str  # "pass": ratio >= threshold
    metric: str = ""
    threshold_section: str = ""  # the manifest section the threshold came from, e.g. "gpu.nvidia_h200"
    device: str = ""
    ceiling: str = ""  # the library a user would call instead, timed in the same run
    ceiling_fraction: float | None = None  # the lab's rate over the ceiling's
    review: bool = False  # above the manifest's review_above: implausible, held for review


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def call_timeout(case: TestCase) -> float | None:
    """The deadline a launcher call ran past in this test (the judge stopped the worker), or None."""
    return _number(case.properties.get("call_timeout_seconds"))


def longest_answer(case: TestCase) -> float | None:
    """The longest the judge waited for the worker's answer to a launcher call (or timed batch) in this test, in
    seconds; None when no call was answered."""
    return _number(case.properties.get("longest_answer_seconds"))


def worker_died(case: TestCase) -> str:
    """How the process running the student's code ended during a call of this test ('it was killed by signal 11
    (Segmentation fault)'), or '' if it did not."""
    how = case.properties.get("worker_died", "")
    return how if isinstance(how, str) else ""


def perf_record(case: TestCase) -> tuple[PerfRecord | None, str]:
    """The measurement a perf test recorded, or (None, what is missing or malformed)."""
    p = case.properties
    values = {}
    for key in ("ratio", "threshold"):
        if key not in p:
            return None, f"recorded no {key}"
        try:
            values[key] = float(p[key])
        except ValueError:
            return None, f"recorded a {key} that is not a number ({p[key][:40]!r})"
        if not math.isfinite(values[key]):
            return None, f"recorded a {key} that is not finite ({p[key][:40]!r})"
    for key in ("result_check", "verdict"):
        if p.get(key) not in PASS_FAIL:
            return (
                None,
                f"recorded no {key} (pass or fail)"
                if key not in p
                else f"recorded {key} = {p[key][:40]!r}, not pass or fail",
            )
    return (
        PerfRecord(
            values["ratio"],
            values["threshold"],
            p["result_check"],
            p["verdict"],
            p.get("metric", ""),
            p.get("threshold_section", ""),
            p.get("device", ""),
            p.get("ceiling", ""),
            _number(p.get("ceiling_fraction")),
            p.get("review") == "yes",
        ),
        "",
    )


# ---- running one test executable ------------------------------------------------------------------------------------


@dataclasses.dataclass
class GTestRun:
    ok: bool  # the report exists and is well formed, and the process ended normally
    cases: list[TestCase]
    problem: str  # why not ok
    completed: runner.Completed | None = None

    def case(self, full_name: str) -> TestCase | None:
        return next((c for c in self.cases if c.full_name == full_name), None)


def run_gtest(
    exe: Path,
    gtest_filter: str,
    *,
    workdir: Path,
    timeout: float,
    env: dict[str, str] | None,
    max_output_bytes: int | None,
    extra_args: tuple[str, ...] = (),
) -> GTestRun:
    """Runs one GoogleTest executable as its own process; verdicts come from its JSON report only."""
    workdir.mkdir(parents=True, exist_ok=True)
    report = workdir / "report.json"
    report.unlink(missing_ok=True)
    cmd = [str(exe), f"--gtest_filter={gtest_filter}", f"--gtest_output=json:{report}", "--gtest_color=no", *extra_args]
    c = runner.run(
        cmd, cwd=workdir, timeout=timeout, env=env, log=workdir / "output.log", max_output_bytes=max_output_bytes
    )
    if c.timed_out:
        return GTestRun(False, [], runner.describe_exit(c, timeout), c)
    cases = read_report(report) if report.is_file() else None
    if cases is None:
        return GTestRun(False, [], runner.describe_exit(c, timeout), c)
    if c.returncode not in (0, 1):
        return GTestRun(False, cases, runner.describe_exit(c, timeout), c)
    return GTestRun(True, cases, "", c)
