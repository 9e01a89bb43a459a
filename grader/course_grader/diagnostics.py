"""Readable messages from untrusted text: compiler output, GoogleTest failure messages, a crashed program's output.
Everything here only shapes what a student reads; no verdict or score ever depends on it."""
from __future__ import annotations

import re
from pathlib import Path

from .gtest import TestCase


def compiler_messages(text: str, student_dir: Path) -> str:
    """The compiler's error lines, with the grader's paths removed so they read 'matadd.cu:12: error: ...'."""
    text = text.replace(str(student_dir) + "/", "")
    lines = [
        line
        for line in text.splitlines()
        if re.search(r"\b(error|Error)\b", line) and "ninja: build stopped" not in line
    ]
    lines = [line for line in lines if not line.startswith(("FAILED:", "ninja:"))] or lines
    return "\n".join(lines[:8])[:1500]


def findings(failed: list[TestCase]) -> str:
    """The CPU backend's diagnoses ('[race] tiled_gemm.cu:28: ...') over all failed tests: 'race at
    tiled_gemm.cu:28, ...' (from the JSON report's failure messages, which the harness writes)."""
    seen: dict[str, None] = {}
    for case in failed:
        for text in case.failures:
            for category, where in re.findall(r"\[([a-z][a-z-]*)\] (?:\S*/)?([^\s/:]+:\d+):", text):
                seen.setdefault(f"{category} at {where}")
    return ", ".join(list(seen)[:6])


def first_lines(text: str, n: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[:n])[:500]


def first_failure(case: TestCase) -> str:
    return first_lines(case.failures[0]) if case.failures else ""


def program_output(output_tail: str) -> str:
    """The CPU backend's or CUDA's own diagnosis lines from a crashed program's output."""
    keep = [
        line.strip()
        for line in output_tail.splitlines()
        if line.startswith("[course-cpu]") or "cudaError" in line or "illegal" in line.lower()
    ]
    return ("program output: " + " ".join(keep[:3]))[:600] if keep else ""
