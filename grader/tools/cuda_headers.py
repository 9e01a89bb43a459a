#!/usr/bin/env python3
"""Writes the names of a CUDA toolkit's public headers, one per line, as `#include <...>` spells them: the list the
grader reads (grader/course_grader/cuda_headers.txt) to tell a header the CPU backend lacks (a gap of the backend:
`not-graded`) from one that does not exist (the student's `build-error`). Public: the files directly in include/
(cuda_fp16.h, mma.h, ...), those of include/cooperative_groups/, and libcu++'s include/cccl/cuda/<name> and
include/cccl/cuda/std/<name> and include/cccl/nv/<name>; not names that start with "__" (libcu++'s internals) nor the
libraries the course forbids (cub, thrust: the scan refuses them before any build).

  python3 grader/tools/cuda_headers.py /usr/local/cuda/include > grader/course_grader/cuda_headers.txt
"""
from __future__ import annotations

import re
import sys
from pathlib import Path


def public_headers(include: Path) -> list[str]:
    names = [p.name for p in include.iterdir() if p.is_file()]
    for folder, prefix in (
        (include / "cooperative_groups", "cooperative_groups/"),
        (include / "cccl" / "cuda", "cuda/"),
        (include / "cccl" / "cuda" / "std", "cuda/std/"),
        (include / "cccl" / "nv", "nv/"),
    ):
        if folder.is_dir():
            names += [prefix + p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("__")]
    return sorted(set(names))


def toolkit_name(include: Path) -> str:
    """ "CUDA 13.0", from the toolkit's cuda.h."""
    version = re.search(r"#define CUDA_VERSION (\d+)", (include / "cuda.h").read_text(errors="replace"))
    return f"CUDA {int(version.group(1)) // 1000}.{int(version.group(1)) % 1000 // 10}" if version else "a CUDA toolkit"


def write_list(tool: str, what: str, names) -> int:
    """The main() of this tool and of cuda_functions.py: `names(include)` printed under a comment that says
    `what` of which toolkit, and which tool made the list."""
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print(f"usage: {tool} <CUDA toolkit include folder>", file=sys.stderr)
        return 2
    include = Path(sys.argv[1])
    print(f"# {what.format(toolkit_name(include))} (grader/tools/{tool}), one per line.")
    for name in names(include):
        print(name)
    return 0


def main() -> int:
    return write_list("cuda_headers.py", "The public headers of {}", public_headers)


if __name__ == "__main__":
    sys.exit(main())
