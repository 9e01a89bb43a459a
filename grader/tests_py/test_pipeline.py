"""The grading pipeline (pipeline.py): builds overlap GPU runs, one task per GPU and per tree at a time, results in
task order, errors and ctrl-C stop it; and grade_all gives the same results whatever the number of workers."""
import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import unittest
from unittest import mock

from helpers import LAB01, TempDirTest
from test_grading import COURSE_FAST, FakeTree, submission

from course_grader import grading, lab_grader, pipeline, runner, sandbox
from course_grader.verdicts import GraderError


class Recorder:
    """A grade() for Pipeline.run that 'builds' (sleeps) then 'runs' holding a GPU slot, and checks as it goes that no
    tree and no GPU is used by two tasks at once."""

    def __init__(self, line, build=0.02, run=0.02, fail_at=None):
        self.line, self.build, self.run, self.fail_at = line, build, run, fail_at
        self.lock = threading.Lock()
        self.trees_busy, self.gpus_busy = set(), set()
        self.events, self.started = [], []
        self.clash = ""

    def _enter(self, busy, what, key):
        with self.lock:
            if key in busy:
                self.clash = f"{what} {key} used by two tasks at once"
            busy.add(key)

    def __call__(self, task, tree):
        with self.lock:
            self.started.append(task)
        self._enter(self.trees_busy, "tree", tree)
        try:
            time.sleep(self.build() if callable(self.build) else self.build)
            if task == self.fail_at:
                raise GraderError(f"task {task}: the tree does not configure")
            with self.lock:
                self.events.append(("built", task, time.monotonic()))
            gpu = self.line.slots.get()
            self._enter(self.gpus_busy, "GPU", gpu)
            with self.lock:
                self.events.append(("run", task, time.monotonic()))
            time.sleep(self.run)
            with self.lock:
                self.gpus_busy.discard(gpu)
            self.line.slots.put(gpu)
            return f"result {task}"
        finally:
            with self.lock:
                self.trees_busy.discard(tree)


class Ordering(unittest.TestCase):
    def test_results_in_task_order_whatever_order_they_finish_in(self):
        line = pipeline.Pipeline(["0"])
        rng = random.Random(7)
        rec = Recorder(line, build=lambda: rng.uniform(0, 0.03), run=0.001)
        finished = []
        results = line.run(list(range(20)), ["t0", "t1", "t2"], rec, lambda task, r: finished.append(task))
        self.assertEqual(results, [f"result {i}" for i in range(20)])
        self.assertEqual(sorted(finished), list(range(20)))
        self.assertNotEqual(finished, sorted(finished), "the tasks should have finished out of order")
        self.assertEqual(rec.clash, "")

    def test_builds_overlap_runs_but_a_gpu_and_a_tree_serve_one_task_at_a_time(self):
        line = pipeline.Pipeline(["0"])
        rec = Recorder(line, build=0.05, run=0.05)
        start = time.monotonic()
        line.run(list(range(8)), ["t0", "t1"], rec)
        wall = time.monotonic() - start
        self.assertEqual(rec.clash, "")
        # serially 8 x (0.05 + 0.05) = 0.8 s; a pipeline of two trees takes about 8 x 0.05 + 0.05 = 0.45 s
        self.assertLess(wall, 0.7)
        spans = sorted(line.spans, key=lambda s: s.gpu_start)
        for a, b in zip(spans, spans[1:]):
            self.assertLessEqual(a.gpu_end, b.gpu_start, "two tasks held the GPU at once")
        overlapped = [
            s
            for s in spans
            if any(o.task != s.task and o.start < s.gpu_end and o.gpu_wanted > s.gpu_start for o in spans)
        ]
        self.assertTrue(overlapped, "no build ran while another task held the GPU")
        timeline = line.timeline([f"task {i}" for i in range(8)])
        self.assertEqual([t["task"] for t in timeline["tasks"]], [f"task {i}" for i in range(8)])
        self.assertAlmostEqual(timeline["gpu_busy_seconds"]["0"], 8 * 0.05, delta=0.1)

    def test_gpus_are_lent_first_come_first_served(self):
        line = pipeline.Pipeline(["0"])
        held = line.slots.get()
        order, threads = [], []
        for k in range(4):

            def ask(k=k):
                gpu = line.slots.get()
                order.append(k)
                line.slots.put(gpu)

            threads.append(threading.Thread(target=ask))
            threads[-1].start()
            while len(line.slots.waiting) < k + 1:  # k asks only after k - 1 waits
                time.sleep(0.001)
        line.slots.put(held)
        for t in threads:
            t.join(5)
        self.assertEqual(order, [0, 1, 2, 3])

    def test_two_gpus_two_runs_at_once(self):
        line = pipeline.Pipeline(["0", "1"])
        rec = Recorder(line, build=0.0, run=0.05)
        line.run(list(range(4)), ["a", "b", "c", "d"], rec)
        self.assertEqual(rec.clash, "")
        self.assertEqual({s.gpu for s in line.spans}, {"0", "1"})

    def test_defaults(self):
        self.assertEqual(pipeline.default_jobs(0, 2), 2)
        self.assertEqual(pipeline.default_jobs(0, 1), 1)
        self.assertEqual(pipeline.default_jobs(1, 16), 3)
        self.assertEqual(pipeline.default_jobs(1, 4), 2)
        self.assertEqual(pipeline.default_jobs(1, 2), 1)  # no core to spare for a second build
        self.assertEqual(pipeline.default_jobs(8, 16), 8)
        self.assertEqual(pipeline.build_jobs(2, 1, 16), 7)  # 2 cores for the run, 14 for two builds
        self.assertEqual(pipeline.build_jobs(1, 0, 2), 2)
        self.assertEqual(pipeline.build_jobs(4, 2, 2), 1)


class Errors(unittest.TestCase):
    def test_an_error_stops_the_pipeline_and_is_raised(self):
        line = pipeline.Pipeline(["0"])
        rec = Recorder(line, build=0.01, run=0.05, fail_at=3)
        with self.assertRaisesRegex(GraderError, "task 3"):
            line.run(list(range(30)), ["t0", "t1"], rec)
        self.assertLessEqual(max(rec.started), 5, "tasks went on starting after the error")
        self.assertEqual(rec.clash, "")
        with self.assertRaises(runner.Stopped):  # the GPU is lent no more
            line.slots.get()

    def test_a_task_waiting_for_the_gpu_is_stopped_by_an_error(self):
        line = pipeline.Pipeline(["0"])
        held = line.slots.get()  # nobody gets the GPU: task 0 waits for it until task 1 fails

        def grade(task, tree):
            if task == 1:
                while not line.slots.waiting:
                    time.sleep(0.001)
                raise GraderError("the sandbox broke")
            line.slots.get()
            return task

        with self.assertRaisesRegex(GraderError, "sandbox"):
            line.run([0, 1], ["t0", "t1"], grade)
        line.slots.put(held)


class Interrupt(TempDirTest):
    def test_ctrl_c_kills_the_running_programs_and_starts_no_more(self):
        started = []

        def grade(task, tree):
            started.append(task)
            c = runner.run(["sleep", "60"], cwd=self.tmp / str(task), timeout=120)
            return c.returncode

        line = pipeline.Pipeline()
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        start = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            line.run(list(range(10)), ["t0", "t1"], grade)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(sorted(started), [0, 1])
        alive = subprocess.run(["pgrep", "-f", "^sleep 60$", "-P", str(os.getpid())], capture_output=True)
        self.assertEqual(alive.stdout, b"")
        c = runner.run([sys.executable, "-c", "pass"], cwd=self.tmp / "after", timeout=30)  # runs again afterwards
        self.assertEqual(c.returncode, 0)

    def test_a_program_started_while_stopping_is_refused(self):
        runner.kill_running()
        try:
            with self.assertRaises(runner.Stopped):
                runner.run(["true"], cwd=self.tmp, timeout=10)
        finally:
            runner.kill_running(stop=False)


def _comparable(results):
    return [dataclasses.replace(r, seconds=0) for r in results]


class GradeAll(TempDirTest):
    """grade_all through the pipeline, with the fake trees of test_grading (scripts instead of programs)."""

    SPECS = [{}, {"correct": "wrong"}, {"perf": [0.2]}, {"correct": "crash"}, {"build": "fail"}, {"perf": [0.525]}]

    def setUp(self):
        super().setUp()
        self._policy = sandbox.use(sandbox.Policy(False))

    def tearDown(self):
        sandbox.use(self._policy)
        super().tearDown()

    def grade(self, jobs, backend="gpu"):
        work = self.tmp / f"work-{jobs}-{backend}"

        def tree(course, work, index, backend, labs, build_jobs):
            (work / f"fake-{index}").mkdir(parents=True, exist_ok=True)
            return FakeTree(work / f"fake-{index}", backend)

        subs = [submission(spec, name=f"s{i}") for i, spec in enumerate(self.SPECS)]
        opts = grading.Options(
            backend=backend, jobs=jobs, seed="SEED", gpus=("0",) if backend == "gpu" else (), quiet=True
        )
        with mock.patch.object(grading, "BuildTree", tree), mock.patch.object(
            lab_grader.LabGrader, "gpu_healthy", lambda self, gpu: True
        ):
            results = grading.grade_all(subs, (LAB01,), dataclasses.replace(COURSE_FAST), opts, work)
        return results, json.loads((work / "timeline.json").read_text())

    def test_same_results_in_the_same_order_with_one_or_three_workers(self):
        one, _ = self.grade(1)
        three, timeline = self.grade(3)
        self.assertEqual(_comparable(one), _comparable(three))
        self.assertEqual([r.verdict for r in one], ["pass", "wrong", "slow", "crash", "build-error", "partial"])
        self.assertEqual(timeline["workers"], 3)
        runs = sorted((t["gpu_start"], t["gpu_end"]) for t in timeline["tasks"] if t["gpu"] is not None)
        # the GPU is held only after check mode passed: not by the build error, nor by the two that check mode failed
        self.assertEqual(len(runs), 3)
        for a, b in zip(runs, runs[1:]):
            self.assertLessEqual(a[1], b[0])

    def test_cpu_backend_too(self):
        one, _ = self.grade(1, "cpu")
        two, timeline = self.grade(2, "cpu")
        self.assertEqual(_comparable(one), _comparable(two))
        self.assertEqual(timeline["gpu_busy_seconds"], {})


if __name__ == "__main__":
    unittest.main()
