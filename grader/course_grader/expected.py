"""Expected verdicts of the bundled samples and of the adversarial suite, stated in their spec
(grader/samples/samples.toml, grader/adversarial/suite.toml, read by samples.py) and checked after grading them."""
from __future__ import annotations

from pathlib import Path

from . import samples
from .verdicts import LabResult


def load(path: Path) -> dict[tuple[str, str], dict]:
    """{(student, lab number): {"cpu": [verdicts], "gpu": [verdicts], "message_contains": {backend: str},
    "known_gap": {backend: why}, "why": str} from a samples spec (samples.SampleError when it cannot be used).

    `message_contains` applies to both backends; `cpu_message_contains` / `gpu_message_contains` to one only (e.g.
    only the CPU backend's check mode can name a race; a GPU without it just sees wrong results)."""
    return samples.expectations(samples.load(path))


def _graded(results: list[LabResult], expected: dict[tuple[str, str], dict]):
    """(student, lab, spec, result or None) for every expectation of a lab that was graded."""
    graded = {(r.student, r.lab): r for r in results}
    graded_labs = {r.lab for r in results}
    for (student, lab), spec in sorted(expected.items()):
        if lab in graded_labs:
            yield student, lab, spec, graded.get((student, lab))


def _gap(spec: dict, backend: str, check_mode: bool) -> str:
    """The known gap of `backend`, if any. A CPU-backend gap is also a GPU one where the GPU tree builds check mode
    (the CPU backend compiles the student's file there too)."""
    gaps = spec.get("known_gap", {})
    return gaps.get(backend, "") or (gaps.get("cpu", "") if backend == "gpu" and check_mode else "")


def _as_expected(r: LabResult, spec: dict, backend: str) -> bool:
    want = spec["message_contains"][backend]
    return r.verdict in spec[backend] and (not want or want.lower() in r.message.lower())


def check(
    results: list[LabResult], expected: dict[tuple[str, str], dict], backend: str, check_mode: bool = False
) -> list[str]:
    """Mismatches as readable lines (empty: all as expected). Entries for labs that were not graded are skipped. An
    entry with a known gap on `backend` is a mismatch when it got its expected verdict: the gap has closed.
    `check_mode`: the GPU tree also built check mode (see _gap)."""
    problems = []
    for student, lab, spec, r in _graded(results, expected):
        allowed = spec[backend]
        gap = _gap(spec, backend, check_mode)
        if r is None:
            problems.append(f"{student} lab{lab}: not graded (expected {' or '.join(allowed)})")
        elif gap and _as_expected(r, spec, backend):
            problems.append(
                f"{student} lab{lab}: the known gap has closed (verdict {r.verdict}, as expected): remove its "
                f"{backend} known gap from the spec ({gap})"
            )
        elif gap:
            continue  # still open: gaps() reports it
        elif allowed and r.verdict not in allowed:
            problems.append(f"{student} lab{lab}: verdict {r.verdict}, expected {' or '.join(allowed)} — {r.message}")
        elif (want := spec["message_contains"][backend]) and want.lower() not in r.message.lower():
            problems.append(f"{student} lab{lab}: message lacks '{want}': {r.message}")
    return problems


def gaps(
    results: list[LabResult], expected: dict[tuple[str, str], dict], backend: str, check_mode: bool = False
) -> list[str]:
    """The known gaps still open on `backend`, as readable lines: the verdict today, the one expected and why."""
    lines = []
    for student, lab, spec, r in _graded(results, expected):
        gap = _gap(spec, backend, check_mode)
        if gap and r is not None and not _as_expected(r, spec, backend):
            if r.verdict in spec[backend]:
                today = f"verdict {r.verdict} as expected, but its message lacks '{spec['message_contains'][backend]}'"
            else:
                today = f"verdict {r.verdict}, should be {' or '.join(spec[backend])}"
            lines.append(f"{student} lab{lab}: {today}: {gap}")
    return lines
