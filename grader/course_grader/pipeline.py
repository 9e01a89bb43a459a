"""Grading a class as a pipeline: while one student x lab's tests hold a GPU, the next ones are being built.

    task (student x lab, in class order)
      -> a worker, which owns one build tree    (`jobs` workers; by default three per GPU, or two: default_jobs)
      -> build stage, on the CPU: intake checks, source scan, the sandboxed compile (at build_tree.BUILD_NICE,
         ninja -j its share of the cores: build_jobs), link and symbol checks
      -> run stage: the tests, holding one GPU (GpuSlots: one student x lab per GPU at a time, first come first served)
      -> the worker takes the next task

The two stages are lab_grader.LabGrader.grade, which takes its GPU from `gpu_pool` between them: grading.py makes
that pool this pipeline's GpuSlots. A task keeps its worker's tree from its build to its last test (the programs it
runs live in the tree), so no two builds ever share a tree, and a GPU never runs two students' tests at once: a
perf test times alone on its GPU, as without the pipeline. What overlaps it is the next builds, on the CPU: they run
at a lower priority and leave CORES_PER_RUN cores per GPU to the judge and the worker that are timing.

Errors: a task that raises (a GraderError: the tree does not configure, the sandbox broke) stops the pipeline: no
further task starts, tasks waiting for a GPU are told to stop (runner.Stopped), the running ones finish, and the
first error is raised. ctrl-C (KeyboardInterrupt in the main thread) kills every running program (runner.kill_running)
and is raised once the workers have ended. Verdicts (a build error, a crash, an unhealthy GPU) are results, not
errors. Results come back in task order, whatever order the tasks finished in.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import threading
import time
from pathlib import Path
from typing import Callable, Generic, Sequence, TypeVar

from . import runner

Task = TypeVar("Task")
Tree = TypeVar("Tree")
Result = TypeVar("Result")

CORES_PER_RUN = 2  # a GPU's test run: its judge and its worker each busy a core while they time


def cores() -> int:
    """The cores this process may use (a Slurm task or a container may have fewer than the machine)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_jobs(gpus: int, cores: int) -> int:
    """Workers (and build trees): three per GPU, so that while one's tests hold the GPU the others build or run check
    mode (the CPU backend), as far as the cores give each worker two, else one per GPU. On an H100 with 16 cores a
    realistic class took 26.7 s per six-lab submission with two workers (GPU busy 78 %) and 23.9 s with three (91 %):
    grader/calibration/runs/h100-2026-11-23-throughput-mix*.json. Without a GPU, two where there are two cores:
    building and testing both use the CPU there, but a second worker grades on while the first waits (a hang, process
    and sandbox start-up), which measured 1.2-1.8x the throughput of one on a shared 2-core machine
    (grader/calibration/runs/cpu2-2026-11-23-throughput-*.json)."""
    if gpus == 0:
        return min(2, max(1, cores))
    return max(gpus, min(3 * gpus, cores // 2))


def build_jobs(jobs: int, gpus: int, cores: int) -> int:
    """ninja -j of one worker's build: the cores that the GPUs' test runs leave, shared by the workers."""
    return max(1, (cores - CORES_PER_RUN * gpus) // max(1, jobs))


@dataclasses.dataclass
class Span:
    """When one task did what, in seconds since the pipeline started; the GPU fields stay None without a GPU."""

    task: int
    worker: int
    start: float
    gpu: str | None = None
    gpu_wanted: float | None = None  # its build stage was over: it asked for a GPU
    gpu_start: float | None = None
    gpu_end: float | None = None
    end: float | None = None


class GpuSlots:
    """The GPUs, each lent to one task at a time, in the order the tasks asked. The Queue calls that
    LabGrader.gpu_pool needs: get() waits for a GPU, put() gives it back. After close(), get() raises
    runner.Stopped."""

    def __init__(self, gpus: Sequence[str], line: "Pipeline"):
        self.free = collections.deque(gpus)
        self.waiting: collections.deque[object] = collections.deque()
        self.cond = threading.Condition()
        self.closed = False
        self.line = line

    def get(self) -> str:
        span = self.line.span()
        ticket = object()
        with self.cond:
            if span is not None:
                span.gpu_wanted = self.line.now()
            self.waiting.append(ticket)
            try:
                while not self.closed and not (self.free and self.waiting[0] is ticket):
                    self.cond.wait()
            finally:
                self.waiting.remove(ticket)
                self.cond.notify_all()
            if self.closed:
                raise runner.Stopped("grading is stopping: no GPU is lent any more")
            gpu = self.free.popleft()
            if span is not None:
                span.gpu, span.gpu_start = gpu, self.line.now()
            return gpu

    def put(self, gpu: str) -> None:
        span = self.line.span()
        with self.cond:
            if span is not None and span.gpu == gpu:
                span.gpu_end = self.line.now()
            self.free.append(gpu)
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


class Pipeline(Generic[Task, Tree, Result]):
    def __init__(self, gpus: Sequence[str] = ()):
        self.gpus = tuple(gpus)
        self.slots = GpuSlots(self.gpus, self)
        self.spans: list[Span] = []
        self.wall = 0.0
        self._local = threading.local()
        self._start = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._start

    def span(self) -> Span | None:
        """The span of the task the calling thread is grading."""
        return getattr(self._local, "span", None)

    def run(
        self,
        tasks: Sequence[Task],
        trees: Sequence[Tree],
        grade: Callable[[Task, Tree], Result],
        done: Callable[[Task, Result], None] = lambda task, result: None,
    ) -> list[Result]:
        """grade(task, tree) for every task, one worker thread per tree; done(task, result) after each, in the
        order they finish. The results in task order."""
        self._start = time.monotonic()
        results: list[Result | None] = [None] * len(tasks)
        pending = iter(range(len(tasks)))
        lock = threading.Lock()
        errors: list[BaseException] = []

        def worker(index: int, tree: Tree) -> None:
            while True:
                with lock:
                    i = None if errors else next(pending, None)
                    if i is None:
                        return
                    span = Span(i, index, self.now())
                    self.spans.append(span)
                self._local.span = span
                try:
                    results[i] = grade(tasks[i], tree)
                except BaseException as e:  # raised again by run(), in the main thread
                    with lock:
                        errors.append(e)
                    self.slots.close()
                    return
                finally:
                    span.end, self._local.span = self.now(), None
                done(tasks[i], results[i])

        threads = [
            threading.Thread(target=worker, args=(k, tree), name=f"grader-worker-{k}", daemon=True)
            for k, tree in enumerate(trees[: max(1, len(tasks))])
        ]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except KeyboardInterrupt:
            with lock:
                errors.insert(0, KeyboardInterrupt())
            self.slots.close()
            runner.kill_running()
            try:
                for t in threads:
                    t.join()  # their programs are dead: seconds (a second ctrl-C leaves at once)
            finally:
                runner.kill_running(stop=False)
        self.wall = self.now()
        if errors:
            raise errors[0]
        return results  # type: ignore[return-value]

    def timeline(self, labels: Sequence[str]) -> dict:
        """What each task did when (labels[i] names task i), and how busy each GPU was."""
        busy = {g: 0.0 for g in self.gpus}
        for s in self.spans:
            if s.gpu is not None and s.gpu_start is not None:
                busy[s.gpu] += (s.gpu_end if s.gpu_end is not None else self.wall) - s.gpu_start
        rows = []
        for s in sorted(self.spans, key=lambda s: s.task):
            row = {k: round(v, 3) if isinstance(v, float) else v for k, v in dataclasses.asdict(s).items()}
            rows.append({**row, "task": labels[s.task]})
        return {
            "wall_seconds": round(self.wall, 3),
            "workers": len({s.worker for s in self.spans}),
            "gpu_busy_seconds": {g: round(b, 3) for g, b in busy.items()},
            "tasks": rows,
        }

    def write_timeline(self, path: Path, labels: Sequence[str]) -> None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.timeline(labels), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
