"""grader/tools/calibrate.py without a GPU: reading a perf run, the suggested marks in manifest form."""
import importlib.util
import io
import json
import re
import tomllib
import unittest
from contextlib import redirect_stdout

from helpers import COURSE, GRADER, TempDirTest
from test_gtest import fake_gtest, report

_spec = importlib.util.spec_from_file_location("calibrate", GRADER / "tools" / "calibrate.py")
calibrate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calibrate)

LAB = next(lab for lab in COURSE.labs if len(lab.perf) >= 2)  # a lab with two perf tests
H200 = "NVIDIA H200"


def rows(lab, ratios_by_program):
    """Rows as main() collects them: {(role, program): {test: [ratios]}}."""
    out = []
    for (role, name), tests in ratios_by_program.items():
        for perf in lab.perf:
            ratios = tests[perf.test]
            good = [{"ratio": r, "device": H200} for r in ratios]
            out.append((lab, role, name, perf.test, perf.key, ratios, good))
    return out


class Marks(unittest.TestCase):
    def test_rounding_down(self):
        self.assertEqual(calibrate.suggest(1.490, 0.85, 0.05), 1.25)
        self.assertEqual(calibrate.suggest(5.336, 0.85, 0.05), 4.5)
        self.assertEqual(calibrate.suggest(1.0 / 0.85, 0.85, 0.05), 1.0)  # exactly on a step stays there

    def sections(self, data, device=H200):
        out = io.StringIO()
        with redirect_stdout(out):
            calibrate.print_sections([LAB], rows(LAB, data), {device}, COURSE.gpus, 0.85, 0.05)
        return out.getvalue()

    def test_sections_in_manifest_form(self):
        first, second = (p.test for p in LAB.perf[:2])
        text = self.sections(
            {
                ("must pass", "solution_gpu"): {first: [1.0, 1.1, 0.9], second: [8.0, 8.1, 8.2]},
                ("must pass", "variant_gpu"): {first: [0.6, 0.62, 0.61], second: [5.3, 5.4, 5.35]},
                ("must fail", "catalogue_gpu"): {first: [0.2, 0.2, 0.2], second: [6.0, 6.0, 6.0]},
            }
        )
        self.assertIn(f"# grader/labs/{LAB.folder}/lab.toml\n[thresholds.gpu.nvidia_h200]\n", text)
        data = tomllib.loads(text)
        self.assertEqual(data["thresholds"]["gpu"]["nvidia_h200"], {LAB.perf[0].key: 0.5, LAB.perf[1].key: 4.5})
        self.assertIn("slowest that must pass: variant_gpu 0.610", text)
        self.assertIn("NOT SEPARATED", text)  # the catalogue kernel reaches 6.0 >= 4.5 on the second test
        self.assertEqual(text.count("NOT SEPARATED"), 1)
        self.assertNotIn("under [gpus]", text)

    def test_a_model_not_in_course_toml(self):
        first, second = (p.test for p in LAB.perf[:2])
        text = self.sections({("must pass", "s"): {first: [1.0], second: [2.0]}}, device="NVIDIA B200")
        self.assertIn("[thresholds.gpu.nvidia_b200]", text)
        self.assertIn('nvidia_b200 = "NVIDIA B200"  under [gpus]', text)


class PerfRun(TempDirTest):
    def test_reads_the_recorded_measurement(self):
        perf = LAB.perf[0]
        suite, case = perf.test.split(".")
        props = {
            "ratio": "0.534000",
            "threshold": "0.450000",
            "threshold_section": "gpu.nvidia_h200",
            "metric": "m",
            "device": H200,
            "result_check": "pass",
            "verdict": "pass",
        }
        data = report([(suite, case, "passed", [], props)])
        # The judge (labNN_judge_gpu beside the worker) is what runs; it is told where the worker is.
        fake_gtest(
            self.tmp / f"lab{LAB.number}_judge_gpu",
            "assert '--course-worker=' + os.path.join(os.path.dirname(sys.argv[0]), 'worker') in sys.argv\n"
            f"json.dump({data!r}, open(report, 'w'))\n",
        )
        got = calibrate.run_once(self.tmp / "worker", LAB, timeout=30)
        self.assertEqual(got[perf.test]["ratio"], 0.534)
        self.assertEqual(got[perf.test]["threshold_section"], "gpu.nvidia_h200")
        other = LAB.perf[1].test
        self.assertEqual(got[other], {"problem": "did not run"})
        json.dumps(got)  # the --json record
        self.assertTrue(re.fullmatch(r"[A-Za-z0-9_]+Perf\.[A-Za-z0-9_]+", other))


if __name__ == "__main__":
    unittest.main()
