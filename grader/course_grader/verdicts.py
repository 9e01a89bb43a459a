"""What grading one student x lab produces: its verdict (one of VERDICTS), message and points; and the errors that
stop grading because the grader or the machine is at fault, not a submission."""
from __future__ import annotations

import dataclasses
from typing import Callable

# Verdicts, in the order the summary lists them.
VERDICTS = {
    "pass": "correct, performance at or above the threshold",
    "partial": "correct, performance between the baseline and the threshold (partial credit)",
    "slow": "correct, performance below the baseline",
    "correct": "correct; performance not graded here (it is graded on the course GPU)",
    "review": "correct, but measured faster than the hardware allows: held for an instructor's review, no perf credit",
    "wrong": "a correctness test failed",
    "perf-error": "correct, but the perf test failed a check (wrong result after timing, crash, hang)",
    "crash": "a test program, or the process running your code, crashed (illegal address, segfault, abort)",
    "timeout": "a test program ran past the time limit and was killed",
    "build-error": "the lab file does not compile",
    "forbidden": "uses a forbidden library, header or call",
    "rejected": "the submission or the lab file is unusable (size, name, encoding, duplicates)",
    "missing": "the lab file is not in the submission",
    "not-graded": "the grader could not grade it (infrastructure problem: not the student's fault)",
}
PROBLEM_VERDICTS = {
    "review",
    "wrong",
    "perf-error",
    "crash",
    "timeout",
    "build-error",
    "forbidden",
    "rejected",
    "not-graded",
}


@dataclasses.dataclass
class LabResult:
    student: str
    lab: str  # "01"
    verdict: str
    message: str
    correctness: str = "n/a"  # "pass", "fail", "n/a"
    ratio: float | None = None
    threshold: float | None = None
    correctness_score: float = 0.0
    perf_score: float = 0.0
    correctness_max: float = 0.0
    perf_max: float = 0.0
    perf_note: str = ""
    seconds: float = 0.0
    failures: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # failed correctness tests: (name, text)
    # The longest wait for a launcher call's answer, in seconds, by kind of run ("check", "cpu", "gpu", "sanitizer"):
    # what [limits] call deadlines are calibrated from (grader/tools/answer_times.py).
    longest_answer: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def score(self) -> float:
        return round(self.correctness_score + self.perf_score, 2)

    @property
    def max_score(self) -> float:
        return self.correctness_max + self.perf_max

    def rewrite_text(self, rewrite: Callable[[str], str]) -> None:
        """Applies `rewrite` to every text a student reads: the message and the failed tests' names and messages."""
        self.message = rewrite(self.message)
        self.failures = [(rewrite(name), rewrite(text)) for name, text in self.failures]


class BackendGap(Exception):
    """The build failed on a CUDA feature that the CPU backend does not provide (its headers say so: see
    diagnostics.backend_gap): not the student's mistake, so the lab is not-graded, never build-error."""

    def __init__(self, feature: str):
        super().__init__(feature)
        self.feature = feature

    @property
    def message(self) -> str:
        return (
            f"the CPU backend does not support {self.feature}; its check mode builds on every machine (a GPU's too), "
            "so this file is not graded automatically: this is not a mistake in your file, and your instructor will "
            "grade it"
        )


class RuntimeGap(Exception):
    """Check mode stopped a test on a use of a CUDA feature that the CPU backend does not support at run time (its
    finding `unsupported`, e.g. a block cuda::pipeline of part of a block: diagnostics.runtime_gap). On a GPU the
    file is then graded without check mode (the GPU's tests and compute-sanitizer); without a GPU it is not-graded."""

    def __init__(self, program: str, what: str):
        super().__init__(what)
        self.program, self.what = program, what

    @property
    def message(self) -> str:
        return (
            f"{self.program}: {self.what}: a gap of the CPU backend, not a mistake in your file; it is graded on a GPU "
            "(without a GPU it is not graded automatically, and your instructor will grade it)"
        )


class GraderError(Exception):
    """A problem of the grader or the machine (not of a submission): grading stops."""


class GpuUnhealthy(GraderError):
    """The GPU stopped working: the lab being graded is not graded, and neither is any later one on that GPU."""
