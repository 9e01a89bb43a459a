"""Expected verdicts of the bundled samples, stated in their spec (grader/samples/samples.toml, read by
samples.py) and checked after grading them."""
from __future__ import annotations

from pathlib import Path

from . import samples
from .verdicts import LabResult


def load(path: Path) -> dict[tuple[str, str], dict]:
    """{(student, lab number): {"cpu": [verdicts], "gpu": [verdicts], "message_contains": {backend: str}, "why": str}}
    from a samples spec (samples.SampleError when it cannot be used).

    `message_contains` applies to both backends; `cpu_message_contains` / `gpu_message_contains` to one only (e.g.
    only the CPU backend's check mode can name a race; a GPU without it just sees wrong results)."""
    return samples.expectations(samples.load(path))


def check(results: list[LabResult], expected: dict[tuple[str, str], dict], backend: str) -> list[str]:
    """Mismatches as readable lines (empty: all as expected). Entries for labs that were not graded are skipped."""
    graded = {(r.student, r.lab): r for r in results}
    graded_labs = {r.lab for r in results}
    problems = []
    for (student, lab), spec in sorted(expected.items()):
        if lab not in graded_labs:
            continue
        r = graded.get((student, lab))
        allowed = spec[backend]
        if r is None:
            problems.append(f"{student} lab{lab}: not graded (expected {' or '.join(allowed)})")
        elif allowed and r.verdict not in allowed:
            problems.append(f"{student} lab{lab}: verdict {r.verdict}, expected {' or '.join(allowed)} — {r.message}")
        elif (want := spec["message_contains"][backend]) and want.lower() not in r.message.lower():
            problems.append(f"{student} lab{lab}: message lacks '{want}': {r.message}")
    return problems
