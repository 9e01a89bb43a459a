"""The scoring formula and the noise-aware re-measurement (with a fake runner)."""
import unittest

from course_grader import scoring


class Formula(unittest.TestCase):
    def test_points(self):
        f = scoring.perf_fraction
        self.assertEqual(f(1.5, 1.5, 1.0), 1.0)
        self.assertEqual(f(3.0, 1.5, 1.0), 1.0)
        self.assertAlmostEqual(f(1.25, 1.5, 1.0), 0.5)
        self.assertEqual(f(1.0, 1.5, 1.0), 0.0)
        self.assertEqual(f(0.5, 1.5, 1.0), 0.0)
        self.assertAlmostEqual(f(0.525, 0.70, 0.35), 0.5)  # lab 01: fraction of copy bandwidth
        self.assertEqual(f(float("nan"), 1.5, 1.0), 0.0)
        self.assertEqual(f(0.9, 0.8, 1.0), 1.0)  # threshold below the baseline: a step
        self.assertEqual(f(0.7, 0.8, 1.0), 0.0)
        self.assertEqual(scoring.perf_points(1.25, 1.5, 1.0, 4), 2.0)

    def test_near_threshold(self):
        self.assertTrue(scoring.near_threshold(1.46, 1.5, 0.03))
        self.assertTrue(scoring.near_threshold(1.54, 1.5, 0.03))
        self.assertFalse(scoring.near_threshold(1.40, 1.5, 0.03))


class ClearPass(unittest.TestCase):
    def test_only_a_pass_by_more_than_twice_the_band(self):
        def m(ratio, **kw):
            return scoring.Measurement(ratio, 1.0, passed=ratio >= 1.0, **kw)

        self.assertTrue(scoring.clear_pass(m(1.07), 0.03))
        self.assertTrue(scoring.clear_pass(m(1.06), 0.03))
        self.assertFalse(scoring.clear_pass(m(1.05), 0.03))  # a pass, outside the band, within twice the band
        self.assertFalse(scoring.clear_pass(m(0.5), 0.03))
        self.assertFalse(scoring.clear_pass(m(1.5, problem="the result was wrong after the timed runs"), 0.03))
        self.assertFalse(scoring.clear_pass(m(1.5, review="faster than the ceiling"), 0.03))
        self.assertFalse(scoring.clear_pass(scoring.Measurement(None, None, "crashed"), 0.03))


class FakeRunner:
    def __init__(self, ratios, problems=None):
        self.ratios, self.problems, self.calls = list(ratios), problems or {}, 0

    def __call__(self, i):
        self.calls += 1
        return scoring.Measurement(self.ratios[i], 1.5, self.problems.get(i, ""))


class Remeasure(unittest.TestCase):
    def test_far_from_threshold_measured_once(self):
        run = FakeRunner([2.0, 0.0, 0.0])
        v = scoring.measure_perf(run, 1.0, 0.03, 2)
        self.assertEqual((run.calls, v.ratio, v.fraction), (1, 2.0, 1.0))

    def test_near_threshold_uses_the_median(self):
        run = FakeRunner([1.49, 1.52, 1.40])  # first just below, median 1.49
        v = scoring.measure_perf(run, 1.0, 0.03, 2)
        self.assertEqual(run.calls, 3)
        self.assertEqual(v.measurements, [1.49, 1.52, 1.40])
        self.assertEqual(v.ratio, 1.49)
        run = FakeRunner([1.49, 1.52, 1.51])
        self.assertEqual(scoring.measure_perf(run, 1.0, 0.03, 2).fraction, 1.0)

    def test_a_failed_remeasurement_fails(self):
        run = FakeRunner([1.49, 1.52, 1.6], problems={1: "wrong result after timing"})
        v = scoring.measure_perf(run, 1.0, 0.03, 2)
        self.assertEqual((v.problem, v.fraction, run.calls), ("wrong result after timing", 0.0, 2))

    def test_deterministic(self):
        a = scoring.measure_perf(FakeRunner([1.49, 1.52, 1.40]), 1.0, 0.03, 2)
        b = scoring.measure_perf(FakeRunner([1.49, 1.52, 1.40]), 1.0, 0.03, 2)
        self.assertEqual(a, b)


if __name__ == "__main__":
    unittest.main()
