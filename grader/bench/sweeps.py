#!/usr/bin/env python3
"""The bench's plan: which figure is made of which sweeps, and which program runs each sweep.

A figure (grader/bench/figures.toml) is made of the [[bench]] tables that name it in the labs' manifests
(grader/labs/*/lab.toml, read and checked by course_grader.manifest). A table sweeps one case of its lab over its
values in the programs of the subjects its series come from (bench_labNN_solution, bench_labNN_variant_<stem>). Tables
that ask one program for the same case at the same fixed sizes share one run over the union of their values: lab 03's
tiled GEMM, for instance, is timed once for three figures.

  python3 grader/bench/sweeps.py --cmake FILE   writes the CMake that grader/bench/CMakeLists.txt includes: one
                                                course_bench_lab() per lab with [[bench]] tables, naming the subjects
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))
from course_grader import manifest  # noqa: E402

FIGURES = Path(__file__).with_name("figures.toml")
FIGURE_KEYS = {"title": str, "x_label": str, "notes": dict, "ncu_size": int}


class PlanError(Exception):
    """figures.toml, the [[bench]] tables together, or a selection that cannot be used; the message says where."""


@dataclasses.dataclass(frozen=True)
class RunKey:  # what one run of one bench program sweeps
    lab: str  # "03"
    subject: str  # "solution" or a variant's stem
    case: str  # "TiledGemmPerf.SpeedupVsNaive"
    size: tuple[tuple[str, int], ...]  # the fixed sizes the table sets (the others: the case's [[perf]] entry)
    vary: tuple[str, ...]  # the size keys set to each value

    def label(self) -> str:
        """A file name: lab03_solution_TiledGemmPerf.SpeedupVsNaive[_cols4096]."""
        return f"lab{self.lab}_{self.subject}_{self.case}" + "".join(f"_{k}{v}" for k, v in self.size)

    def arguments(self, values: tuple[int, ...]) -> list[str]:
        """The bench program's arguments for this sweep at `values` (grader/bench/bench_main.cpp)."""
        args = ["--case", self.case]
        for key, value in self.size:
            args += ["--size", f"{key}={value}"]
        return args + ["--vary", ",".join(self.vary) + "=" + ",".join(str(v) for v in values)]


@dataclasses.dataclass(frozen=True)
class Table:  # one [[bench]] table and its lab
    lab: manifest.Lab
    sweep: manifest.BenchSweep

    def run_key(self, subject: str) -> RunKey:
        return RunKey(
            self.lab.number, subject, self.sweep.case, tuple(sorted(self.sweep.size.items())), self.sweep.vary
        )

    @property
    def graded(self) -> dict[str, int]:
        """The graded size of the case: its [[perf]] entry; {} for a bench-only case."""
        return next((dict(p.size) for p in self.lab.perf if p.test == self.sweep.case), {})


@dataclasses.dataclass(frozen=True)
class Figure:
    name: str  # docs/data/<name>.json
    title: str
    x_label: str | None
    notes: dict[str, str]
    ncu_size: int | None
    tables: tuple[Table, ...]  # labs by number, then file order


def load_figures(path: Path = FIGURES) -> dict[str, dict]:
    """figures.toml: name -> {title, x_label, notes, ncu_size}. Unknown or mistyped keys name the file and key."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise PlanError(f"{path}: cannot read it: {e}") from e
    figures = {}
    for name, table in data.items():
        if not isinstance(table, dict) or "title" not in table:
            raise PlanError(f"{path}: [{name}] must be a table with a title")
        for key, value in table.items():
            kind = FIGURE_KEYS.get(key)
            if kind is None:
                raise PlanError(f"{path}: unknown key '{name}.{key}' (known: {', '.join(FIGURE_KEYS)})")
            if not isinstance(value, kind) or isinstance(value, bool):
                raise PlanError(f"{path}: '{name}.{key}' must be a {kind.__name__}, not {value!r}")
        figures[name] = {
            "title": table["title"],
            "x_label": table.get("x_label"),
            "ncu_size": table.get("ncu_size"),
            "notes": {str(k): str(v) for k, v in table.get("notes", {}).items()},
        }
    return figures


def _selected(table: Table, subjects: set[str]) -> Table | None:
    """The table with only the series of the selected subjects ("01:solution"); None when none is left."""
    if not subjects:
        return table
    series = tuple(s for s in table.sweep.series if f"{table.lab.number}:{s.subject}" in subjects)
    return Table(table.lab, dataclasses.replace(table.sweep, series=series)) if series else None


def plan(
    labs: tuple[manifest.Lab, ...],
    figures_toml: Path = FIGURES,
    figures: tuple[str, ...] = (),
    subjects: tuple[str, ...] = (),
    values: tuple[int, ...] = (),
    size: dict[str, int] | None = None,
) -> tuple[list[Figure], dict[RunKey, tuple[int, ...]]]:
    """The figures to make and the runs they need (each run: its values, ascending).

    figures: only these (default: all); subjects: only the series of these "LAB:SUBJECT" ("01:solution"); values and
    size replace every selected table's values and add to its fixed sizes (a quick run, the smoke test)."""
    known = load_figures(figures_toml)
    tables: dict[str, list[Table]] = {name: [] for name in known}
    for lab in labs:
        for i, sweep in enumerate(lab.bench):
            if sweep.figure not in known:
                raise PlanError(
                    f"{lab.path}: bench[{i}].figure '{sweep.figure}' is not a figure of {figures_toml} "
                    f"(known: {', '.join(known)})"
                )
            tables[sweep.figure].append(Table(lab, sweep))
    unknown = [f for f in figures if f not in known]
    if unknown:
        raise PlanError(f"no figure '{unknown[0]}' in {figures_toml} (known: {', '.join(known)})")
    result, runs = [], {}
    for name, spec in known.items():
        if not tables[name]:
            raise PlanError(f"{figures_toml}: figure '{name}' has no [[bench]] table in any grader/labs/*/lab.toml")
        names = [s.name for t in tables[name] for s in t.sweep.series]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise PlanError(f"figure '{name}': two [[bench.series]] are named '{twice[0]}'")
        if figures and name not in figures:
            continue
        chosen = []
        for table in tables[name]:
            table = _selected(table, set(subjects))
            if table is None:
                continue
            if values or size:
                sweep = table.sweep
                table = Table(
                    table.lab,
                    dataclasses.replace(
                        sweep, values=tuple(values) or sweep.values, size={**sweep.size, **(size or {})}
                    ),
                )
            chosen.append(table)
            for s in table.sweep.series:
                key = table.run_key(s.subject)
                runs[key] = tuple(sorted(set(runs.get(key, ())) | set(table.sweep.values)))
        if chosen:
            result.append(Figure(name, spec["title"], spec["x_label"], spec["notes"], spec["ncu_size"], tuple(chosen)))
    if not result:
        raise PlanError("nothing to run: no [[bench]] series matches the selected figures and subjects")
    return result, runs


def cmake_text(labs: tuple[manifest.Lab, ...]) -> str:
    """course_bench_lab(NN NN_name FILES <lab files> [SOLUTION] [VARIANTS <files>]) per lab with [[bench]] tables."""
    lines = [
        "# Generated by grader/bench/sweeps.py from the [[bench]] tables of grader/labs/*/lab.toml: do not edit.",
        "",
    ]
    for lab in labs:
        used = {s.subject for sweep in lab.bench for s in sweep.series}
        if not used:
            continue
        args = [lab.number, lab.folder, "FILES", *lab.files]
        if "solution" in used:
            args.append("SOLUTION")
        variants = [v for v in lab.variants if Path(v).stem in used]
        if variants:
            args += ["VARIANTS", *variants]
        lines.append(f"course_bench_lab({' '.join(args)})")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cmake", type=Path, required=True, help="write the bench programs' CMake here")
    args = parser.parse_args()
    try:
        labs = manifest.load_labs(ROOT)
        plan(labs)  # every [[bench]] table names a figure of figures.toml, and every figure has its tables
    except (manifest.ManifestError, PlanError) as e:
        print(f"bench: {e}", file=sys.stderr)
        return 1
    text = cmake_text(labs)
    if not args.cmake.is_file() or args.cmake.read_text(encoding="utf-8") != text:
        args.cmake.parent.mkdir(parents=True, exist_ok=True)
        args.cmake.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
