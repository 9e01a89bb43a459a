#!/usr/bin/env python3
"""Zips the Gradescope autograder bundle: setup.sh and run_autograder at the top, and what configuring the grading
tree and grading an upload on the CPU backend need, nothing more:

  CMakeLists.txt, common/                    the top-level CMake, the harness and the CPU backend
  grader/CMakeLists.txt, grader/cmake/       configure_labs.py, CourseLab.cmake and what they read
  grader/course_grader/, grader/course.toml  the grader
  grader/labs/NN_name/                       per graded lab: manifest, tests, headers, baselines, CPU reference;
                                             not catalogue.toml (mutants of the solution) nor variants/ (correct
                                             answers): only the self-test builds them
  labs/NN_name/<lab files>                   the skeletons, placeholders while the tree is configured and prebuilt
  third_party/tomlplusplus/                  the toml++ 3 headers of this machine, for images whose apt has none
                                             (Ubuntu 22.04); setup.sh installs them only there
  grader/gradescope/labs.txt                 the labs this assignment grades

Never solutions/, docs/, the samples, the grader's tests, build outputs or .git. Without solutions/ the course's
CMake has no self-test (COURSE_BUILD_SOLUTIONS is OFF), so it reads nothing else. The bundle's CI test
(test_gradescope.FromAnEmptyFolder, ctest -R course.grader.gradescope) unzips it into an empty folder and grades
from there.

    python3 grader/gradescope/make_bundle.py --labs 01 --out build/gradescope-lab01.zip
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "grader"))
from course_grader import manifest  # noqa: E402

# Folders taken whole (less SKIP) and single files, relative to the repository.
TREES = ("common", "grader/cmake", "grader/course_grader")
FILES = ("CMakeLists.txt", "grader/CMakeLists.txt", "grader/course.toml")
SKIP_PARTS = {"__pycache__", ".git", "build", "variants"}
SKIP_NAMES = {"catalogue.toml"}
SKIP_SUFFIXES = {".pyc"}
# Where the toml++ headers (the folder holding toml++/) and their licence are looked for, first found wins.
TOMLPP_INCLUDE_DIRS = (Path("/usr/include"), Path("/usr/local/include"))
TOMLPP_LICENCES = (Path("/usr/share/doc/libtomlplusplus-dev/copyright"), Path("/usr/share/doc/tomlplusplus/copyright"))


class BundleError(Exception):
    """Something the bundle needs is missing; the message says what to do."""


def _tree(folder: Path) -> list[Path]:
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(REPO)
        if not p.is_file() or p.is_symlink() or SKIP_PARTS & set(rel.parts):
            continue
        if p.name in SKIP_NAMES or p.suffix in SKIP_SUFFIXES:
            continue
        out.append(rel)
    return out


def graded_labs(numbers: str) -> tuple[manifest.Lab, ...]:
    labs = manifest.load_labs(REPO)
    if not numbers:
        return labs
    wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()}
    unknown = sorted(wanted - {lab.number for lab in labs})
    if unknown:
        raise BundleError(f"no lab {', '.join(unknown)} in {REPO / 'grader' / 'labs'}")
    return tuple(lab for lab in labs if lab.number in wanted)


def course_files(labs: tuple[manifest.Lab, ...]) -> list[Path]:
    """The repository files the bundle holds (relative paths)."""
    out = [Path(f) for f in FILES]
    for top in TREES:
        out += _tree(REPO / top)
    for lab in labs:
        out += _tree(lab.dir)
        out += [Path("labs") / lab.folder / name for name in lab.files]
    return out


def tomlpp_files(include_dir: Path | None) -> dict[str, Path]:
    """{path in the bundle: file on this machine} for the toml++ headers and their licence."""
    # Where the course's own build finds it too: CMAKE_PREFIX_PATH's include folders (e.g. a carried .deps/).
    prefixes = [Path(p) / "include" for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(":") if p]
    candidates = [include_dir] if include_dir else prefixes + list(TOMLPP_INCLUDE_DIRS)
    for folder in candidates:
        headers = folder / "toml++"
        if (headers / "toml.hpp").is_file() or (headers / "toml.h").is_file():
            break
    else:
        raise BundleError(
            "no toml++ headers found (looked for toml++/toml.h or toml.hpp in "
            f"{', '.join(str(c) for c in candidates)}): install libtomlplusplus-dev or pass --tomlplusplus DIR, the "
            "folder that holds toml++/ (Ubuntu 22.04 images need the bundle's copy)"
        )
    out = {f"third_party/tomlplusplus/include/{p.relative_to(folder).as_posix()}": p for p in headers.rglob("*")}
    out = {k: v for k, v in sorted(out.items()) if v.is_file()}
    for licence in TOMLPP_LICENCES + (folder.parent / "LICENSE",):
        if licence.is_file():
            out["third_party/tomlplusplus/LICENSE"] = licence
            break
    return out


def _add(zf: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # fixed: the same sources make the same zip
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def make(out: Path, numbers: str, tomlpp_include: Path | None = None) -> Path:
    labs = graded_labs(numbers)
    extra = tomlpp_files(tomlpp_include)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as zf:
        for name in ("setup.sh", "run_autograder"):
            _add(zf, name, (REPO / "grader" / "gradescope" / name).read_bytes(), executable=True)
        for rel in course_files(labs):
            _add(zf, rel.as_posix(), (REPO / rel).read_bytes(), executable=bool((REPO / rel).stat().st_mode & 0o111))
        for name, path in extra.items():
            _add(zf, name, path.read_bytes())
        _add(zf, "grader/gradescope/labs.txt", (numbers + "\n").encode())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--labs", default="", help="lab numbers the assignment grades, e.g. 01 (default: all that exist)")
    p.add_argument("--out", type=Path, default=REPO / "build" / "gradescope-autograder.zip")
    p.add_argument(
        "--tomlplusplus", type=Path, help="the folder holding toml++/ (default: /usr/include, /usr/local/include)"
    )
    args = p.parse_args(argv)
    try:
        path = make(args.out, args.labs, args.tomlplusplus)
    except (BundleError, manifest.ManifestError) as e:
        print(f"make_bundle.py: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}: upload it as the Gradescope autograder (base image Ubuntu 22.04 or 24.04)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
