"""OUT/class.json: the results of a class run as data, written with its other outputs (report.write_all) and read
back by grade.py --only (regrade.py), which replaces one student's results in it and writes every output again.

It holds what the outputs are made from: every LabResult field unrounded, the submissions' notes, and how the run
graded (backend, labs, assignment, sandbox, visibility), so that a re-grade can refuse to mix unlike runs.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from .intake import Submission
from .verdicts import LabResult

NAME = "class.json"
VERSION = 1


@dataclasses.dataclass
class Record:
    backend: str
    labs: list[str]  # lab numbers
    results: list[LabResult]
    submissions: list[Submission]  # without their files
    ignored: list[str]  # entries of the submissions folder that are not submissions
    isolation: str = ""  # how student code ran (sandbox.Policy.note)
    visibility: dict | None = None  # course.toml [visibility] as the run used it
    assignment: str = ""  # the assignment's name; "" when graded by lab
    due: str = ""


class RecordError(Exception):
    """No usable class.json: the message says where and why."""


def to_json(rec: Record) -> str:
    data = {
        "version": VERSION,
        "backend": rec.backend,
        "labs": rec.labs,
        "assignment": rec.assignment,
        "due": rec.due,
        "isolation": rec.isolation,
        "visibility": rec.visibility,
        "ignored": rec.ignored,
        "submissions": [
            {"student": s.student, "source": s.source, "notes": s.notes, "problem": s.problem} for s in rec.submissions
        ],
        "results": [dataclasses.asdict(r) for r in rec.results],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def load(out: Path) -> Record:
    path = out / NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path} does not exist") from None
    except (OSError, ValueError) as e:
        raise RecordError(f"{path} cannot be read: {e}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise RecordError(f"{path} is not a class record of this grader (version {VERSION})")
    fields = {f.name for f in dataclasses.fields(LabResult)}
    sub_fields = {f.name for f in dataclasses.fields(Submission)} - {"labs"}
    try:
        results = [LabResult(**{k: v for k, v in r.items() if k in fields}) for r in data["results"]]
        for r in results:
            r.failures = [(str(name), str(text)) for name, text in r.failures]
        subs = [Submission(**{k: v for k, v in s.items() if k in sub_fields}) for s in data["submissions"]]
        return Record(
            backend=str(data["backend"]),
            labs=[str(n) for n in data["labs"]],
            results=results,
            submissions=subs,
            ignored=[str(n) for n in data.get("ignored", [])],
            isolation=str(data.get("isolation", "")),
            visibility=data.get("visibility"),
            assignment=str(data.get("assignment", "")),
            due=str(data.get("due", "")),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise RecordError(f"{path} is damaged ({type(e).__name__}: {e})") from None
