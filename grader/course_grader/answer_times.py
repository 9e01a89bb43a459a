"""The longest waits for a launcher call's answer in graded results (LabResult.longest_answer, recorded by the
judges: judge_main.cpp), by kind of run: what the call deadlines of course.toml [limits] are calibrated from.

A lab stopped at a deadline (`timeout`) is left out: its wait is the deadline, not the work it did.
"""
from __future__ import annotations

from .verdicts import LabResult

KINDS = ("check", "cpu", "gpu", "sanitizer")


def longest(results: list[LabResult]) -> dict[str, dict]:
    """{kind: {"seconds", "student", "lab", "verdict"}} of the longest answer of each kind of run."""
    found: dict[str, dict] = {}
    for r in results:
        if r.verdict == "timeout":
            continue
        for kind, seconds in r.longest_answer.items():
            if kind not in found or seconds > found[kind]["seconds"]:
                found[kind] = {"seconds": round(seconds, 3), "student": r.student, "lab": r.lab, "verdict": r.verdict}
    return {kind: found[kind] for kind in sorted(found, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS))}
