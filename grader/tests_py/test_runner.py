"""Running untrusted programs: timeouts kill the process group; verdicts come only from the JSON report."""
import json
import os
import stat
import sys
import time
import unittest
from pathlib import Path

from helpers import TempDirTest

from course_grader import runner

ENV = {"PATH": "/usr/bin:/bin"}


def fake_gtest(path: Path, body: str) -> Path:
    """A stand-in GoogleTest executable: a Python script that receives the same arguments."""
    path.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n"
                    "args = dict(a.split('=', 1) for a in sys.argv[1:] if '=' in a)\n"
                    "report = args.get('--gtest_output', 'json:').split(':', 1)[1]\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def report(cases):
    """cases: [(suite, name, status, failures, props)]"""
    suites = {}
    for suite, name, status, failures, props in cases:
        case = {"name": name, "status": "RUN", "result": "SKIPPED" if status == "skipped" else "COMPLETED",
                "time": "0s", "classname": suite, **props}
        if failures:
            case["failures"] = [{"failure": f, "type": ""} for f in failures]
        suites.setdefault(suite, []).append(case)
    return {"tests": len(cases), "failures": 0, "testsuites": [{"name": s, "testsuite": c} for s, c in suites.items()]}


class Run(TempDirTest):
    def test_timeout_kills_the_whole_group(self):
        pidfile = self.tmp / "child.pid"
        start = time.monotonic()
        c = runner.run(["/bin/sh", "-c", f"sleep 300 & echo $! > {pidfile}; while :; do :; done"], cwd=self.tmp,
                       timeout=1.0, env=ENV)
        self.assertTrue(c.timed_out)
        self.assertLess(time.monotonic() - start, 30)
        child = int(pidfile.read_text())
        time.sleep(0.2)
        with open(f"/proc/{child}/stat") if os.path.exists(f"/proc/{child}/stat") else open(os.devnull) as f:
            state = f.read().split()
        self.assertTrue(not state or state[2] == "Z", f"child {child} still running: {state}")

    def test_child_that_ignores_sigterm_is_killed(self):
        c = runner.run([sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                        "time.sleep(300)"], cwd=self.tmp, timeout=1.0, env=ENV)
        self.assertTrue(c.timed_out)

    def test_output_tail_and_exit(self):
        c = runner.run(["/bin/sh", "-c", "echo hello; exit 3"], cwd=self.tmp, timeout=10, env=ENV)
        self.assertEqual((c.returncode, c.timed_out), (3, False))
        self.assertIn("hello", c.output_tail)


class GTestJson(TempDirTest):
    def test_verdicts_from_json_not_stdout(self):
        exe = fake_gtest(self.tmp / "t", "print('[  PASSED  ] 12 tests.  ALL TESTS PASSED')\n"
                         f"json.dump({report([('MatAdd', 'Big', 'failed', ['wrong at 3'], {})])!r}, open(report, 'w'))\n"
                         "sys.exit(1)\n")
        r = runner.run_gtest(exe, "-*Perf.*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertTrue(r.ok)
        self.assertEqual([(c.full_name, c.status) for c in r.cases], [("MatAdd.Big", "failed")])

    def test_printing_a_report_without_writing_it_is_a_crash(self):
        exe = fake_gtest(self.tmp / "t", "print(json.dumps({'tests': 1, 'failures': 0}))\nsys.exit(0)\n")
        r = runner.run_gtest(exe, "*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertFalse(r.ok)
        self.assertIn("without writing its test report", r.problem)

    def test_stale_report_is_removed_first(self):
        (self.tmp / "w").mkdir()
        (self.tmp / "w" / "report.json").write_text(json.dumps(report([("A", "b", "passed", [], {})])))
        exe = fake_gtest(self.tmp / "t", "import os\nos.kill(os.getpid(), 11)\n")
        r = runner.run_gtest(exe, "*", workdir=self.tmp / "w", timeout=10, env=ENV, max_output_bytes=None)
        self.assertFalse(r.ok)
        self.assertIn("SIGSEGV", r.problem)

    def test_properties_skips_and_malformed(self):
        data = report([("MatAddPerf", "Bw", "failed", ["ratio is 0.5, below the pass mark 0.7"],
                        {"ratio": "0.5", "threshold": "0.7", "metric": "m", "device": "H200"}),
                       ("MatAdd", "One", "skipped", [], {})])
        path = self.tmp / "r.json"
        path.write_text(json.dumps(data))
        perf, skipped = runner.parse_gtest_json(path)
        self.assertTrue(perf.is_perf)
        self.assertEqual(perf.properties["ratio"], "0.5")
        self.assertEqual(skipped.status, "skipped")
        path.write_text("{not json")
        self.assertIsNone(runner.parse_gtest_json(path))
        path.write_text("[]")
        self.assertIsNone(runner.parse_gtest_json(path))


if __name__ == "__main__":
    unittest.main()
