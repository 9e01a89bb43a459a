"""GoogleTest's JSON report (course_grader.gtest): verdicts come only from it; a perf test's recorded measurement."""
import json
import stat
import sys
import unittest
from pathlib import Path

from helpers import TempDirTest

from course_grader import gtest

ENV = {"PATH": "/usr/bin:/bin"}


def fake_gtest(path: Path, body: str) -> Path:
    """A stand-in GoogleTest executable: a Python script that receives the same arguments."""
    path.write_text(
        f"#!{sys.executable}\nimport json, os, sys, time\n"
        "args = dict(a.split('=', 1) for a in sys.argv[1:] if '=' in a)\n"
        "report = args.get('--gtest_output', 'json:').split(':', 1)[1]\n" + body
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def report(cases):
    """cases: [(suite, name, status, failures, props)]"""
    suites = {}
    for suite, name, status, failures, props in cases:
        case = {
            "name": name,
            "status": "RUN",
            "result": "SKIPPED" if status == "skipped" else "COMPLETED",
            "time": "0s",
            "classname": suite,
            **props,
        }
        if failures:
            case["failures"] = [{"failure": f, "type": ""} for f in failures]
        suites.setdefault(suite, []).append(case)
    return {"tests": len(cases), "failures": 0, "testsuites": [{"name": s, "testsuite": c} for s, c in suites.items()]}


class GTestJson(TempDirTest):
    def test_verdicts_from_json_not_stdout(self):
        exe = fake_gtest(
            self.tmp / "t",
            "print('[  PASSED  ] 12 tests.  ALL TESTS PASSED')\n"
            f"json.dump({report([('MatAdd', 'Big', 'failed', ['wrong at 3'], {})])!r}, open(report, 'w'))\n"
            "sys.exit(1)\n",
        )
        r = gtest.run_gtest(exe, "-*Perf.*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertTrue(r.ok)
        self.assertEqual([(c.full_name, c.status) for c in r.cases], [("MatAdd.Big", "failed")])

    def test_printing_a_report_without_writing_it_is_a_crash(self):
        exe = fake_gtest(self.tmp / "t", "print(json.dumps({'tests': 1, 'failures': 0}))\nsys.exit(0)\n")
        r = gtest.run_gtest(exe, "*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertFalse(r.ok)
        self.assertIn("without writing its test report", r.problem)

    def test_stale_report_is_removed_first(self):
        (self.tmp / "w").mkdir()
        (self.tmp / "w" / "report.json").write_text(json.dumps(report([("A", "b", "passed", [], {})])))
        exe = fake_gtest(self.tmp / "t", "import os\nos.kill(os.getpid(), 11)\n")
        r = gtest.run_gtest(exe, "*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertFalse(r.ok)
        self.assertIn("SIGSEGV", r.problem)

    def test_properties_skips_and_malformed(self):
        data = report(
            [
                (
                    "MatAddPerf",
                    "Bw",
                    "failed",
                    ["ratio is 0.5, below the pass mark 0.7"],
                    {"ratio": "0.5", "threshold": "0.7", "metric": "m", "device": "H200"},
                ),
                ("MatAdd", "One", "skipped", [], {}),
            ]
        )
        path = self.tmp / "r.json"
        path.write_text(json.dumps(data))
        perf, skipped = gtest.read_report(path)
        self.assertTrue(perf.is_perf)
        self.assertEqual(perf.properties["ratio"], "0.5")
        self.assertEqual(skipped.status, "skipped")
        path.write_text("{not json")
        self.assertIsNone(gtest.read_report(path))
        path.write_text("[]")
        self.assertIsNone(gtest.read_report(path))


class PerfRecord(unittest.TestCase):
    PROPS = {
        "metric": "bw/copy",
        "ratio": "0.812000",
        "threshold": "0.700000",
        "threshold_section": "sm_90",
        "device": "NVIDIA H100 80GB HBM3",
        "result_check": "pass",
        "verdict": "pass",
    }

    def case(self, **changes):
        props = {k: v for k, v in {**self.PROPS, **changes}.items() if v is not None}
        return gtest.TestCase("MatAddPerf", "BandwidthVsCopy", "passed", [], props)

    def test_complete_record(self):
        rec, why = gtest.perf_record(self.case())
        self.assertEqual(why, "")
        self.assertEqual(
            (rec.ratio, rec.threshold, rec.result_check, rec.verdict, rec.threshold_section),
            (0.812, 0.7, "pass", "pass", "sm_90"),
        )

    def test_missing_or_malformed(self):
        for changes, words in (
            ({"ratio": None}, "no ratio"),
            ({"threshold": "fast"}, "not a number"),
            ({"ratio": "nan"}, "not finite"),
            ({"result_check": None}, "no result_check"),
            ({"verdict": "PASS"}, "not pass or fail"),
        ):
            rec, why = gtest.perf_record(self.case(**changes))
            self.assertIsNone(rec, changes)
            self.assertIn(words, why)

    def test_optional_texts(self):
        rec, _ = gtest.perf_record(self.case(metric=None, device=None, threshold_section=None))
        self.assertEqual((rec.metric, rec.device, rec.threshold_section), ("", "", ""))


if __name__ == "__main__":
    unittest.main()
