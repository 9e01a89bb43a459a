"""The catalogue of a lab: grader/labs/NN_name/catalogue.toml, its known-wrong kernels as mutations of the solution.

A catalogue entry's `edit`s (find/replace, each `find` matching exactly once unless `count` says otherwise) turn the
lab's reference solution into the wrong kernel, so a fix to the solution fixes every entry. Its expected diagnosis is
located by `at`, a text that occurs on exactly one line of the mutant. Errors are ManifestErrors naming the file and
the entry. The sample submissions (samples.py) use apply_edits too.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from .manifest import REPO_ROOT, Lab, ManifestError, _read_toml, _Table

# The CPU backend's diagnosis categories (common/cpu/src/diagnostics.cpp) that an entry may expect at a line.
CATEGORIES = (
    "race",
    "barrier-divergence",
    "out-of-bounds",
    "uninitialized-shared-read",
    "invalid-launch",
    "misaligned-address",
    "async-copy",
)
OUTCOMES = ("wrong", "correct")


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    mistake: str  # one sentence, shown in the self-test and the docs
    file: str  # the lab file it replaces
    expect: str  # a category of CATEGORIES, or "wrong" / "correct"
    line: int | None  # with a category: the line of the mutant the diagnosis must name
    gpu: str | None  # "perf-fail" or None
    text: str  # the mutant's source


def apply_edits(source: str, edits: list[dict], where: str) -> str:
    """Applies find/replace edits in order. `find` must occur exactly `count` times (default 1)."""
    text = source
    for i, edit in enumerate(edits):
        find, replace, count = edit.get("find"), edit.get("replace"), edit.get("count", 1)
        if not isinstance(find, str) or not find or not isinstance(replace, str) or not isinstance(count, int):
            raise ManifestError(
                f'{where}: edit {i + 1} needs find = "..." (non-empty), replace = "..." and an '
                "optional integer count"
            )
        unknown = sorted(set(edit) - {"find", "replace", "count"})
        if unknown:
            raise ManifestError(f"{where}: edit {i + 1}: unknown key '{unknown[0]}' (expected find, replace, count)")
        found = text.count(find)
        if found != count:
            raise ManifestError(
                f"{where}: edit {i + 1} no longer applies: its find text occurs {found} times in the "
                f"solution, expected {count}:\n{find}"
            )
        text = text.replace(find, replace)
    return text


def load_catalogue(lab: Lab, repo_root: Path = REPO_ROOT) -> tuple[Mutant, ...]:
    path = lab.dir / "catalogue.toml"
    if not path.is_file():
        return ()
    data = _read_toml(path)
    unknown = sorted(set(data) - {"mutant"})
    if unknown:
        raise ManifestError(f"{path}: unknown table '{unknown[0]}' (expected [[mutant]] entries)")
    mutants, names = [], set()
    for i, entry in enumerate(data.get("mutant", [])):
        t = _Table(path, f"mutant[{i}]", entry)
        name = t.get("name", str, "a snake_case name")
        if not re.fullmatch(r"[a-z0-9_]+", name) or name in names:
            raise ManifestError(f"{path}: mutant name '{name}' must be snake_case and unique")
        names.add(name)
        where = f"{path}: mutant '{name}'"
        mistake = t.get("mistake", str, "one sentence on the mistake")
        file = t.get("file", str, "one of the lab's files", lab.files[0])
        if file not in lab.files:
            raise ManifestError(f"{where}: file '{file}' is not one of the lab's files {list(lab.files)}")
        expect = t.get("expect", str, f"one of {', '.join(CATEGORIES + OUTCOMES)}")
        if expect not in CATEGORIES + OUTCOMES:
            raise ManifestError(f"{where}: expect = '{expect}': expected one of {', '.join(CATEGORIES + OUTCOMES)}")
        at = t.get("at", str, "the text of the line the diagnosis names", None)
        gpu = t.get("gpu", str, "'perf-fail'", None)
        if gpu not in (None, "perf-fail"):
            raise ManifestError(f"{where}: gpu = '{gpu}': the only GPU expectation is 'perf-fail'")
        edits = t.get("edit", list, "a list of [[mutant.edit]] find/replace tables")
        t.done()
        solution = Path(repo_root) / "solutions" / lab.folder / file
        try:
            source = solution.read_text(encoding="utf-8")
        except OSError as e:
            raise ManifestError(f"{where}: cannot read the solution it mutates, {solution}: {e.strerror}") from e
        text = apply_edits(source, edits, where)
        line = None
        if expect in CATEGORIES:
            if at is None:
                raise ManifestError(f"{where}: expect = '{expect}' needs at = \"text of the line it is reported at\"")
            lines = [n for n, l in enumerate(text.splitlines(), 1) if at in l]
            if len(lines) != 1:
                raise ManifestError(f'{where}: at = "{at}" is on {len(lines)} lines of the mutant, expected exactly 1')
            line = lines[0]
        elif at is not None:
            raise ManifestError(f"{where}: 'at' goes with a diagnosis category, not with expect = '{expect}'")
        mutants.append(Mutant(name, mistake, file, expect, line, gpu, text))
    return tuple(mutants)
