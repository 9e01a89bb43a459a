#!/usr/bin/env python3
"""Zips the Gradescope autograder bundle: setup.sh and run_autograder at the top, the course sources the CPU
backend needs (never solutions/, build outputs or .git).

    python3 grader/gradescope/make_bundle.py --labs 01 --out build/gradescope-lab01.zip
"""
from __future__ import annotations

import argparse
import stat
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INCLUDE = ["CMakeLists.txt", "CMakePresets.json", "common", "grader", "labs"]
EXCLUDE_PARTS = {"__pycache__", ".git", "build", "solutions", "samples", "tests_py"}


def files() -> list[Path]:
    out = []
    for top in INCLUDE:
        path = REPO / top
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in candidates:
            rel = p.relative_to(REPO)
            if p.is_symlink() or EXCLUDE_PARTS & set(rel.parts):
                continue
            out.append(rel)
    return out


def make(out: Path, labs: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            zf.writestr(info, (REPO / "grader" / "gradescope" / name).read_bytes())
        for rel in files():
            zf.write(REPO / rel, rel.as_posix())
        zf.writestr("grader/gradescope/labs.txt", labs + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--labs", default="", help="lab numbers the assignment grades, e.g. 01 (default: all that exist)")
    p.add_argument("--out", type=Path, default=REPO / "build" / "gradescope-autograder.zip")
    args = p.parse_args(argv)
    path = make(args.out, args.labs)
    print(f"wrote {path}: upload it as the Gradescope autograder (Ubuntu image)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
