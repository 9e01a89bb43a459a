"""Grading one student x lab: stage the accepted file(s) -> source scan -> build the lab's programs in a worker's tree
-> link check -> correctness runs (check mode first, without a GPU) -> on a GPU, one process for the GPU correctness
tests and then the perf tests (without check mode: correctness, compute-sanitizer, perf, each a process) -> perf
measured again alone unless that first result was a clear pass, and again near the threshold.

Verdicts come from GoogleTest's JSON reports only (gtest.py): a correctness test's status, and a perf test's recorded
measurement (result_check, verdict, ratio, threshold). Failure messages and program output are shown to the student
(diagnostics.py) but never decide anything.
"""
from __future__ import annotations

import queue
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from . import diagnostics, gpus, gtest, intake, runner, scan, scoring, symbols
from .build_tree import Program
from .config import Course
from .manifest import Lab
from .verdicts import BackendGap, GpuUnhealthy, LabResult, RuntimeGap

if TYPE_CHECKING:
    from .grading import Options


class Tree(Protocol):
    """What grading needs of a build tree (build_tree.BuildTree; the tests use a fake one)."""

    student_dir: Path

    def build(self, lab: Lab, files: dict[str, bytes]) -> tuple[bool, str]:
        ...

    def programs(self, lab: Lab) -> list[Program]:
        ...


def _close(a: float, b: float) -> bool:
    """Equal up to the rounding of a recorded property (the harness writes 6 decimals)."""
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def measurement(r: gtest.GTestRun, name: str) -> scoring.Measurement:
    """One run of perf test `name`, from what it recorded; `problem` is set when it failed in any way other than
    being slow (crash, hang, no measurement recorded, wrong result after the timed runs, another check failing)."""
    if not r.ok:
        return scoring.Measurement(None, None, r.problem)
    case = r.case(name)
    if case is None:
        return scoring.Measurement(None, None, "the perf test did not run")
    if case.status == "skipped":
        return scoring.Measurement(None, None, "the perf test was skipped (no timing possible)")
    detail = diagnostics.first_failure(case)
    rec, why = gtest.perf_record(case)
    if rec is None:
        if case.status == "failed":
            return scoring.Measurement(None, None, f"failed before measuring: {detail or why}")
        return scoring.Measurement(None, None, f"the perf test {why}")
    if rec.result_check != "pass":
        return scoring.Measurement(
            rec.ratio, rec.threshold, "the result was wrong after the timed runs" + (f": {detail}" if detail else "")
        )
    if (rec.verdict == "pass") != (rec.ratio >= rec.threshold) and not _close(rec.ratio, rec.threshold):
        return scoring.Measurement(
            rec.ratio,
            rec.threshold,
            f"the perf test recorded verdict {rec.verdict} for ratio "
            f"{rec.ratio:g} against threshold {rec.threshold:g}",
        )
    if rec.review:
        return scoring.Measurement(
            rec.ratio,
            rec.threshold,
            review=f"measured {rec.ceiling_fraction or 0:.3f} of {rec.ceiling or 'the ceiling'}, the library a user "
            "would call instead: faster than the hardware allows for this work, so the timing cannot be trusted",
        )
    if case.status == "failed" and rec.verdict == "pass":
        return scoring.Measurement(rec.ratio, rec.threshold, f"failed a check during the perf test: {detail}")
    return scoring.Measurement(
        rec.ratio, rec.threshold, "", rec.metric, rec.device, rec.verdict == "pass", rec.threshold_section
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _unexplained_failure(r: gtest.GTestRun) -> bool:
    """The run crashed, or a test failed other than by a perf test recording that it was slow."""
    if not r.ok:
        return True
    for case in r.cases:
        if case.status == "failed":
            rec, _ = gtest.perf_record(case) if case.is_perf else (None, "")
            if rec is None or rec.result_check != "pass" or rec.verdict != "fail":
                return True
    return False


class Tampered(Exception):
    """Something besides GoogleTest wrote to a test report: the lab is `forbidden`, whatever ran before."""


class LabGrader:
    def __init__(self, course: Course, opts: "Options", work: Path, seed: str):
        self.course, self.opts, self.work, self.seed = course, opts, work, seed
        self.gpu_pool: queue.Queue[str] = queue.Queue()
        for g in opts.gpus:
            self.gpu_pool.put(g)
        self.health = gpus.HealthProbe(course.repo_root, work)
        self.gpu_broken = ""
        self.readable = tuple(lab.path for lab in course.existing_labs())  # test programs read their lab.toml

    def gpu_healthy(self, gpu: str) -> bool:
        return self.health.healthy(gpu)

    def env(self, home: Path, gpu: str | None) -> dict[str, str]:
        env = {
            "PATH": "/usr/local/cuda/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "COURSE_SEED": self.seed,
            "TMPDIR": str(home),
            # the judge's JIT cache (cuBLAS may compile PTX for this GPU): in the grader's work folder, not the run's
            "CUDA_CACHE_PATH": str(self.work / "cuda-cache"),
        }
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpus.gpu_devices(gpu)[1]
        return env

    def scrub(self, text: str) -> str:
        return text.replace(self.seed, "<secret>") if self.seed else text

    def run_tests(
        self,
        program: Program,
        gtest_filter: str,
        where: Path,
        gpu: str | None,
        res: LabResult,
        prefix: tuple[str, ...] = (),
        timeout: float = 0,
    ) -> gtest.GTestRun:
        """One test process, in the sandbox (runner.run_gtest). After a failure on a GPU, the GPU's health is
        checked: a broken GPU is not a student's fault (GpuUnhealthy: not graded). The longest wait for an answer
        goes into `res.longest_answer`."""
        exe = program.path
        kind = "sanitizer" if prefix else program.mode
        r = runner.run_gtest(
            exe,
            gtest_filter,
            worker=program.worker,
            workdir=where,
            timeout=timeout or self.course.limits.test_seconds,
            env=self.env(where, gpu),
            max_output_bytes=self.course.limits.max_output_bytes,
            devices=gpus.gpu_devices(gpu)[0] if gpu is not None else (),
            read_only=self.readable,
            prefix=prefix,
            call_seconds=self.course.limits.call_deadline(kind, gpus.SANITIZER_SLOWDOWN),
            private=(self.course.repo_root / "solutions", self.work),
        )
        waits = [w for w in map(gtest.longest_answer, r.cases) if w is not None]
        if waits and max(waits) > res.longest_answer.get(kind, 0.0):
            res.longest_answer[kind] = max(waits)
        if r.completed is not None and r.completed.tampered:
            raise Tampered(f"{exe.name}: {r.problem}")
        if gpu is not None and _unexplained_failure(r) and not self.gpu_healthy(gpu):
            self.gpu_broken = f"GPU {gpu} stopped working after running {exe.name}"
            raise GpuUnhealthy(self.gpu_broken)
        return r

    def grade(self, sub: intake.Submission, lab: Lab, tree: Tree) -> LabResult:
        start = time.monotonic()
        res = LabResult(
            sub.student,
            lab.number,
            "not-graded",
            "",
            correctness_max=lab.correctness_points,
            perf_max=lab.performance_points,
        )
        try:
            self._grade(sub, lab, tree, res)
        except GpuUnhealthy as e:
            res.verdict, res.message = "not-graded", f"{e}; re-run the grader for this student"
        except Tampered as e:
            res.verdict, res.message, res.correctness = "forbidden", str(e), "fail"
            res.correctness_score = res.perf_score = 0
            res.ratio = res.threshold = None
        roots = {tree.student_dir: diagnostics.STUDENT_FOLDER_AS, self.work: "", self.course.repo_root: ""}
        res.rewrite_text(lambda text: self.scrub(diagnostics.relative_paths(text, roots)))  # repository-relative paths
        res.seconds = time.monotonic() - start
        return res

    def _grade(self, sub: intake.Submission, lab: Lab, tree: Tree, res: LabResult) -> None:
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
            problems += scan.scan_source(name, data.decode("utf-8"), lab, self.course.anticheat)
        if problems:
            res.verdict, res.message = "forbidden", "; ".join(problems[:5])
            return
        try:
            ok, log = tree.build(lab, lf.files)
        except BackendGap as gap:
            res.verdict, res.message = "not-graded", gap.message
            return
        if not ok:
            res.verdict, res.message = "build-error", log or "the build failed"
            return
        programs = tree.programs(lab)
        for p in programs:
            bad = scan.forbidden_links(scan.needed_libraries(p.worker or p.path), self.course.anticheat)
            if bad:
                res.verdict, res.message = "forbidden", f"the program links {', '.join(bad)}"
                return
        verdict = symbols.check_build(tree, lab, [p.mode for p in programs], self.course.symbols)
        if verdict:
            res.verdict, res.message = verdict
            return

        where = self.work / "runs" / sub.student / lab.name
        # The programs that run on the CPU backend (check mode) first, without a GPU: while they run, another
        # student's tests have it. Then the GPU, for the GPU programs, compute-sanitizer and the perf tests.
        check_gap = ""
        try:
            passed = self._correctness([p for p in programs if p.mode != "gpu"], lab, where, None, res)
        except RuntimeGap as gap:
            # Check mode could not run this file. On a GPU the GPU's tests and compute-sanitizer grade it, as in a
            # tree without check mode; elsewhere nothing can.
            if self.opts.backend != "gpu":
                res.verdict, res.correctness, res.correctness_score, res.message = "not-graded", "n/a", 0, gap.message
                return
            passed, check_gap = 0, gap.what
        if passed is None:
            return
        if self.opts.backend != "gpu":
            res.verdict = "correct"
            res.perf_note = "not graded (no GPU): performance is graded on the course GPU"
            res.message = f"all correctness tests passed on the CPU backend; {res.perf_note}"
            return
        gpu = self.gpu_pool.get()
        try:
            if self.gpu_broken:
                raise GpuUnhealthy(self.gpu_broken)
            on_gpu = [p for p in programs if p.mode == "gpu"]
            checked = any(p.mode == "check" for p in programs) and not check_gap
            first = None
            if checked and lab.perf and on_gpu == [programs[-1]]:
                # One process for the GPU correctness tests and then the perf tests (course::register_perf_tests
                # orders them and skips perf after a failure): each process costs two CUDA contexts, the judge's and
                # the worker's. Only when the judge itself did not finish is correctness run alone, to tell which
                # part failed.
                first = self.run_tests(on_gpu[0], "*", where / "gpu", gpu, res)
                if not first.ok:
                    first = None
            more = self._correctness(on_gpu, lab, where, gpu, res, first)
            if more is None:
                return
            res.message = f"{passed + more} correctness tests passed" + (
                f" on the GPU (check mode could not run the file: {check_gap})" if check_gap else ""
            )
            if not checked and not self._sanitize(programs[-1], where, gpu, res):
                return
            self._perf(programs[-1], lab, where, gpu, res, first)
        finally:
            self.gpu_pool.put(gpu)

    def _correctness(
        self,
        programs: list[Program],
        lab: Lab,
        where: Path,
        gpu: str | None,
        res: LabResult,
        done: gtest.GTestRun | None = None,
    ) -> int | None:
        """Runs the correctness tests of `programs` (none: nothing to do); the number that passed, or None when one
        failed (`res` says how). `done`: the one program's run, already made, with its perf tests too."""
        res.correctness_score = 0  # (the points come once every program has passed)
        passed = 0
        for p in programs:
            r = done or self.run_tests(p, "-*Perf.*", where / p.mode, gpu if p.mode == "gpu" else None, res)
            if not r.ok:
                res.correctness = "fail"
                res.verdict = "timeout" if r.completed and r.completed.timed_out else "crash"
                detail = diagnostics.program_output(r.completed.output_tail if r.completed else "")
                res.message = f"{p.name}: {r.problem}" + (f". {detail}" if detail else "")
                return None
            cases = [c for c in r.cases if not c.is_perf]
            failed = [c for c in cases if c.status == "failed"]
            late = [c for c in failed if gtest.call_timeout(c) is not None]
            if late:
                res.correctness, res.verdict = "fail", "timeout"
                res.failures = [(c.full_name, diagnostics.first_failure(c)) for c in late]
                res.message = (
                    f"{p.name}: {late[0].full_name}: a launcher call ran past {gtest.call_timeout(late[0]):g} s "
                    "and was stopped (a kernel or loop that never ends?)"
                )
                return None
            died = [c for c in failed if gtest.worker_died(c)]
            if died:
                res.correctness, res.verdict = "fail", "crash"
                res.failures = [(c.full_name, diagnostics.first_failure(c)) for c in failed]
                detail = diagnostics.program_output(r.completed.output_tail if r.completed else "")
                res.message = (
                    f"{p.name}: {died[0].full_name}: the process running your code ended during a launcher call: "
                    f"{gtest.worker_died(died[0])}" + (f". {detail}" if detail else "")
                )
                return None
            gap = diagnostics.runtime_gap(failed) if failed and p.mode == "check" else ""
            if gap:
                raise RuntimeGap(p.name, gap)
            if failed:
                res.correctness = "fail"
                res.verdict = "wrong"
                res.failures = [(c.full_name, diagnostics.first_failure(c)) for c in failed]
                found = diagnostics.findings(failed)
                res.message = (
                    f"{len(failed)} of {len(cases)} correctness tests failed ({p.name})"
                    + (f"; the CPU backend found: {found}" if found else "")
                    + f"; first: {failed[0].full_name}: {diagnostics.first_failure(failed[0])}"
                )
                return None
            ran = [c for c in cases if c.status == "passed"]
            if not ran:
                res.verdict, res.message = "not-graded", f"{p.name}: no correctness test ran (all skipped?)"
                return None
            passed += len(ran)
        res.correctness = "pass"
        res.correctness_score = lab.correctness_points
        res.message = f"{passed} correctness tests passed"
        return passed

    def _sanitize(self, program: Program, where: Path, gpu: str | None, res: LabResult) -> bool:
        """Without check mode (no CPU backend in the tree) races and out-of-bounds accesses that the GPU hid must be
        looked for by compute-sanitizer (racecheck, memcheck, synccheck); without it either, correctness is
        `not-graded`, never `pass`."""
        tool = gpus.sanitizer()
        if tool is None:
            res.verdict, res.correctness, res.correctness_score = "not-graded", "n/a", 0
            res.message += (
                "; but nothing checked for races and out-of-bounds accesses: install Boost.Context "
                "(sudo apt-get install libboost-context-dev: the CPU backend's check mode) or the CUDA "
                "toolkit's compute-sanitizer, then grade again"
            )
            return False
        timeout = self.course.limits.test_seconds * gpus.SANITIZER_SLOWDOWN
        for name in gpus.SANITIZER_TOOLS:
            folder = where / f"sanitizer-{name}"
            r = self.run_tests(program, "-*Perf.*", folder, gpu, res, gpus.sanitizer_prefix(tool, name), timeout)
            c = r.completed
            if c is None or c.timed_out:
                status, why = "unknown", f"compute-sanitizer --tool {name} ran past {timeout:g} s"
            else:
                status, why = gpus.sanitizer_verdict(_read(folder / "output.log"), c.returncode, name)
            if status != "clean":
                res.correctness_score = 0
                res.verdict, res.correctness = ("wrong", "fail") if status == "errors" else ("not-graded", "n/a")
                res.message += f"; {why}" + (f": {diagnostics.program_output(c.output_tail)}" if c else "")
                return False
        res.message += f"; compute-sanitizer ({', '.join(gpus.SANITIZER_TOOLS)}) found nothing"
        return True

    def _clear_pass(self, r: gtest.GTestRun, lab: Lab) -> bool:
        """Every declared perf test of `r` passed by more than twice the re-measure band. A perf test that ran after
        the correctness tests in one process is trusted only then: on one H100 machine lab 06's fraction of copy
        measured 0.69-0.85 there against 0.83-0.84 alone, and up to 2.4 % higher than alone with the machine's cores
        busy (CALIBRATION.md "One GPU process per lab")."""
        return all(scoring.clear_pass(measurement(r, p.test), self.course.remeasure_band) for p in lab.perf)

    def _perf(
        self, program: Program, lab: Lab, where: Path, gpu: str | None, res: LabResult, first: gtest.GTestRun | None
    ) -> None:
        """The lab's declared perf tests ([[perf]] in its manifest), each measured again near its threshold. `first`:
        their first run, made with the correctness tests: kept when it is a clear pass, else they run again alone."""
        if not lab.perf:
            res.verdict, res.perf_note = "correct", "not graded: the lab declares no perf test"
            res.message += f"; {res.perf_note}"
            return
        stopped = first is not None and any(gtest.call_timeout(c) is not None for c in first.cases if c.is_perf)
        if first is not None and not stopped and not self._clear_pass(first, lab):
            first = None  # measured again in a process of its own (a call past its deadline is a timeout already)
        first = first or self.run_tests(program, ":".join(p.test for p in lab.perf), where / "perf-0", gpu, res)
        if not first.ok:
            res.verdict = "perf-error"
            res.message += f"; perf: {first.problem}"
            return
        late = [c for c in first.cases if c.status == "failed" and gtest.call_timeout(c) is not None]
        if late:
            res.verdict = "timeout"
            res.message += f"; perf: {late[0].full_name}: a launcher call ran past {gtest.call_timeout(late[0]):g} s"
            return
        fractions, passed, notes = [], [], []
        worst = None
        for perf in lab.perf:
            name = perf.test

            def run_once(i: int, name=name) -> scoring.Measurement:
                r = first if i == 0 else self.run_tests(program, name, where / f"perf-{i}-{name}", gpu, res)
                return measurement(r, name)

            v = scoring.measure_perf(
                run_once, lab.perf_baseline, self.course.remeasure_band, self.course.remeasure_runs
            )
            if v.review:
                res.verdict, res.perf_score = "review", 0.0
                res.ratio, res.threshold = v.ratio, v.threshold
                res.perf_note = f"held for an instructor's review: {v.review}"
                res.message += f"; {name}: {res.perf_note}"
                return
            if v.problem:
                res.verdict = "perf-error"
                res.message += f"; {name}: {v.problem}"
                return
            fractions.append(v.fraction)
            passed.append(v.passed)
            if worst is None or v.fraction < worst:
                worst, res.ratio, res.threshold = v.fraction, v.ratio, v.threshold
            runs = "" if len(v.measurements) == 1 else f" (median of {', '.join(f'{m:.3f}' for m in v.measurements)})"
            section = f" [{v.section}]" if v.section else ""
            notes.append(
                f"{name}: {v.metric or perf.key} = {v.ratio:.3f}{runs}, threshold {v.threshold:.3f}"
                f"{section} on {v.device or 'GPU'}"
            )
        fraction = sum(fractions) / len(fractions)
        res.perf_score = round(lab.performance_points * fraction, 2)
        res.verdict = "pass" if all(passed) else "partial" if fraction > 0 else "slow"
        res.message += "; " + "; ".join(notes)
