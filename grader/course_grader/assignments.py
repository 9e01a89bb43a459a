"""Assignments: grader/course.toml's [assignments.NAME] tables. An assignment is the labs that one grading run grades
and reports together (grade.py --assignment NAME), with what each lab is worth in it and a due date:

    [assignments.hw2]
    labs = ["03", "04"]                 # lab numbers (grader/labs/NN_name/lab.toml)
    points = { 03 = 20, 04 = 10 }       # optional: a lab's points here, split between correctness and performance
                                        # as in its manifest (default: the manifest's points)
    due = 2027-03-01T23:59:00-05:00     # optional: a TOML date or date-time, shown in the outputs

Reading checks the keys and their types (AssignmentError); whether the labs exist in this checkout is checked when
the assignment is graded (select), so that a checkout without some lab still grades the others.
"""
from __future__ import annotations

import dataclasses
import datetime
import re
from pathlib import Path

from .manifest import Lab

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
KEYS = ("labs", "points", "due")


class AssignmentError(Exception):
    """An assignment that cannot be used; the message names the file and the assignment."""


@dataclasses.dataclass(frozen=True)
class Assignment:
    name: str
    labs: tuple[str, ...]  # lab numbers, "03", in number order
    points: dict[str, float] = dataclasses.field(default_factory=dict)  # lab number -> its points here
    due: str = ""  # ISO 8601, as course.toml states it; "" when none

    @property
    def title(self) -> str:
        """One line for the outputs: 'hw2 (labs 03, 04; due 2027-03-01T23:59:00-05:00)'."""
        due = f"; due {self.due}" if self.due else ""
        return f"{self.name} (labs {', '.join(self.labs)}{due})"

    def select(self, labs: tuple[Lab, ...]) -> tuple[Lab, ...]:
        """The assignment's labs out of `labs` (this checkout's), each with its points for this assignment."""
        have = {lab.number: lab for lab in labs}
        absent = [n for n in self.labs if n not in have]
        if absent:
            raise AssignmentError(
                f"assignment {self.name} names lab {', '.join(absent)}, which this checkout does not have "
                "(no grader/labs/NN_name/lab.toml)"
            )
        return tuple(_with_points(have[n], self.points.get(n)) for n in self.labs)


def _with_points(lab: Lab, points: float | None) -> Lab:
    if points is None or points == lab.max_points:
        return lab
    if lab.max_points <= 0:
        raise AssignmentError(f"{lab.name} has no points in its manifest to scale to {points:g}")
    scale = points / lab.max_points
    return dataclasses.replace(
        lab, correctness_points=lab.correctness_points * scale, performance_points=lab.performance_points * scale
    )


def _number(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99:
        return f"{value:02d}"
    if isinstance(value, str) and re.fullmatch(r"\d{1,2}", value.strip()):
        return value.strip().zfill(2)
    return None


def _due(value: object) -> str:
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ValueError(f"a TOML date or date-time (e.g. 2027-03-01T23:59:00-05:00), not {value!r}")


def _one(name: str, table: object, where: str) -> Assignment:
    if not NAME.fullmatch(name):
        raise AssignmentError(f"{where}: the name '{name}' must be letters, digits, '.', '_' or '-'")
    if not isinstance(table, dict):
        raise AssignmentError(f"{where}: must be a table with {', '.join(KEYS)}")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise AssignmentError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(KEYS)})")
    raw = table.get("labs")
    numbers = [_number(v) for v in raw] if isinstance(raw, list) else [None]
    if not raw or None in numbers:
        raise AssignmentError(f'{where}: \'labs\' must be a non-empty list of lab numbers, e.g. ["01", "03"]')
    if len(set(numbers)) != len(numbers):
        raise AssignmentError(f"{where}: 'labs' names a lab twice: {raw}")
    labs = tuple(sorted(numbers))
    points: dict[str, float] = {}
    raw_points = table.get("points", {})
    if not isinstance(raw_points, dict):
        raise AssignmentError(f"{where}: 'points' must be a table of lab number = points, e.g. {{ 03 = 20 }}")
    for key, value in raw_points.items():
        number = _number(key)
        if number not in labs:
            raise AssignmentError(f"{where}: points for lab {key}, which is not in its labs {list(labs)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise AssignmentError(f"{where}: points.{key} must be a positive number, not {value!r}")
        points[number] = float(value)
    due = ""
    if "due" in table:
        try:
            due = _due(table["due"])
        except ValueError as e:
            raise AssignmentError(f"{where}: 'due' must be {e}") from None
    return Assignment(name, labs, points, due)


def parse(path: Path, tables: object) -> dict[str, Assignment]:
    """course.toml's [assignments] table: {name: Assignment}."""
    if not isinstance(tables, dict):
        raise AssignmentError(f"{path}: [assignments] must hold one table per assignment, [assignments.NAME]")
    return {name: _one(name, table, f"{path}: [assignments.{name}]") for name, table in tables.items()}
