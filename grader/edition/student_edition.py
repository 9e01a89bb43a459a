#!/usr/bin/env python3
"""Writes the student edition: the course as students receive it, as a folder and a git repository of one commit.

    python3 grader/edition/student_edition.py OUT_DIR [--labs 01,02] [--released 01] [--no-git]

OUT_DIR must not exist or be empty. The edition holds

  README.md, setup.sh                        for students (grader/edition/student_README.md, student_setup.sh)
  CMakeLists.txt, CMakePresets.json, .clang-format, .gitignore
  common/                                    the harness and the CPU backend
  labs/NN_name/                              the skeletons and the handouts
  grader/CMakeLists.txt, grader/cmake/,      what the build reads: configure_labs.py reads the manifests through
  grader/course.toml, grader/course_grader/  manifest.py and catalogue.py (the rest of the grader stays out)
    {__init__,manifest,catalogue}.py
  grader/labs/NN_name/                       each lab's manifest, tests, headers, baselines, CPU reference; not its
                                             catalogue.toml (mutants of the solution) nor variants/ (correct answers)
  docs/, mkdocs.yml                          the student flavour of the site (docs/tools/build_site.py: no
                                             instructor page) and the files its pages include (of any lab: they
                                             are student material), its two tools, mkdocs.yml without those pages

and never solutions/. Without solutions/ the course's CMake builds the labs only (COURSE_BUILD_SOLUTIONS is OFF):
`ctest -R labNN` runs a student's tests, and nothing of the self-test exists. Every file written is then searched
for solution code (solution_code.py: solution files, variants, catalogue mutants, their kernels and the answers in
the solutions' TODO regions); if any is found, the edition is deleted and the findings listed (exit status 1).

--labs writes the edition of an assignment: those labs only (default: all). Hand the labs out in turn: lab 03's
baseline is lab 02's reference solution (the perf test times the tiled GEMM against the best naive one), so an
edition with lab 03 gives lab 02's answer away. --released names labs whose answers may show (their deadline has
passed); the check then leaves them alone. The CI test, test_edition.py (ctest -R course.edition.student), builds
an edition and checks that its skeletons compile and fail.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "grader"))
sys.path.insert(0, str(REPO / "docs" / "tools"))
sys.path.insert(0, str(HERE))
import build_site  # noqa: E402
import solution_code  # noqa: E402
from course_grader import manifest  # noqa: E402

TOP_FILES = ("CMakeLists.txt", "CMakePresets.json", ".clang-format")
TREES = ("common", "grader/cmake")
GRADER_FILES = (
    "grader/CMakeLists.txt",
    "grader/course.toml",
    "grader/course_grader/__init__.py",
    "grader/course_grader/manifest.py",
    "grader/course_grader/catalogue.py",
)
SITE_TOOLS = ("docs/tools/build_site.py", "docs/tools/markdown_links.py")
SKIP_PARTS = {"__pycache__", ".git", "build", "variants"}
SKIP_NAMES = {"catalogue.toml"}
GITIGNORE = "/build/\n__pycache__/\n"
COMMIT_MESSAGE = "Shared memory in CUDA C++: the labs, their tests and the course text"


class EditionError(Exception):
    """The edition cannot be written; the message says why."""


def _tree(folder: Path) -> list[Path]:
    return [
        p.relative_to(REPO)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and not p.is_symlink()
        and not SKIP_PARTS & set(p.relative_to(REPO).parts)
        and p.name not in SKIP_NAMES
        and p.suffix != ".pyc"
    ]


def choose_labs(numbers: str) -> tuple[manifest.Lab, ...]:
    labs = manifest.load_labs(REPO)
    wanted = {n.strip().zfill(2) for n in numbers.split(",") if n.strip()}
    unknown = sorted(wanted - {lab.number for lab in labs})
    if unknown:
        raise EditionError(f"no lab {', '.join(unknown)} in {REPO / 'grader' / 'labs'}")
    return tuple(lab for lab in labs if lab.number in wanted) if wanted else labs


def contents(labs: tuple[manifest.Lab, ...]) -> dict[str, bytes]:
    """{path in the edition: content} for the edition of `labs`."""
    files = [Path(f) for f in TOP_FILES + GRADER_FILES + SITE_TOOLS]
    for top in TREES:
        files += _tree(REPO / top)
    for lab in labs:
        files += _tree(REPO / "labs" / lab.folder) + _tree(lab.dir)
    out = {rel.as_posix(): (REPO / rel).read_bytes() for rel in files}

    # The docs: the student flavour's pages and the files they include (student material: the student flavour
    # allows no other; a lab left out of this edition may have some); its handouts drop out of the nav.
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    left_out = build_site.instructor_pages(config)
    for source in build_site.site_pages(REPO, left_out):
        if source.startswith("docs/") and source != "docs/CMakeLists.txt":  # (the docs' self-test)
            out[source] = (REPO / source).read_bytes()
    for page in [name for name in out if name.endswith(".md")]:
        for spec in build_site.include_specs(out[page].decode("utf-8")):
            path = spec.partition(":")[0]
            if build_site.student_may_include(path) and (REPO / path).is_file():
                out.setdefault(path, (REPO / path).read_bytes())
    handouts = {f"labs/{lab.folder}.md" for lab in labs}
    absent = {page for _, page in build_site.nav_pages(config) if page.startswith("labs/") and page not in handouts}
    out["mkdocs.yml"] = build_site.without_pages(config, left_out | absent).encode()

    out["README.md"] = (HERE / "student_README.md").read_bytes()
    out["setup.sh"] = (HERE / "student_setup.sh").read_bytes()
    out[".gitignore"] = GITIGNORE.encode()
    return out


def write(out_dir: Path, files: dict[str, bytes]) -> None:
    for rel, data in sorted(files.items()):
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        source = REPO / rel
        executable = rel == "setup.sh" or (source.is_file() and source.stat().st_mode & 0o111)
        path.chmod(0o755 if executable else 0o644)


def commit(out_dir: Path, author: str) -> None:
    name, _, email = author.partition(" <")
    git = ["git", "-C", str(out_dir), "-c", f"user.name={name}", "-c", f"user.email={email.rstrip('>')}"]
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", COMMIT_MESSAGE]):
        c = subprocess.run(git + cmd, capture_output=True, text=True)
        if c.returncode != 0:
            raise EditionError(f"git {' '.join(cmd)} failed in {out_dir}: {c.stderr.strip()}")


def make(out_dir: Path, numbers: str = "", released: str = "", git: bool = True, author: str = "") -> list[str]:
    """Writes the edition; returns the labs it holds. Raises EditionError (the edition is then not left behind)."""
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise EditionError(f"{out_dir} exists and is not an empty folder")
    labs = choose_labs(numbers)
    files = contents(labs)
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        write(out_dir, files)
        free = frozenset(n.strip().zfill(2) for n in released.split(",") if n.strip())
        findings = solution_code.scan(out_dir, solution_code.secrets(REPO), free)
        if findings:
            listed = "\n  ".join(f.message() for f in findings)
            raise EditionError(f"solution code in the edition, so it was not written:\n  {listed}")
        if git:
            commit(out_dir, author or "Course staff <course@example.invalid>")
    except BaseException:
        for child in out_dir.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise
    return [lab.number for lab in labs]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", type=Path, help="the folder to write (must not exist, or be empty)")
    p.add_argument("--labs", default="", help="the labs of this edition, e.g. 01,02 (default: all)")
    p.add_argument("--released", default="", help="labs whose answers may show, e.g. 01,02 (their deadline passed)")
    p.add_argument("--no-git", action="store_true", help="a folder only, no git repository")
    p.add_argument("--author", default="", help='the commit\'s author, "Name <email>"')
    args = p.parse_args(argv)
    try:
        numbers = make(args.out.resolve(), args.labs, args.released, not args.no_git, args.author)
    except (EditionError, manifest.ManifestError) as e:
        print(f"student_edition.py: {e}", file=sys.stderr)
        return 1
    what = "a git repository of one commit" if not args.no_git else "a folder"
    print(f"wrote the student edition of labs {', '.join(numbers)} into {args.out} ({what})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
