"""A configured and built course tree for the symbol tests, and lab files compiled the way it compiles a student's.

The tree: $COURSE_BUILD_DIR, else the tree of the ctest that runs the tests, else the newest tree under <repo>/build
(or <repo>/build itself) whose grader/targets/labNN.json lists the objects (CourseLab.cmake) and whose lab programs
are all built. A lab file is compiled
by replaying the tree's own commands for the lab's student program (`ninja -t commands`: course-rewrite and g++ on
the CPU backend, nvcc on the GPU, then the link) with the file, its rewritten copy, its object and the executable
moved to a temporary folder: the same compiler, flags, harness and libraries as a grading tree.
"""
import dataclasses
import json
import os
import shlex
import subprocess
from pathlib import Path

from helpers import GRADER

from course_grader import symbols

REPO = GRADER.parent


def _usable(tree: Path) -> bool:
    """Configured with the objects in its targets (CourseLab.cmake) and every lab program built."""
    try:
        data = json.loads((tree / "grader" / "targets" / "lab01.json").read_text())
        programs = [json.loads(p.read_text()) for p in (tree / "grader" / "targets" / "programs").glob("*.json")]
    except (OSError, ValueError):
        return False
    if not data.get("objects") or not programs or not (tree / "build.ninja").is_file():
        return False
    return all(
        p.get("worker") and Path(p["worker"]).is_file() and all(Path(o).is_file() for o in p["objects"])
        for p in programs
    )


def _ctest_tree() -> Path | None:
    """The build tree of the ctest that runs these tests (its working directory), if that is the parent process."""
    try:
        parent = Path(f"/proc/{os.getppid()}")
        if "ctest" not in (parent / "comm").read_text():
            return None
        where = (parent / "cwd").resolve()
    except OSError:
        return None
    return next((d for d in (where, *where.parents) if (d / "CMakeCache.txt").is_file()), None)


def find_tree() -> Path | None:
    """$COURSE_BUILD_DIR, else the tree of the ctest that runs the tests, else the newest usable tree under build/."""
    if os.environ.get("COURSE_BUILD_DIR"):
        tree = Path(os.environ["COURSE_BUILD_DIR"]).resolve()
        return tree if _usable(tree) else None
    tree = _ctest_tree()
    if tree and _usable(tree):
        return tree
    candidates = [REPO / "build", *sorted((REPO / "build").glob("*"))]
    usable = [t for t in candidates if _usable(t)]
    return max(usable, key=lambda t: (t / "grader" / "targets" / "lab01.json").stat().st_mtime, default=None)


def lab_targets(tree: Path, number: str) -> dict:
    return json.loads((tree / "grader" / "targets" / f"lab{number}.json").read_text())


def _source_of(command: str) -> str | None:
    """The lab file that a course-rewrite or compile command reads."""
    words = shlex.split(command.split("&&")[-1])
    if "course-rewrite" in words[0]:
        return words[-2]
    if "-c" in words:
        return words[words.index("-c") + 1]
    return None


def compile_lab_file(tree: Path, number: str, mode: str, source: Path, work: Path) -> symbols.ProgramInputs:
    """Builds `source` as lab `number`'s file in `mode` (check, cpu or gpu) with the tree's commands, in `work`."""
    targets = lab_targets(tree, number)
    exe = Path(targets["workers"][mode])  # the program built from the lab file (its judge holds no student code)
    (obj,) = [Path(o) for o in targets["objects"][mode]]
    obj_rel = os.path.relpath(Path(os.path.normpath(obj)), tree)
    exe_rel = os.path.relpath(exe, tree)
    out = subprocess.run(
        ["ninja", "-C", str(tree), "-t", "commands", exe_rel], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    compile_cmd = next(c for c in out if f" -o {obj_rel}" in c or f"-o {obj_rel} " in c)
    student_src = _source_of(compile_cmd)
    rewrite = [c for c in out if "course-rewrite --mode" in c and c.rstrip().endswith(student_src)]
    if rewrite:  # the CPU backend: compile_cmd reads the rewritten copy of the student's file
        student_src = _source_of(rewrite[0])
    link = next(c for c in out if f" -o {exe_rel} " in c)
    work.mkdir(parents=True, exist_ok=True)
    rewritten = str(_source_of(compile_cmd))
    replace = [
        (student_src, str(source)),
        (rewritten, str(work / "lab.cpp")),
        (obj_rel, str(work / "lab.o")),
        (f" -o {exe_rel} ", f" -o {work / 'program'} "),
    ]
    for command in rewrite + [compile_cmd, link]:
        for old, new in replace:
            command = command.replace(old, new)
        c = subprocess.run(command, shell=True, cwd=tree, capture_output=True, text=True)
        if c.returncode != 0:
            raise RuntimeError(f"{source.name} ({mode}): {command[:200]}...\n{c.stdout}{c.stderr}")
    real = symbols.program_inputs(tree, mode, exe, targets["objects"][mode], targets["baselines"].get(mode, []))
    return dataclasses.replace(real, executable=work / "program", student=(work / "lab.o",))
