"""Grading: one configured build tree per worker, one process per test run, verdicts from GoogleTest JSON only.

Per student x lab: stage the accepted file(s) -> source scan -> copy into the worker's student folder -> build the
lab's targets -> link check -> correctness runs -> (GPU) perf runs with re-measurement near the threshold.
"""
from __future__ import annotations

import dataclasses
import os
import queue
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import intake, runner, scan, scoring
from .config import Course, Lab

# Verdicts, in the order the summary lists them.
VERDICTS = {
    "pass": "correct, performance at or above the threshold",
    "partial": "correct, performance between the baseline and the threshold (partial credit)",
    "slow": "correct, performance below the baseline",
    "correct": "correct; performance not graded here (it is graded on the course GPU)",
    "wrong": "a correctness test failed",
    "perf-error": "correct, but the perf test failed a check (wrong result after timing, crash, hang)",
    "crash": "a test program crashed (illegal address, segfault, abort)",
    "timeout": "a test program ran past the time limit and was killed",
    "build-error": "the lab file does not compile",
    "forbidden": "uses a forbidden library, header or call",
    "rejected": "the submission or the lab file is unusable (size, name, encoding, duplicates)",
    "missing": "the lab file is not in the submission",
    "not-graded": "the grader could not grade it (infrastructure problem: not the student's fault)",
}
PROBLEM_VERDICTS = {"wrong", "perf-error", "crash", "timeout", "build-error", "forbidden", "rejected", "not-graded"}


@dataclasses.dataclass
class LabResult:
    student: str
    lab: str                       # "01"
    verdict: str
    message: str
    correctness: str = "n/a"       # "pass", "fail", "n/a"
    ratio: float | None = None
    threshold: float | None = None
    correctness_score: float = 0.0
    perf_score: float = 0.0
    correctness_max: float = 0.0
    perf_max: float = 0.0
    perf_note: str = ""
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return round(self.correctness_score + self.perf_score, 2)

    @property
    def max_score(self) -> float:
        return self.correctness_max + self.perf_max


@dataclasses.dataclass
class Options:
    backend: str                   # "cpu" or "gpu"
    jobs: int = 1
    seed: str = ""                 # secret COURSE_SEED; random when empty
    gpus: tuple[str, ...] = ()     # GPU indices for the gpu backend
    work: Path | None = None       # build trees and scratch (default <out>/.work)
    quiet: bool = False


class GraderError(Exception):
    """A problem of the grader or the machine (not of a submission): grading stops."""


class GpuUnhealthy(GraderError):
    pass


def detect_gpus() -> tuple[str, ...]:
    if not shutil.which("nvidia-smi"):
        return ()
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if out.returncode != 0:
        return ()
    ids = tuple(m.group(1) for m in re.finditer(r"^GPU (\d+):", out.stdout, re.M))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and ids:
        ids = tuple(v.strip() for v in visible.split(",") if v.strip())
    return ids


# ---- build trees ----------------------------------------------------------------------------------------------------

class BuildTree:
    """One configured CMake build tree with COURSE_STUDENT_DIR = a folder this worker owns. For each student x lab the
    lab's file in that folder is replaced and only the lab's targets are rebuilt; the harness, GoogleTest and the
    CPU backend objects are compiled once per tree and reused."""

    def __init__(self, course: Course, work: Path, index: int, backend: str, labs: tuple[Lab, ...], build_jobs: int):
        self.course, self.backend, self.labs, self.build_jobs = course, backend, labs, build_jobs
        self.dir = work / f"build-{backend}-{index}"
        self.student_dir = work / f"student-{index}"
        self.configured = False
        self.has_check_mode = True  # read from the configured tree's cache

    def targets(self, lab: Lab) -> list[str]:
        """Correctness executables, in the order they run. Check mode (CPU backend, small sizes) runs first where the
        tree has the CPU backend (it needs Boost.Context): it reports races, barrier divergence and out-of-bounds
        accesses that a GPU can hide."""
        last = f"lab{lab.number}_gpu" if self.backend == "gpu" else f"lab{lab.number}_cpu"
        return ([f"lab{lab.number}_check"] if self.has_check_mode else []) + [last]

    def executable(self, target: str) -> Path:
        return self.dir / "grader" / target

    def _reset_lab_sources(self) -> None:
        """Every existing lab's skeleton as a placeholder, so the tree configures whatever a student submitted."""
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
            print(f"grade.py: configuring and building the grading tree {self.dir} (first time: a few minutes; later "
                  "runs reuse it)", file=sys.stderr)
        self._reset_lab_sources()
        cmd = ["cmake", "-S", str(self.course.repo_root), "-B", str(self.dir), "-G", "Ninja",
               "-DCMAKE_BUILD_TYPE=Release", f"-DCOURSE_STUDENT_DIR={self.student_dir}",
               "-DCOURSE_BUILD_SOLUTIONS=OFF", f"-DCOURSE_ENABLE_CUDA={'ON' if self.backend == 'gpu' else 'OFF'}",
               "-DCOURSE_GPU_TESTS=OFF"]
        c = runner.run(cmd, cwd=self.dir.parent, timeout=max(600, self.course.limits.build_seconds),
                       log=self.dir.parent / f"configure-{self.dir.name}.log")
        if c.returncode != 0:
            raise GraderError(f"configuring the grading build tree failed ({runner.describe_exit(c, 600)}):\n"
                              f"{c.output_tail}")
        cache = (self.dir / "CMakeCache.txt").read_text(errors="replace")
        if not re.search(r"^COURSE_BUILD_SOLUTIONS:BOOL=OFF$", cache, re.M):
            raise GraderError("the grading build tree has COURSE_BUILD_SOLUTIONS on")
        self.has_check_mode = re.search(r"^COURSE_CPU_BACKEND_BUILT:INTERNAL=ON$", cache, re.M) is not None
        if not self.has_check_mode:
            if self.backend != "gpu":
                raise GraderError("the CPU backend is not built (Boost.Context missing: sudo apt-get install "
                                  "libboost-context-dev), so nothing can run without a GPU")
            print("grade.py: no CPU backend in this tree (Boost.Context missing): check mode is skipped, the GPU "
                  "tests still run", file=sys.stderr)
        bad = scan.solution_inputs(self.dir, self.course.repo_root / "solutions")
        if bad:
            raise GraderError("the grading build tree compiles reference solutions: " + "; ".join(bad))
        self.configured = True

    def build(self, lab: Lab, files: dict[str, bytes]) -> tuple[bool, str]:
        """Puts the student's files in place and builds the lab's targets. (ok, compiler output tail)."""
        self.configure()
        dest = self.student_dir / lab.folder
        dest.mkdir(parents=True, exist_ok=True)
        stamp = time.time()
        for name, data in files.items():
            target = dest / name
            target.unlink(missing_ok=True)
            target.write_bytes(data)
            os.utime(target, (stamp, stamp))
        # No stale artefact of a previous student may survive a failed build: remove the lab targets' executables
        # and every object / rewritten source made from the lab's file(s) (the baselines' objects are kept), so
        # whatever exists after the build was built from these files.
        stems = {name.rsplit(".", 1)[0] + "." for name in files}
        for t in self.targets(lab):
            self.executable(t).unlink(missing_ok=True)
            for d in (self.dir / "grader" / "CMakeFiles" / f"{t}.dir", self.dir / "grader" / "rewritten" / t):
                if d.is_dir():
                    for f in d.rglob("*"):
                        if f.is_file() and f.name.startswith(tuple(stems)):
                            f.unlink()
        cmd = ["cmake", "--build", str(self.dir), "--target", *self.targets(lab), "-j", str(self.build_jobs)]
        log = self.dir.parent / f"build-{self.dir.name}.log"
        c = runner.run(cmd, cwd=self.dir.parent, timeout=self.course.limits.build_seconds, log=log, tail_bytes=6000)
        if c.timed_out:
            return False, f"the build ran past {self.course.limits.build_seconds:g} s and was stopped"
        ok = c.returncode == 0 and all(self.executable(t).is_file() for t in self.targets(lab))
        return ok, compiler_messages(c.output_tail, self.student_dir)


def compiler_messages(text: str, student_dir: Path) -> str:
    """The compiler's error lines, with the grader's paths removed so they read 'matadd.cu:12: error: ...'."""
    text = text.replace(str(student_dir) + "/", "")
    lines = [l for l in text.splitlines() if re.search(r"\b(error|Error)\b", l) and "ninja: build stopped" not in l]
    lines = [l for l in lines if not l.startswith(("FAILED:", "ninja:"))] or lines
    return "\n".join(lines[:8])[:1500]


# ---- running one lab -------------------------------------------------------------------------------------------------

_THRESHOLD_FAILURE = "below the pass mark"


class LabGrader:
    def __init__(self, course: Course, opts: Options, work: Path, seed: str):
        self.course, self.opts, self.work, self.seed = course, opts, work, seed
        self.gpu_pool: queue.Queue[str] = queue.Queue()
        for g in opts.gpus:
            self.gpu_pool.put(g)
        self.health_exe: Path | None = None
        self.health_lock = threading.Lock()
        self.gpu_broken = ""
        self.baselines = scan.baseline_functions(course.repo_root)

    def env(self, home: Path, gpu: str | None) -> dict[str, str]:
        env = {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
               "COURSE_SEED": self.seed, "TMPDIR": str(home)}
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        return env

    def scrub(self, text: str) -> str:
        return text.replace(self.seed, "<secret>") if self.seed else text

    # -- GPU health: a tiny known-good program, compiled once with nvcc --
    def gpu_healthy(self, gpu: str) -> bool:
        with self.health_lock:
            if self.health_exe is None:
                src = Path(__file__).with_name("gpu_health.cu")
                exe = self.work / "gpu_health"
                c = runner.run(["nvcc", "-o", str(exe), str(src)], cwd=self.work, timeout=300,
                               log=self.work / "gpu_health_build.log")
                if c.returncode != 0:
                    return True  # cannot check: assume healthy rather than stop grading
                self.health_exe = exe
        for attempt in range(3):
            c = runner.run([str(self.health_exe)], cwd=self.work, timeout=60, env=self.env(self.work, gpu),
                           log=self.work / "gpu_health.log")
            if c.returncode == 0:
                return True
            time.sleep(5 * (attempt + 1))
        return False

    def run_tests(self, exe: Path, gtest_filter: str, where: Path, gpu: str | None) -> runner.GTestRun:
        r = runner.run_gtest(exe, gtest_filter, workdir=where, timeout=self.course.limits.test_seconds,
                             env=self.env(where, gpu), max_output_bytes=self.course.limits.max_output_bytes)
        gpu_fault = any("cudaError" in f for c in r.cases for f in c.failures)
        if gpu is not None and (not r.ok or gpu_fault):
            if not self.gpu_healthy(gpu):
                self.gpu_broken = f"GPU {gpu} stopped working after running {exe.name}"
                raise GpuUnhealthy(self.gpu_broken)
        return r

    def grade(self, sub: intake.Submission, lab: Lab, tree: BuildTree) -> LabResult:
        start = time.monotonic()
        res = LabResult(sub.student, lab.number, "not-graded", "", correctness_max=lab.correctness_points,
                        perf_max=lab.performance_points)
        try:
            self._grade(sub, lab, tree, res)
        except GpuUnhealthy as e:
            res.verdict, res.message = "not-graded", f"{e}; re-run the grader for this student"
        for path in (tree.student_dir, self.work):  # the grader's folders mean nothing to a student
            res.message = res.message.replace(f"{path}/", "")
        res.message = self.scrub(res.message)
        res.seconds = time.monotonic() - start
        return res

    def _grade(self, sub: intake.Submission, lab: Lab, tree: BuildTree, res: LabResult) -> None:
        if sub.problem:
            res.verdict, res.message = "rejected", sub.problem
            return
        lf = sub.labs.get(lab.number)
        if lf is None or (lf.problem and lf.problem.startswith("no ")):
            res.verdict, res.message = "missing", lf.problem if lf else "not submitted"
            return
        if lf.problem:
            res.verdict, res.message = "rejected", lf.problem
            return
        intake.stage(sub, lab, self.work / "scratch")
        problems = []
        for name, data in lf.files.items():
            problems += scan.scan_source(name, data.decode("utf-8"), lab, self.course.anticheat, self.baselines)
        if problems:
            res.verdict, res.message = "forbidden", "; ".join(problems[:5])
            return
        ok, log = tree.build(lab, lf.files)
        if not ok:
            res.verdict, res.message = "build-error", log or "the build failed"
            return
        for target in tree.targets(lab):
            bad = scan.forbidden_links(scan.needed_libraries(tree.executable(target)), self.course.anticheat)
            if bad:
                res.verdict, res.message = "forbidden", f"the program links {', '.join(bad)}"
                return

        where = self.work / "runs" / sub.student / lab.name
        gpu = None
        if self.opts.backend == "gpu":
            gpu = self.gpu_pool.get()
        try:
            if self.gpu_broken:
                raise GpuUnhealthy(self.gpu_broken)
            if not self._correctness(tree, lab, where, gpu, res):
                return
            if self.opts.backend != "gpu":
                res.verdict = "correct"
                res.perf_note = "not graded (no GPU): performance is graded on the course GPU"
                res.message = f"all correctness tests passed on the CPU backend; {res.perf_note}"
                return
            self._perf(tree, lab, where, gpu, res)
        finally:
            if gpu is not None:
                self.gpu_pool.put(gpu)

    def _correctness(self, tree: BuildTree, lab: Lab, where: Path, gpu: str | None, res: LabResult) -> bool:
        passed = total = 0
        for target in tree.targets(lab):
            r = self.run_tests(tree.executable(target), "-*Perf.*", where / target,
                               gpu if target.endswith("_gpu") else None)
            if not r.ok:
                res.correctness = "fail"
                res.verdict = "timeout" if r.completed and r.completed.timed_out else "crash"
                detail = _diagnosis(r.completed.output_tail if r.completed else "")
                res.message = f"{target}: {r.problem}" + (f". {detail}" if detail else "")
                return False
            cases = [c for c in r.cases if not c.is_perf]
            failed = [c for c in cases if c.status == "failed"]
            if failed:
                res.correctness = "fail"
                res.verdict = "wrong"
                first = failed[0]
                found = _findings(failed)
                res.message = (f"{len(failed)} of {len(cases)} correctness tests failed ({target})"
                               + (f"; the CPU backend found: {found}" if found else "")
                               + f"; first: {first.full_name}: "
                               + _first_lines(first.failures[0] if first.failures else ''))
                return False
            ran = [c for c in cases if c.status == "passed"]
            if not ran:
                res.verdict, res.message = "not-graded", f"{target}: no correctness test ran (all skipped?)"
                return False
            passed += len(ran)
            total += len(cases)
        res.correctness = "pass"
        res.correctness_score = lab.correctness_points
        res.message = f"{passed} correctness tests passed"
        return True

    def _perf(self, tree: BuildTree, lab: Lab, where: Path, gpu: str | None, res: LabResult) -> None:
        exe = tree.executable(tree.targets(lab)[-1])
        first = self.run_tests(exe, "*Perf.*", where / "perf-0", gpu)
        names = [c.full_name for c in first.cases if c.is_perf]
        if not first.ok or not names:
            res.verdict = "perf-error"
            res.message += "; perf: " + (first.problem or "no perf test ran")
            return
        fractions, notes = [], []
        for name in names:
            def run_once(i: int, name=name) -> scoring.Measurement:
                r = first if i == 0 else self.run_tests(exe, name, where / f"perf-{i}-{name}", gpu)
                return _measurement(r, name)
            v = scoring.measure_perf(run_once, lab.perf_baseline, self.course.remeasure_band,
                                     self.course.remeasure_runs)
            if v.problem:
                res.verdict = "perf-error"
                res.message += f"; {name}: {v.problem}"
                return
            fractions.append(v.fraction)
            if res.ratio is None or v.fraction < scoring.perf_fraction(res.ratio, res.threshold, lab.perf_baseline):
                res.ratio, res.threshold = v.ratio, v.threshold
            runs = "" if len(v.measurements) == 1 else f" (median of {', '.join(f'{m:.3f}' for m in v.measurements)})"
            notes.append(f"{name}: {v.metric or 'ratio'} = {v.ratio:.3f}{runs}, threshold {v.threshold:.3f}"
                         f" on {v.device or 'GPU'}")
        fraction = sum(fractions) / len(fractions)
        res.perf_score = round(lab.performance_points * fraction, 2)
        res.verdict = "pass" if fraction >= 1.0 else "partial" if fraction > 0 else "slow"
        res.message += "; " + "; ".join(notes)


def _measurement(r: runner.GTestRun, name: str) -> scoring.Measurement:
    if not r.ok:
        return scoring.Measurement(None, None, r.problem)
    case = next((c for c in r.cases if c.full_name == name), None)
    if case is None:
        return scoring.Measurement(None, None, "the perf test did not run")
    if case.status == "skipped":
        return scoring.Measurement(None, None, "the perf test was skipped (no timing possible)")
    try:
        ratio, threshold = float(case.properties["ratio"]), float(case.properties["threshold"])
    except (KeyError, ValueError):
        msg = _first_lines(case.failures[0]) if case.failures else "no ratio recorded"
        return scoring.Measurement(None, None, f"failed before measuring: {msg}")
    other = [f for f in case.failures if _THRESHOLD_FAILURE not in f]
    if other:
        return scoring.Measurement(ratio, threshold, f"failed a check during the perf test: {_first_lines(other[0])}")
    return scoring.Measurement(ratio, threshold, "", case.properties.get("metric", ""), case.properties.get("device", ""))


def _findings(failed: list[runner.TestCase]) -> str:
    """The CPU backend's diagnoses ('[race] tiled_gemm.cu:28: ...') over all failed tests: 'race at
    tiled_gemm.cu:28, ...' (from the JSON report's failure messages, which the harness writes)."""
    seen: dict[str, None] = {}
    for case in failed:
        for text in case.failures:
            for category, where in re.findall(r"\[([a-z][a-z-]*)\] (?:\S*/)?([^\s/:]+:\d+):", text):
                seen.setdefault(f"{category} at {where}")
    return ", ".join(list(seen)[:6])


def _first_lines(text: str, n: int = 3) -> str:
    return " | ".join(l.strip() for l in text.strip().splitlines()[:n])[:500]


def _diagnosis(output_tail: str) -> str:
    """The CPU backend's or CUDA's own diagnosis lines from the program output (untrusted: shown, never scored)."""
    keep = [l.strip() for l in output_tail.splitlines()
            if l.startswith("[course-cpu]") or "cudaError" in l or "illegal" in l.lower()]
    return ("program output: " + " ".join(keep[:3]))[:600] if keep else ""


# ---- the whole class -------------------------------------------------------------------------------------------------

class Progress:
    def __init__(self, total: int, quiet: bool):
        self.total, self.done, self.quiet = total, 0, quiet
        self.start = time.monotonic()
        self.lock = threading.Lock()

    def step(self, what: str) -> None:
        with self.lock:
            self.done += 1
            if self.quiet:
                return
            elapsed = time.monotonic() - self.start
            eta = elapsed / self.done * (self.total - self.done)
            line = f"[{self.done}/{self.total}] {what}  elapsed {elapsed:.0f} s, ETA {eta:.0f} s"
            end = "\n" if not sys.stderr.isatty() or self.done == self.total else ""
            sys.stderr.write(("\r\033[K" if sys.stderr.isatty() else "") + line + end)
            sys.stderr.flush()


def grade_all(subs: list[intake.Submission], labs: tuple[Lab, ...], course: Course, opts: Options,
              work: Path) -> list[LabResult]:
    work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work / "scratch", ignore_errors=True)
    shutil.rmtree(work / "runs", ignore_errors=True)
    seed = opts.seed or secrets.token_hex(16)
    grader = LabGrader(course, opts, work, seed)
    tasks = [(s, l) for s in subs for l in labs]
    progress = Progress(len(tasks), opts.quiet)
    jobs = max(1, opts.jobs)
    build_jobs = max(1, (os.cpu_count() or 2) // jobs)
    trees: queue.Queue[BuildTree] = queue.Queue()
    for i in range(jobs):
        trees.put(BuildTree(course, work, i, opts.backend, course.existing_labs(), build_jobs))

    def one(task):
        sub, lab = task
        tree = trees.get()
        try:
            r = grader.grade(sub, lab, tree)
        finally:
            trees.put(tree)
        progress.step(f"{sub.student} lab{lab.number}: {r.verdict}")
        return r

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, tasks))
    return sorted(results, key=lambda r: (r.student, r.lab))
