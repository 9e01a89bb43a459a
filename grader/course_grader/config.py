"""The course as the grader sees it: the labs (from their manifests, grader/labs/NN_name/lab.toml, read by
manifest.py) and grader/course.toml's [grading], [limits], [anticheat], [symbols], [visibility], [assignments]
(assignments.py) and [gpus]. No lab fact is stated here."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from . import assignments, manifest
from .assignments import Assignment
from .manifest import Lab

REPO_ROOT = manifest.REPO_ROOT
DEFAULT_CONFIG = REPO_ROOT / "grader" / "course.toml"


@dataclasses.dataclass(frozen=True)
class Limits:
    build_seconds: float = 300.0
    test_seconds: float = 120.0
    call_seconds: float = 30.0  # one launcher call: the judge stops a worker that does not answer in time
    gpu_call_seconds: float = 10.0  # ... of a test program on a GPU (not check mode, not under compute-sanitizer)
    max_file_bytes: int = 256 * 1024
    max_submission_bytes: int = 16 * 1024 * 1024
    max_archive_members: int = 2000
    max_output_bytes: int = 64 * 1024 * 1024

    def call_deadline(self, kind: str, slowdown: float = 1.0) -> float:
        """The deadline for one answer of the worker in a run of `kind` ("check", "cpu", "gpu", "sanitizer");
        `slowdown`: compute-sanitizer's factor, for kind "sanitizer"."""
        if kind == "gpu":
            return self.gpu_call_seconds
        return self.call_seconds * (slowdown if kind == "sanitizer" else 1.0)


@dataclasses.dataclass(frozen=True)
class AntiCheat:
    """course.toml [anticheat]: the source scan's clear cases and the link check (scan.py)."""

    forbidden_includes: tuple[str, ...] = ()
    forbidden_libraries: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class SymbolRules:
    """course.toml [symbols]: shell patterns on demangled names without parameters (symbols.py)."""

    undefined: tuple[str, ...] = ()  # what the student's object may use, every backend
    undefined_cpu: tuple[str, ...] = ()  # ... on the CPU backend (check and cpu programs)
    undefined_gpu: tuple[str, ...] = ()  # ... on the GPU (nvcc's host code)
    math: tuple[str, ...] = ()  # C math functions, each also with the suffixes f and l
    shared_weak: tuple[str, ...] = ()  # weak definitions that other inputs of the link may define as well
    shared_unique: tuple[str, ...] = ()  # unique definitions (inline variables) that they may define as well

    def allowed(self, mode: str) -> tuple[str, ...]:
        math = tuple(f"{name}{suffix}" for name in self.math for suffix in ("", "f", "l"))
        return self.undefined + (self.undefined_gpu if mode == "gpu" else self.undefined_cpu) + math


# Who may see an entry of a results.json, and when: Gradescope's values.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


@dataclasses.dataclass(frozen=True)
class Visibility:
    """course.toml [visibility]: of each lab's two entries in results.json (report.py, results_json.py)."""

    correctness: str = "visible"
    performance: str = "visible"


@dataclasses.dataclass(frozen=True)
class Course:
    labs: tuple[Lab, ...]
    limits: Limits
    anticheat: AntiCheat
    symbols: SymbolRules = SymbolRules()
    remeasure_band: float = 0.03
    remeasure_runs: int = 2
    gpus: dict[str, str] = dataclasses.field(default_factory=dict)  # [gpus]: model key -> CUDA device name
    repo_root: Path = REPO_ROOT
    visibility: Visibility = Visibility()
    assignments: dict[str, Assignment] = dataclasses.field(default_factory=dict)  # [assignments.NAME]

    def lab(self, number: str) -> Lab:
        for lab in self.labs:
            if lab.number == number:
                return lab
        raise KeyError(number)

    def existing_labs(self) -> tuple[Lab, ...]:
        """The labs of this checkout: those that have a manifest (grader/labs/NN_name/lab.toml)."""
        return self.labs

    def all_files(self) -> dict[str, Lab]:
        """Every allowed lab file name -> its lab."""
        return {f: lab for lab in self.labs for f in lab.files}


class ConfigError(Exception):
    pass


_GRADING = {"correctness": str, "remeasure_band": float, "remeasure_runs": int}


def _section(path: Path, data: dict, name: str, fields: dict[str, type]) -> dict:
    """[name] of course.toml with every key known and of its type (a typo is an error, not a silent default)."""
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    out = {}
    for key, value in table.items():
        if key not in fields:
            raise ConfigError(f"{path}: unknown key '{name}.{key}' (known: {', '.join(fields)})")
        kind = fields[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is tuple:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{path}: '{name}.{key}' must be a list of strings")
            value = tuple(value)
        elif not isinstance(value, kind) or isinstance(value, bool):
            raise ConfigError(f"{path}: '{name}.{key}' must be {kind.__name__}, not {value!r}")
        out[key] = value
    return out


def load(path: Path = DEFAULT_CONFIG, repo_root: Path = REPO_ROOT) -> Course:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from e
    if "lab" in data:
        raise ConfigError(
            f"{path}: [[lab]] tables are no longer read: each lab is described by its manifest, "
            "grader/labs/NN_name/lab.toml"
        )
    tables = ("grading", "limits", "anticheat", "symbols", "visibility", "assignments", "gpus")
    unknown = sorted(set(data) - set(tables))
    if unknown:
        raise ConfigError(f"{path}: unknown table [{unknown[0]}] (known: {', '.join(tables)})")
    limit_types = {f.name: type(f.default) for f in dataclasses.fields(Limits)}
    limits = Limits(**_section(path, data, "limits", limit_types))
    anticheat = AntiCheat(**_section(path, data, "anticheat", {f.name: tuple for f in dataclasses.fields(AntiCheat)}))
    symbols = SymbolRules(**_section(path, data, "symbols", {f.name: tuple for f in dataclasses.fields(SymbolRules)}))
    grading = _section(path, data, "grading", _GRADING)
    visibility = Visibility(**_section(path, data, "visibility", {f.name: str for f in dataclasses.fields(Visibility)}))
    for key, value in dataclasses.asdict(visibility).items():
        if value not in VISIBILITIES:
            raise ConfigError(f"{path}: 'visibility.{key}' must be one of {', '.join(VISIBILITIES)}, not {value!r}")
    try:
        defined = assignments.parse(path, data.get("assignments", {}))
    except assignments.AssignmentError as e:
        raise ConfigError(str(e)) from e
    if grading.get("correctness", "all-or-nothing") != "all-or-nothing":
        raise ConfigError(f"{path}: [grading] correctness: only 'all-or-nothing' is implemented")
    try:
        gpus = manifest.load_gpus(path)
        labs = manifest.load_labs(repo_root, course_toml=path)
    except manifest.ManifestError as e:
        raise ConfigError(str(e)) from e
    if not labs:
        raise ConfigError(f"{Path(repo_root) / manifest.LABS_DIR}: no lab manifest (NN_name/lab.toml)")
    return Course(
        labs=labs,
        limits=limits,
        anticheat=anticheat,
        symbols=symbols,
        remeasure_band=grading.get("remeasure_band", 0.03),
        remeasure_runs=grading.get("remeasure_runs", 2),
        gpus=gpus,
        repo_root=Path(repo_root),
        visibility=visibility,
        assignments=defined,
    )
