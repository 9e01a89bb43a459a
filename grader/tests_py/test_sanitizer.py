"""No silent skips: a GPU tree without check mode grades correctness with compute-sanitizer, or not at all.

The summaries below were recorded on an H100 (CUDA 13.0) from compute-sanitizer runs of a small program with a
shared-memory race, an out-of-bounds write and a __syncthreads() in divergent code. The grading path runs with a
stand-in compute-sanitizer (a script that runs the program and prints a recorded summary): no GPU is needed.
"""
import json
import stat
import sys
import unittest
from pathlib import Path

from helpers import LAB01, TempDirTest
from test_grading import COURSE_FAST, FakeTree, submission

from course_grader import gpus, lab_grader, sandbox
from course_grader.build_tree import Program
from course_grader.grading import Options

RACY = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at racy(float *)+0xa0
devices 1 (no error)
racy: no error
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""
RACE_FREE = (
    "========= COMPUTE-SANITIZER\nok: no error\n========= RACECHECK SUMMARY: 0 hazards displayed "
    "(0 errors, 0 warnings)\n"
)
OUT_OF_BOUNDS = """========= Invalid __global__ write of size 4 bytes
=========     at oob(float *, int)+0xb0
=========     by thread (99,0,0) in block (2,0,0)
oob: unspecified launch failure
========= Target application returned an error
========= ERROR SUMMARY: 1025 errors
========= ERROR SUMMARY: 925 errors were not printed. Use --print-limit option to adjust the number of printed errors
"""
DIVERGENT_BARRIER = (
    "========= Barrier error detected. Divergent thread(s) in warp.\n" * 2
    + "diverge: unspecified launch failure\n========= Target application returned an error\n"
    "========= ERROR SUMMARY: 16 errors\n"
)
CLEAN = "========= COMPUTE-SANITIZER\nok: no error\n========= ERROR SUMMARY: 0 errors\n"


class Summaries(unittest.TestCase):
    def test_command(self):
        self.assertEqual(
            gpus.sanitizer_prefix("/cuda/bin/compute-sanitizer", "racecheck"),
            ("/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--error-exitcode", "97", "--print-limit", "20"),
        )

    def test_recorded_summaries(self):
        v = gpus.sanitizer_verdict
        self.assertEqual(
            v(RACY, 97, "racecheck"), ("errors", "compute-sanitizer --tool racecheck reported 1 race " "hazard")
        )
        self.assertEqual(v(RACE_FREE, 0, "racecheck"), ("clean", ""))
        self.assertEqual(
            v(OUT_OF_BOUNDS, 97, "memcheck"), ("errors", "compute-sanitizer --tool memcheck reported " "1025 errors")
        )
        self.assertEqual(v(DIVERGENT_BARRIER, 97, "synccheck")[0], "errors")
        self.assertEqual(v(CLEAN, 0, "memcheck"), ("clean", ""))
        self.assertEqual(v("ok" + CLEAN, 0, "memcheck"), ("clean", ""))  # the program's last line had no newline

    def test_the_program_cannot_talk_its_way_out(self):
        v = gpus.sanitizer_verdict
        self.assertEqual(v(RACY, 0, "racecheck")[0], "errors")  # the count decides too
        self.assertEqual(v(CLEAN + CLEAN, 0, "memcheck")[0], "errors")  # a second summary: printed by it
        self.assertEqual(v(RACE_FREE, 97, "racecheck")[0], "errors")  # the exit status decides
        self.assertEqual(v("no summary at all\n", 0, "memcheck")[0], "unknown")  # the tool failed: not graded
        self.assertEqual(v("", 97, "memcheck")[0], "errors")

    def test_gpu_devices_without_nvidia_smi(self):
        nodes, visible = gpus.gpu_devices("3")
        self.assertEqual(visible, "3")
        self.assertTrue(all(n.startswith("/dev/nvidia") for n in nodes))


def fake_sanitizer(path: Path, results: dict) -> str:
    """A stand-in compute-sanitizer: runs the program, then prints the recorded text of its --tool and exits with
    the recorded status (by default, a clean run's)."""
    results = {"racecheck": [RACE_FREE, 0], "memcheck": [CLEAN, 0], "synccheck": [CLEAN, 0], **results}
    path.write_text(
        f"#!{sys.executable}\nimport subprocess, sys\nargs = sys.argv[1:]\n"
        f"tool = args[args.index('--tool') + 1]\nresults = {json.dumps(results)}\n"
        "subprocess.run(args[6:], close_fds=False)\n"
        "text, status = results[tool]\n"
        "print(text, flush=True)\nsys.exit(status)\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


class GpuOnlyTree(FakeTree):
    """A GPU tree without the CPU backend: no check mode."""

    def programs(self, lab):
        return [Program("gpu", self.dir / f"lab{lab.number}_gpu")]


class GpuWithoutCheckMode(TempDirTest):
    def setUp(self):
        super().setUp()
        self._policy = sandbox.use(sandbox.Policy(False))
        self._sanitizer = gpus.sanitizer

    def tearDown(self):
        gpus.sanitizer = self._sanitizer
        sandbox.use(self._policy)
        super().tearDown()

    def grade(self, sanitizer, spec=None):
        gpus.sanitizer = lambda: sanitizer
        g = lab_grader.LabGrader(COURSE_FAST, Options(backend="gpu", gpus=("0",)), self.tmp, "SEED")
        g.gpu_healthy = lambda gpu: True
        return g.grade(submission(spec or {"perf": [0.9]}), LAB01, GpuOnlyTree(self.tmp, "gpu"))

    def test_no_sanitizer_is_never_a_pass(self):
        r = self.grade(None)
        self.assertEqual((r.verdict, r.correctness, r.score), ("not-graded", "n/a", 0))
        self.assertIn("libboost-context-dev", r.message)
        self.assertIn("compute-sanitizer", r.message)

    def test_clean_sanitizer_runs_grade_as_usual(self):
        r = self.grade(fake_sanitizer(self.tmp / "cs", {}))
        self.assertEqual((r.verdict, r.correctness, r.score), ("pass", "pass", 10.0))
        self.assertIn("compute-sanitizer (racecheck, memcheck, synccheck) found nothing", r.message)

    def test_reported_hazards_fail_correctness(self):
        for tool, text in (("racecheck", RACY), ("memcheck", OUT_OF_BOUNDS), ("synccheck", DIVERGENT_BARRIER)):
            r = self.grade(fake_sanitizer(self.tmp / f"cs-{tool}", {tool: [text, 97]}))
            self.assertEqual((r.verdict, r.correctness, r.score), ("wrong", "fail", 0), tool)
            self.assertIn(f"--tool {tool} reported", r.message)

    def test_sanitizer_that_reports_nothing_is_not_graded(self):
        r = self.grade(fake_sanitizer(self.tmp / "cs", {"racecheck": ["crashed", 1]}))
        self.assertEqual((r.verdict, r.score), ("not-graded", 0))
        self.assertIn("wrote no summary", r.message)


if __name__ == "__main__":
    unittest.main()
