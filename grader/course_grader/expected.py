"""Expected verdicts of the bundled samples (grader/samples/expected.toml), checked after grading them."""
from __future__ import annotations

import tomllib
from pathlib import Path

from .verdicts import LabResult


def load(path: Path) -> dict[tuple[str, str], dict]:
    """{(student, lab number): {"cpu": [verdicts], "gpu": [verdicts], "message_contains": {backend: str}}}

    `message_contains` applies to both backends; `cpu_message_contains` / `gpu_message_contains` to one only (e.g.
    only the CPU backend's check mode can name a race; a GPU without it just sees wrong results)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for student, labs in data.items():
        for lab, spec in labs.items():
            number = lab.removeprefix("lab")
            entry = {}
            for backend in ("cpu", "gpu"):
                v = spec.get(backend, [])
                entry[backend] = [v] if isinstance(v, str) else list(v)
            common = spec.get("message_contains", "")
            entry["message_contains"] = {b: spec.get(f"{b}_message_contains", common) for b in ("cpu", "gpu")}
            entry["why"] = spec.get("why", "")
            out[(student, number)] = entry
    return out


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
