"""Verdict logic of one student x lab, with a fake build tree whose 'executables' are scripts (no compiler)."""
import dataclasses
import json
import unittest
from pathlib import Path

from helpers import COURSE, CORRECT, LAB01, TempDirTest
from test_runner import fake_gtest, report

from course_grader import grading, intake

COURSE_FAST = dataclasses.replace(COURSE, limits=dataclasses.replace(COURSE.limits, test_seconds=2))
CORRECTNESS = [("MatAdd", "MatchesReference/1x1", "passed", [], {}), ("MatAdd", "MatchesReference/31x33", "passed", [], {})]


def perf_case(ratio, threshold=0.7, extra_failure=None):
    failures = [f"ratio is {ratio}, below the pass mark {threshold}"] if ratio < threshold else []
    if extra_failure:
        failures.append(extra_failure)
    return ("MatAddPerf", "BandwidthVsCopy", "failed" if failures else "passed", failures,
            {"ratio": str(ratio), "threshold": str(threshold), "metric": "bw/copy", "device": "NVIDIA H200"})


class FakeTree:
    """Behaviour from the submitted file: a JSON line '// FAKE {"correct": ..., "perf": [ratios...]}'."""

    def __init__(self, tmp: Path, backend: str):
        self.dir, self.backend = tmp / "tree", backend
        self.dir.mkdir(exist_ok=True)
        self.student_dir = tmp / "student-0"

    def targets(self, lab):
        return [f"lab{lab.number}_check", f"lab{lab.number}_gpu" if self.backend == "gpu" else f"lab{lab.number}_cpu"]

    def executable(self, target):
        return self.dir / target

    def build(self, lab, files):
        text = files["matadd.cu"].decode()
        spec = json.loads(text.split("// FAKE ", 1)[1].splitlines()[0]) if "// FAKE " in text else {}
        if spec.get("build") == "fail":
            return False, "matadd.cu:3:5: error: 'idx' was not declared in this scope"
        counter = self.dir / "perf-count"
        counter.write_text("0")
        for t in self.targets(lab):
            behaviour = spec.get("correct", "pass")
            if t.endswith("_gpu") and "gpu" in spec:
                behaviour = spec["gpu"]
            if behaviour == "crash":
                body = "print('[course-cpu] FATAL: kernel crashed'); os.kill(os.getpid(), 11)\n"
            elif behaviour == "hang":
                body = "while True: pass\n"
            else:
                cases = [c if behaviour == "pass" or i else (c[0], c[1], "failed", [f"{self.student_dir}/01_matadd/matadd.cu:9: C[3] = 1 expected 2"], {})
                         for i, c in enumerate(CORRECTNESS)]
                perf = [report([perf_case(r, extra_failure=spec.get("perf_failure"))]) for r in spec.get("perf", [1])]
                body = (f"cases = {report(cases)!r}\nperf = {perf!r}\n"
                        f"if 'Perf' in args['--gtest_filter'] and not args['--gtest_filter'].startswith('-'):\n"
                        f"    n = int(open({str(counter)!r}).read()); open({str(counter)!r}, 'w').write(str(n + 1))\n"
                        f"    cases = perf[min(n, len(perf) - 1)]\n"
                        f"json.dump(cases, open(report, 'w'))\n")
            fake_gtest(self.executable(t), body)
        return True, ""


def submission(spec: dict | None, name="s", data: bytes | None = None):
    content = data if data is not None else CORRECT + (f"// FAKE {json.dumps(spec)}\n".encode() if spec else b"")
    sub = intake.Submission(student=name, source=name)
    sub.labs["01"] = intake.LabFiles(files={"matadd.cu": content})
    return sub


class Verdicts(TempDirTest):
    def grade(self, spec, backend="cpu", data=None):
        opts = grading.Options(backend=backend, gpus=("0",) if backend == "gpu" else ())
        g = grading.LabGrader(COURSE_FAST, opts, self.tmp, "SECRETSEED")
        g.gpu_healthy = lambda gpu: True
        return g.grade(submission(spec, data=data), LAB01, FakeTree(self.tmp, backend))

    def test_cpu_correct_perf_not_graded(self):
        r = self.grade({})
        self.assertEqual((r.verdict, r.correctness, r.score, r.max_score), ("correct", "pass", 6.0, 10.0))
        self.assertIn("not graded (no GPU)", r.perf_note)

    def test_wrong_crash_hang_build(self):
        self.assertEqual(self.grade({"correct": "wrong"}).verdict, "wrong")
        r = self.grade({"correct": "crash"})
        self.assertEqual((r.verdict, r.score), ("crash", 0))
        self.assertIn("SIGSEGV", r.message)
        r = self.grade({"correct": "hang"})
        self.assertEqual((r.verdict, r.score), ("timeout", 0))
        r = self.grade({"build": "fail"})
        self.assertEqual(r.verdict, "build-error")
        self.assertIn("idx", r.message)

    def test_forbidden_is_found_before_building(self):
        r = self.grade(None, data=b'#include <thrust/sort.h>\n#include "lab01_matadd.h"\n')
        self.assertEqual(r.verdict, "forbidden")

    def test_gpu_perf_pass_partial_slow(self):
        r = self.grade({"perf": [0.9]}, "gpu")
        self.assertEqual((r.verdict, r.score, r.ratio), ("pass", 10.0, 0.9))
        r = self.grade({"perf": [0.525]}, "gpu")
        self.assertEqual((r.verdict, r.score), ("partial", 8.0))
        r = self.grade({"perf": [0.2]}, "gpu")
        self.assertEqual((r.verdict, r.score), ("slow", 6.0))

    def test_gpu_near_threshold_is_remeasured(self):
        r = self.grade({"perf": [0.69, 0.71, 0.72]}, "gpu")
        self.assertEqual((r.verdict, r.ratio, r.score), ("pass", 0.71, 10.0))
        self.assertIn("median of 0.690, 0.710, 0.720", r.message)
        r = self.grade({"perf": [0.69, 0.68, 0.72]}, "gpu")
        self.assertEqual((r.verdict, r.ratio), ("partial", 0.69))

    def test_gpu_crash_after_check_mode_passed(self):
        r = self.grade({"gpu": "crash"}, "gpu")
        self.assertEqual((r.verdict, r.score), ("crash", 0))
        self.assertIn("lab01_gpu", r.message)

    def test_wrong_after_timing(self):
        r = self.grade({"perf": [0.9], "perf_failure": "C[7] = 0 expected 1.5 (after timing)"}, "gpu")
        self.assertEqual((r.verdict, r.score), ("perf-error", 6.0))
        self.assertIn("after timing", r.message)

    def test_seed_and_grader_paths_never_in_messages(self):
        r = self.grade({"correct": "wrong"})
        self.assertNotIn("SECRETSEED", r.message)
        self.assertNotIn(str(self.tmp), r.message)
        self.assertIn("01_matadd/matadd.cu:9", r.message)

    def test_unhealthy_gpu_is_not_the_students_fault(self):
        opts = grading.Options(backend="gpu", gpus=("0",))
        g = grading.LabGrader(COURSE_FAST, opts, self.tmp, "x")
        g.gpu_healthy = lambda gpu: False
        r = g.grade(submission({"correct": "crash"}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "crash")  # in check mode, on the CPU: the GPU is not involved
        r = g.grade(submission({"gpu": "crash"}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "not-graded")
        r = g.grade(submission({}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "not-graded")  # later students are not graded on a broken GPU



class Findings(unittest.TestCase):
    def test_cpu_backend_diagnoses_are_listed(self):
        from course_grader import runner
        c = runner.TestCase("A", "b", "failed", [
            "x | [uninitialized-shared-read] 03_tiled_gemm/tiled_gemm.cu:26: thread (0,0)",
            "  [race] tiled_gemm.cu:28: written by (1,0) (3 times)\n  [race] tiled_gemm.cu:28: again"], {})
        self.assertEqual(grading._findings([c]),
                         "uninitialized-shared-read at tiled_gemm.cu:26, race at tiled_gemm.cu:28")


if __name__ == "__main__":
    unittest.main()
