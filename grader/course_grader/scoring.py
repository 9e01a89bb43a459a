"""The scoring formula and the noise-aware perf verdict (pure functions; the runner is passed in).

Correctness: all-or-nothing per lab. Every correctness test (suites not ending in 'Perf') of every backend run must
pass, else 0 correctness points and 0 performance points.
Performance (GPU only, and only for a correct lab), with r the measured ratio, b the lab's perf_baseline and t
the threshold the harness used (both from the lab's manifest, grader/labs/NN_name/lab.toml; r and t are recorded in
the perf test's report, with its verdict r >= t):
    r >= t       -> all performance points
    b <= r < t   -> performance points * (r - b) / (t - b)      (linear partial credit)
    r < b        -> 0
A ratio within remeasure_band (3 %) of t, relative to t, is measured again remeasure_runs more times; the verdict
uses the median of all measurements; a ratio measured once keeps the verdict its test recorded. Scores are rounded
to 2 decimals.
"""
from __future__ import annotations

import dataclasses
import statistics
from typing import Callable


def perf_fraction(ratio: float, threshold: float, baseline: float) -> float:
    """Fraction of the performance points (0..1) earned by `ratio`."""
    if ratio != ratio:  # NaN
        return 0.0
    if ratio >= threshold:
        return 1.0
    if threshold <= baseline or ratio < baseline:
        return 0.0
    return (ratio - baseline) / (threshold - baseline)


# A ratio that did not pass earns less than all the points, even where its rounding reaches the threshold.
_BELOW_PASS = 0.999


def perf_points(ratio: float, threshold: float, baseline: float, points: float) -> float:
    return round(points * perf_fraction(ratio, threshold, baseline), 2)


def near_threshold(ratio: float, threshold: float, band: float) -> bool:
    return threshold > 0 and abs(ratio - threshold) <= band * threshold


@dataclasses.dataclass
class Measurement:
    ratio: float | None  # None: the perf run produced no ratio
    threshold: float | None
    problem: str = ""  # non-empty: the run failed in a way other than being slow (crash, wrong result...)
    metric: str = ""
    device: str = ""
    passed: bool | None = None  # the verdict the test recorded (ratio >= threshold); None: not recorded
    section: str = ""  # the manifest's threshold section, e.g. "gpu.nvidia_h200"
    review: str = ""  # non-empty: faster than the ceiling allows (why); held for review, never credited


def clear_pass(m: Measurement, band: float) -> bool:
    """`m` passed with nothing wrong, by more than twice `band` over its threshold: a measurement that is trusted
    without being made again alone (lab_grader: the perf tests that ran after the correctness tests in one process)."""
    if m.problem or m.review or not m.passed or m.ratio is None or m.threshold is None:
        return False
    return m.ratio >= m.threshold * (1 + 2 * band)


@dataclasses.dataclass
class PerfVerdict:
    ratio: float | None
    threshold: float | None
    fraction: float
    measurements: list[float]
    problem: str
    metric: str = ""
    device: str = ""
    passed: bool = False
    section: str = ""
    review: str = ""  # non-empty: held for review (never credited): why


def measure_perf(run_once: Callable[[int], Measurement], baseline: float, band: float, extra_runs: int) -> PerfVerdict:
    """Runs the perf test once, and `extra_runs` more times when the ratio is within `band` of the threshold.
    `run_once(i)` performs measurement number i (0-based). Any failed run makes the verdict fail with its problem."""
    first = run_once(0)
    runs = [first]
    if first.review:
        return PerfVerdict(
            first.ratio, first.threshold, 0.0, [first.ratio], "", first.metric, first.device, review=first.review
        )
    if first.problem or first.ratio is None or first.threshold is None:
        return PerfVerdict(
            first.ratio,
            first.threshold,
            0.0,
            [] if first.ratio is None else [first.ratio],
            first.problem or "the perf test recorded no ratio",
            first.metric,
            first.device,
        )
    if near_threshold(first.ratio, first.threshold, band):
        for i in range(1, extra_runs + 1):
            m = run_once(i)
            runs.append(m)
            if m.review:
                return PerfVerdict(
                    m.ratio, first.threshold, 0.0, [m.ratio], "", first.metric, first.device, review=m.review
                )
            if m.problem or m.ratio is None:
                return PerfVerdict(
                    m.ratio,
                    first.threshold,
                    0.0,
                    [r.ratio for r in runs if r.ratio is not None],
                    m.problem or "the perf test recorded no ratio",
                    first.metric,
                    first.device,
                )
    ratios = [r.ratio for r in runs]
    ratio = statistics.median(ratios)
    if len(runs) == 1 and first.passed is not None:
        passed = first.passed
    else:
        passed = ratio >= first.threshold
    fraction = 1.0 if passed else min(perf_fraction(ratio, first.threshold, baseline), _BELOW_PASS)
    return PerfVerdict(ratio, first.threshold, fraction, ratios, "", first.metric, first.device, passed, first.section)
