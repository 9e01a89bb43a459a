"""The grading build trees: one configured CMake tree per worker, whose student folder the worker owns.

For each student x lab the lab's file in that folder is replaced and only the lab's test programs are rebuilt; the
harness, GoogleTest and the CPU backend objects are compiled once per tree and reused. Which programs a lab has, and
where, comes from the tree itself: CMake writes <tree>/grader/targets/labNN.json =
{"lab": "NN", "folder": "NN_name", "executables": {"check": path, "cpu": path, "gpu": path}, "workers": {...}} (the
backends the tree builds; the executables are the judges, the workers hold the student's code:
common/include/course/remote.h); no target name is spelt here.

The build of a student's lab runs in the build sandbox (sandbox.py): it reads the system, the course checkout (its
.git, solutions/, build/, samples, lab variants and catalogues masked) and the worker's student folder, and writes
only the worker's build tree, the work folder's compiler cache and a private /tmp. Configuring the tree compiles no
student code and runs outside it.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import diagnostics, runner, sandbox, scan
from .config import Course
from .manifest import Lab
from .verdicts import BackendGap, GraderError

MODES = ("check", "cpu", "gpu")
BUILD_NICE = 10  # the students' builds run at this CPU priority: they overlap other students' tests (pipeline.py)


@dataclasses.dataclass(frozen=True)
class Program:
    """One test program of a lab: check (CPU backend, instrumented), cpu (CPU backend) or gpu (CUDA). `path` is the
    judge (the tests, no student code), `worker` the program built from the student's file that the judge starts
    (in the sandbox) and sends every launcher call to; None only for stand-ins in the grader's own tests."""

    mode: str
    path: Path
    worker: Path | None = None

    @property
    def name(self) -> str:
        return self.path.name


def read_targets(tree: Path, lab: Lab) -> dict[str, Program]:
    """{mode: Program} from <tree>/grader/targets/labNN.json, checked against the lab's manifest."""
    path = tree / "grader" / "targets" / f"lab{lab.number}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GraderError(f"{path}: cannot read the lab's test programs ({e}); configure the tree again") from e
    exes = data.get("executables") if isinstance(data, dict) else None
    if not isinstance(exes, dict) or data.get("lab") != lab.number or data.get("folder") != lab.folder:
        raise GraderError(
            f'{path}: expected {{"lab": "{lab.number}", "folder": "{lab.folder}", ' '"executables": {...}}'
        )
    workers = data.get("workers", {})
    out = {}
    for mode, exe in exes.items():
        worker = workers.get(mode) if isinstance(workers, dict) else None
        for what, value in (("executables", exe), ("workers", worker)):
            if mode not in MODES or not isinstance(value, str) or not Path(value).is_absolute():
                raise GraderError(
                    f"{path}: {what}.{mode} = {value!r}: expected one of {', '.join(MODES)} with an absolute path"
                )
        out[mode] = Program(mode, Path(exe), Path(worker))
    return out


def _cache_value(cache: str, name: str) -> str | None:
    m = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", cache, re.M)
    return m.group(1) if m else None


class BuildTree:
    def __init__(self, course: Course, work: Path, index: int, backend: str, labs: tuple[Lab, ...], build_jobs: int):
        self.course, self.backend, self.labs, self.build_jobs = course, backend, labs, build_jobs
        self.dir = (work / f"build-{backend}-{index}").resolve()
        self.student_dir = (work / f"student-{index}").resolve()
        self.configured = False
        self.targets: dict[str, dict[str, Program]] = {}  # lab number -> {mode: program}
        self.ninja = "ninja"
        self.ccache = (work / "ccache").resolve()  # CCACHE_DIR of the sandboxed builds (shared by the workers)
        self.tools: tuple[Path, ...] = ()  # installation folders of tools outside /usr (sandbox.py)

    def programs(self, lab: Lab) -> list[Program]:
        """Correctness programs, in the order they run. Check mode (CPU backend, small sizes) runs first where the
        tree has it (it needs Boost.Context): it reports races, barrier divergence and out-of-bounds accesses that a
        GPU can hide. The last one is the backend's own program (on the GPU backend, the one that times)."""
        programs = self.targets[lab.number]
        modes = (["check"] if "check" in programs else []) + [self.backend]
        return [programs[m] for m in modes]

    def _reset_lab_sources(self) -> None:
        """Every lab's skeleton as a placeholder, so the tree configures whatever a student submitted."""
        for lab in self.labs:
            dest = self.student_dir / lab.folder
            dest.mkdir(parents=True, exist_ok=True)
            for name in lab.files:
                src = self.course.repo_root / "labs" / lab.folder / name
                if src.is_file() and not (dest / name).is_file():
                    shutil.copyfile(src, dest / name)

    def configure(self) -> None:
        if self.configured:
            return
        if not (self.dir / "build.ninja").is_file():
            print(
                f"grade.py: configuring and building the grading tree {self.dir} (first time: a few minutes; later "
                "runs reuse it)",
                file=sys.stderr,
            )
        self._reset_lab_sources()
        cmd = [
            "cmake",
            "-S",
            str(self.course.repo_root),
            "-B",
            str(self.dir),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCOURSE_STUDENT_DIR={self.student_dir}",
            "-DCOURSE_BUILD_SOLUTIONS=OFF",
            f"-DCOURSE_ENABLE_CUDA={'ON' if self.backend == 'gpu' else 'OFF'}",
            "-DCOURSE_GPU_TESTS=OFF",
        ]
        timeout = max(600, self.course.limits.build_seconds)
        log = self.dir.parent / f"configure-{self.dir.name}.log"
        c = runner.run(cmd, cwd=self.dir.parent, timeout=timeout, log=log)
        if c.returncode != 0:
            raise GraderError(
                f"configuring the grading build tree failed ({runner.describe_exit(c, timeout)}):\n" f"{c.output_tail}"
            )
        cache = (self.dir / "CMakeCache.txt").read_text(errors="replace")
        if _cache_value(cache, "COURSE_BUILD_SOLUTIONS") != "OFF":
            raise GraderError("the grading build tree has COURSE_BUILD_SOLUTIONS on")
        self.ninja = _cache_value(cache, "CMAKE_MAKE_PROGRAM") or "ninja"
        self.targets = {lab.number: read_targets(self.dir, lab) for lab in self.labs}
        lacking = [lab.name for lab in self.labs if self.backend not in self.targets[lab.number]]
        if lacking and self.backend == "cpu":
            raise GraderError(
                "the CPU backend is not built (Boost.Context missing: sudo apt-get install "
                "libboost-context-dev), so nothing can run without a GPU"
            )
        if lacking:
            raise GraderError(f"the grading build tree has no GPU program for {', '.join(lacking)} (CUDA not found)")
        if any("check" not in t for t in self.targets.values()):
            print(
                "grade.py: no CPU backend in this tree (Boost.Context missing: sudo apt-get install "
                "libboost-context-dev), so no check mode: races and out-of-bounds accesses are looked for with "
                "compute-sanitizer, and without it correctness is not graded",
                file=sys.stderr,
            )
        bad = scan.solution_inputs(self.dir, self.course.repo_root / "solutions")
        if bad:
            raise GraderError("the grading build tree compiles reference solutions: " + "; ".join(bad))
        compilers = [_cache_value(cache, f"CMAKE_{lang}_COMPILER") or "" for lang in ("C", "CXX", "CUDA")]
        self.tools = sandbox.tool_roots([self.ninja, *compilers, _cache_value(cache, "COURSE_CCACHE") or ""])
        self.configured = True

    def _hidden(self) -> tuple[list[Path], list[Path]]:
        """What the build sandbox masks in the course checkout: nothing a compile needs, much a student must not
        read. (hidden: the git history, other students' files and results; made unreadable, their names kept for
        CMake's globs: every folder of working kernels a lab file could include or copy at compile time: the
        solutions, the labs' solution variants and catalogues, the samples, the idioms, the adversarial suite and
        the bench's own kernels.)"""
        repo = self.course.repo_root.resolve()
        work = self.dir.parent
        hidden = [repo / ".git", repo / "build"] + ([work] if repo in work.parents else [])
        kernels = ["solutions", "grader/samples", "grader/idioms", "grader/adversarial", "grader/bench/cases"]
        blank = [repo / k for k in kernels] + sorted(repo.glob("grader/labs/*/variants"))
        return hidden, blank + sorted(repo.glob("grader/labs/*/catalogue.toml"))

    def _box(self) -> sandbox.Box:
        env = {
            "PATH": "/usr/local/cuda/bin:/usr/bin:/bin",
            "HOME": "/tmp",
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
            "CCACHE_DIR": str(self.ccache),
        }
        box = sandbox.Box(cwd=self.dir, env=env, limits=sandbox.build_limits(self.course.limits.build_seconds))
        box.add("tmp", "/tmp", size=sandbox.BUILD_TMP_BYTES)  # first: the host's /tmp may hold the paths below
        hidden, blank = self._hidden()
        box.add("ro", self.course.repo_root.resolve(), *self.tools).add("hide", *hidden).add("blank", *blank)
        return box.add("ro", self.student_dir).add("rw", self.dir, self.ccache)

    def _built_from(self, sources: list[Path]) -> list[Path]:
        """Every file of the tree that the build made from `sources` (rewritten sources, objects, executables), as
        the build graph says (ninja -t query, followed output to output)."""
        seen: set[str] = set()
        found: list[Path] = []
        frontier = [str(s) for s in sources]
        for _ in range(8):  # source -> rewritten source -> object -> executable: a few steps
            if not frontier:
                break
            try:
                c = subprocess.run(
                    [self.ninja, "-C", str(self.dir), "-t", "query", *frontier],
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=120,
                )
            except (OSError, subprocess.TimeoutExpired):
                break
            if c.returncode != 0:
                break
            frontier = []
            for out in _query_outputs(c.stdout):
                path = Path(out) if os.path.isabs(out) else self.dir / out
                if out in seen or self.dir not in path.parents or not path.is_file():
                    continue  # phony targets, files outside the tree, artefacts not built yet
                seen.add(out)
                if path not in found:  # ninja names some files both relative to the tree and absolute
                    found.append(path)
                frontier.append(out)
        return found

    def build(self, lab: Lab, files: dict[str, bytes]) -> tuple[bool, str]:
        """Puts the student's files in place and builds the lab's programs. (ok, compiler output tail). Raises
        BackendGap when the build failed on a feature the CPU backend lacks (an error in its headers says so)."""
        self.configure()
        dest = self.student_dir / lab.folder
        dest.mkdir(parents=True, exist_ok=True)
        stamp = time.time()
        dest.chmod(0o755)  # the build sandbox's user reads it
        for name, data in files.items():
            target = dest / name
            target.unlink(missing_ok=True)
            target.write_bytes(data)
            target.chmod(0o644)
            os.utime(target, (stamp, stamp))
        # No artefact of a previous student may survive a failed build: the lab's executables and everything made
        # from the lab's file(s) are removed, so whatever exists after the build was built from these files.
        programs = self.programs(lab)
        built = [x for p in programs for x in (p.path, p.worker) if x is not None]
        for x in built:
            if x in [p.worker for p in programs]:
                x.unlink(missing_ok=True)  # (a judge holds no student code: it survives)
        for path in self._built_from([dest / name for name in files]):
            path.unlink(missing_ok=True)
        try:
            outputs = [str(x.resolve().relative_to(self.dir)) for x in built]
        except ValueError as e:
            raise GraderError(f"a test program of {lab.name} is outside the build tree {self.dir}: {e}") from e
        # CMake re-runs (a file of the course appeared since configure) outside the sandbox, which masks solutions
        log = self.dir.parent / f"regenerate-{self.dir.name}.log"
        c = runner.run([self.ninja, "-C", str(self.dir), "build.ninja"], cwd=self.dir.parent, timeout=600, log=log)
        if c.returncode != 0:
            raise GraderError(f"regenerating the grading build tree failed ({log}):\n{c.output_tail}")
        nice = ["nice", "-n", str(BUILD_NICE)] if shutil.which("nice") else []  # a GPU's timed tests come first
        cmd = [*nice, self.ninja, "-C", str(self.dir), "-j", str(self.build_jobs), *outputs]
        log = self.dir.parent / f"build-{self.dir.name}.log"
        for folder in (self.dir, self.ccache):
            sandbox.give_to_sandbox(folder)  # (the grader's own ninja queries may have written to the tree)
        c = runner.run_sandboxed(
            cmd, self._box(), cwd=self.dir.parent, timeout=self.course.limits.build_seconds, log=log, tail_bytes=6000
        )
        if c.timed_out:
            return False, f"the build ran past {self.course.limits.build_seconds:g} s and was stopped"
        ok = c.returncode == 0 and all(x.is_file() for x in built)
        if not ok:
            try:
                whole = log.read_text(encoding="utf-8", errors="replace")
            except OSError:
                whole = c.output_tail
            gap = (
                diagnostics.backend_gap(whole, self.course.repo_root / "common" / "cpu" / "include")
                or diagnostics.missing_cuda_header(whole)
                or diagnostics.missing_cuda_function(whole)
            )
            # a #line directive can place a student's own error in the backend's headers: then it is the student's
            forged = any(scan.line_directives(data.decode("utf-8", "replace")) for data in files.values())
            if gap and not forged:
                raise BackendGap(gap)
        return ok, diagnostics.compiler_messages(c.output_tail, self.student_dir)


def _query_outputs(text: str) -> list[str]:
    """The 'outputs:' entries of `ninja -t query` output."""
    outs, section = [], ""
    for line in text.splitlines():
        if not line.startswith(" "):
            section = ""  # "<path>:" starts the next queried node
        elif line.startswith("    ") and section == "outputs":
            outs.append(line.strip())
        elif line.startswith("  ") and not line.startswith("   "):
            section = line.strip().split(":", 1)[0]  # "input: RULE" or "outputs:"
    return outs
