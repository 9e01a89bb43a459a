"""grader/course.toml: labs, points, limits and the anti-cheat lists; which labs exist in this checkout."""
from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO_ROOT / "grader" / "course.toml"


@dataclasses.dataclass(frozen=True)
class Lab:
    number: str                  # "01"
    folder: str                  # "01_matadd"
    files: tuple[str, ...]       # ("matadd.cu",)
    correctness_points: float
    performance_points: float
    perf_baseline: float
    allow: tuple[str, ...] = ()  # identifiers/includes this lab may use although they are on a forbidden list

    @property
    def name(self) -> str:
        return f"lab{self.number}"

    @property
    def max_points(self) -> float:
        return self.correctness_points + self.performance_points


@dataclasses.dataclass(frozen=True)
class Limits:
    build_seconds: float = 300
    test_seconds: float = 120
    max_file_bytes: int = 256 * 1024
    max_submission_bytes: int = 16 * 1024 * 1024
    max_archive_members: int = 2000
    max_output_bytes: int = 64 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class AntiCheat:
    forbidden_includes: tuple[str, ...] = ()
    forbidden_identifiers: tuple[str, ...] = ()
    forbidden_calls: tuple[str, ...] = ()
    forbidden_libraries: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Course:
    labs: tuple[Lab, ...]
    limits: Limits
    anticheat: AntiCheat
    remeasure_band: float = 0.03
    remeasure_runs: int = 2
    repo_root: Path = REPO_ROOT

    def lab(self, number: str) -> Lab:
        for lab in self.labs:
            if lab.number == number:
                return lab
        raise KeyError(number)

    def existing_labs(self) -> tuple[Lab, ...]:
        """Labs that exist in this checkout: grader/labs/labNN.cmake is present."""
        return tuple(lab for lab in self.labs if lab_exists(self.repo_root, lab))

    def all_files(self) -> dict[str, Lab]:
        """Every allowed lab file name -> its lab."""
        return {f: lab for lab in self.labs for f in lab.files}


def lab_exists(repo_root: Path, lab: Lab) -> bool:
    return (repo_root / "grader" / "labs" / f"lab{lab.number}.cmake").is_file()


class ConfigError(Exception):
    pass


def load(path: Path = DEFAULT_CONFIG, repo_root: Path = REPO_ROOT) -> Course:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from e
    labs = []
    for entry in data.get("lab", []):
        number = str(entry["number"]).zfill(2)
        if not re.fullmatch(r"\d\d", number):
            raise ConfigError(f"{path}: lab number '{number}' is not two digits")
        files = tuple(entry["files"])
        for f in files:
            if "/" in f or f.startswith("."):
                raise ConfigError(f"{path}: lab {number}: file name '{f}' must be a plain name")
        labs.append(Lab(number=number, folder=entry["folder"], files=files,
                        correctness_points=float(entry.get("correctness_points", 6)),
                        performance_points=float(entry.get("performance_points", 4)),
                        perf_baseline=float(entry.get("perf_baseline", 1.0)),
                        allow=tuple(entry.get("allow", ()))))
    if not labs:
        raise ConfigError(f"{path}: no [[lab]] tables")
    lim = data.get("limits", {})
    limits = Limits(**{k: type(getattr(Limits, k))(v) for k, v in lim.items() if hasattr(Limits, k)})
    ac = data.get("anticheat", {})
    anticheat = AntiCheat(**{k: tuple(v) for k, v in ac.items() if k in AntiCheat.__dataclass_fields__})
    g = data.get("grading", {})
    if g.get("correctness", "all-or-nothing") != "all-or-nothing":
        raise ConfigError(f"{path}: [grading] correctness: only 'all-or-nothing' is implemented")
    return Course(labs=tuple(labs), limits=limits, anticheat=anticheat,
                  remeasure_band=float(g.get("remeasure_band", 0.03)),
                  remeasure_runs=int(g.get("remeasure_runs", 2)), repo_root=Path(repo_root))
