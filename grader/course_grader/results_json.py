"""One student's results.json, in the format of Gradescope's autograder ("Autograder Specifications",
gradescope-autograders.readthedocs.io/en/latest/specs/): the class run's OUT/results/<student>/results.json
(report.py) and the Gradescope autograder's (gradescope.py). Every sentence a student reads in it that is not a
verdict (verdicts.py) or a message of the grading itself (lab_grader.py, diagnostics.py) is here.

Per lab, two entries with the same max_score whatever the verdict: "labNN correctness" (its points, all or nothing,
and every failing test with its first message) and "labNN performance" (its points; 0 where performance is graded
elsewhere, on the course GPU). The message of a correct lab goes on about performance, so it is shown only in the
performance entry, whose visibility (course.toml [visibility]) then holds for every ratio and threshold. No text is
shown twice; long texts are cut at a word, with '…'.
"""
from __future__ import annotations

from .config import Visibility
from .diagnostics import shorten
from .verdicts import VERDICTS, LabResult

# ---- what a student reads -------------------------------------------------------------------------------------------
NOTES = "Notes about your submission:"
CORRECTNESS_PASSED = "All correctness tests passed."
FAILING_TESTS = "Failing correctness tests ({count}):"
SHOWN_ABOVE = "{name} (its message is above)"
SAME_AS = "{name}: the same message as {first}"
MORE_FAILING = "… and {count} more"
PERF_ONLY_IF_CORRECT = "Not graded: performance counts only for a correct lab."
PERF_DETAILS_ABOVE = "{verdict}: {meaning}; the details are under {entry}."
PERF_RATIO = "Ratio {ratio:.3f} (threshold {threshold:.3f}): {score:g} of {max:g} points."
PERF_GRADED_ELSEWHERE = (
    "Performance is graded separately on the course GPU (Gradescope has no GPU); the instructor's GPU run adds those "
    "points."
)

MAX_LISTED = 60  # failing tests listed by name; the rest are counted
MAX_TEST_TEXT = 500  # characters of one failing test's message ...
FAILURES_TEXT = 6000  # ... and of all of them together: with many failing tests, each message is cut shorter
MIN_TEST_TEXT = 100
MAX_OUTPUT = 16000  # characters of one entry's output (a safeguard: the parts above stay well within it)


def _failing_tests(r: LabResult, shown: str) -> list[str]:
    """'- name: message' for each failed correctness test; a message already in `shown`, or given for an earlier
    test, is not repeated."""
    lines = [FAILING_TESTS.format(count=len(r.failures))]
    first_with: dict[str, str] = {}  # message -> the first test that had it
    listed = r.failures[:MAX_LISTED]
    limit = max(MIN_TEST_TEXT, min(MAX_TEST_TEXT, FAILURES_TEXT // max(1, len(listed))))
    for name, text in listed:
        if text and f"{name}: {text}" in shown:
            line = SHOWN_ABOVE.format(name=name)
        elif text in first_with:
            line = SAME_AS.format(name=name, first=first_with[text])
        else:
            line = f"{name}: {shorten(text, limit)}" if text else name
        first_with.setdefault(text, name)
        lines.append(f"- {line}")
    if len(r.failures) > MAX_LISTED:
        lines.append(MORE_FAILING.format(count=len(r.failures) - MAX_LISTED))
    return lines


def correctness_output(r: LabResult) -> str:
    if r.correctness == "pass":
        return CORRECTNESS_PASSED  # the message goes on about performance: the performance entry shows it
    text = f"{r.verdict}: {r.message}"
    if r.failures:
        text += "\n\n" + "\n".join(_failing_tests(r, text))
    return shorten(text, MAX_OUTPUT)


def performance_output(r: LabResult, graded_elsewhere: bool) -> str:
    if graded_elsewhere:
        return PERF_GRADED_ELSEWHERE
    if r.verdict == "not-graded":
        return PERF_DETAILS_ABOVE.format(
            verdict=r.verdict, meaning=VERDICTS[r.verdict], entry=f"lab{r.lab} correctness"
        )
    if r.correctness != "pass":
        return PERF_ONLY_IF_CORRECT
    text = f"{r.verdict}: {r.message}"
    if r.perf_note and r.perf_note not in text:
        text = f"{r.perf_note}\n{text}"
    if r.ratio is not None and r.threshold is not None:
        text = PERF_RATIO.format(ratio=r.ratio, threshold=r.threshold, score=r.perf_score, max=r.perf_max) + "\n" + text
    return shorten(text, MAX_OUTPUT)


def student_results(
    results: list[LabResult],
    notes: list[str],
    visibility: Visibility = Visibility(),
    graded_elsewhere: bool = False,
    execution_time: float | None = None,
    extra: dict | None = None,
) -> dict:
    """One student's results.json. `graded_elsewhere`: performance is not graded here (the Gradescope autograder):
    every performance entry is worth 0 and says so. `execution_time`: seconds (default: the labs' grading time).
    `extra`: extra_data (the sandbox, the assignment)."""
    tests = []
    for r in results:
        tests.append(
            {
                "name": f"lab{r.lab} correctness",
                "score": r.correctness_score,
                "max_score": r.correctness_max,
                "output": correctness_output(r),
                "visibility": visibility.correctness,
            }
        )
        tests.append(
            {
                "name": f"lab{r.lab} performance",
                "score": 0 if graded_elsewhere else r.perf_score,
                "max_score": 0 if graded_elsewhere else r.perf_max,
                "output": performance_output(r, graded_elsewhere),
                "visibility": visibility.performance,
            }
        )
    seconds = sum(r.seconds for r in results) if execution_time is None else execution_time
    out: dict = {
        "score": round(sum(t["score"] for t in tests), 2),
        "execution_time": max(0, round(seconds)),
        "tests": tests,
    }
    shown = "\n".join(t["output"] for t in tests)
    fresh = [n for n in dict.fromkeys(notes) if n not in shown]  # a hint that a lab's message repeats is left out
    if fresh:
        out["output"] = NOTES + "\n" + "\n".join(f"- {n}" for n in fresh)
    if extra:
        out["extra_data"] = dict(extra)
    return out
