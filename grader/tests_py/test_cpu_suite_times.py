"""grader/tools/cpu_suite_times.py: the CPU-backend suite times read from a ctest log, and the speed goals."""
import importlib.util
import io
import json
import unittest
from contextlib import redirect_stderr, redirect_stdout

from helpers import GRADER, TempDirTest

_spec = importlib.util.spec_from_file_location("cpu_suite_times", GRADER / "tools" / "cpu_suite_times.py")
times = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(times)


def line(n, name, secs, verdict="Passed"):
    return f"{n}/99 Test #{n}: {name} {'.' * 20}   {verdict}   {secs:.2f} sec"


LOG = "\n".join(
    [
        line(1, "solution03.cpu.TiledGemm.MatchesReference/tile16_17x33x9", 0.5),
        line(2, "solution03.cpu.TiledGemm.MatchesReference/tile16_257x129x513", 4.0),
        line(3, "solution03.check.TiledGemm.MatchesReference/tile16_17x33x9", 1.0),
        line(4, "course.03_tiled_gemm.catalogue.missing_sync", 0.8),
        line(5, "course.03_tiled_gemm.variant.other_loop", 0.7, "***Failed"),
        line(6, "course.cpu.check.Shapes/GemmTest.TiledGemmMatchesReference/(32, 33, 70, 41)", 0.2),
        line(7, "solution03.TiledGemmPerf.SpeedupVsNaive", 0.01, "***Skipped"),
    ]
)


class CpuSuiteTimes(TempDirTest):
    def test_sums_the_reference_and_takes_each_entry(self):
        r = times.labs(times.parse(LOG))["03"]
        self.assertEqual((r["reference_fast_seconds"], r["reference_fast_tests"]), (4.5, 2))
        self.assertEqual((r["reference_check_seconds"], r["reference_check_tests"]), (1.0, 1))
        self.assertEqual(r["reference_suite_seconds"], 5.5)
        self.assertEqual((r["same_tests"], r["check_over_fast_same_tests"]), (1, 2.0))  # 1.0 s against 0.5 s
        self.assertEqual(r["entries"], {"variant other_loop": 0.7, "catalogue missing_sync": 0.8})
        self.assertEqual(r["slowest_test_seconds"], 4.0)
        self.assertEqual(times.missed({"03": r}), [])

    def test_each_goal_can_be_missed(self):
        slow = LOG + "\n" + line(8, "solution03.check.TiledGemm.MatchesReference/tile16_257x129x513", 31.0)
        slow += "\n" + line(9, "course.03_tiled_gemm.catalogue.hangs_a_while", 61.0)
        problems = times.missed(times.labs(times.parse(slow)))
        self.assertTrue(any("catalogue hangs_a_while took 61.0 s" in p for p in problems), problems)
        self.assertTrue(any("a test took 61.0 s" in p for p in problems), problems)
        self.assertTrue(any("check mode took" in p for p in problems), problems)  # (1 + 31) / (0.5 + 4) > 3

    def test_writes_json_and_fails_on_a_log_without_labs(self):
        log, out = self.tmp / "ctest.log", self.tmp / "times.json"
        log.write_text(LOG, encoding="utf-8")
        with redirect_stdout(io.StringIO()):
            self.assertEqual(times.main([str(log), "--json", str(out), "--machine", "here"]), 0)
        record = json.loads(out.read_text(encoding="utf-8"))
        self.assertEqual((record["machine"], record["labs"]["03"]["reference_check_tests"]), ("here", 1))
        log.write_text("nothing ran\n", encoding="utf-8")
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
            self.assertEqual(times.main([str(log)]), 1)
        self.assertIn("has no lab test", err.getvalue())


if __name__ == "__main__":
    unittest.main()
