"""Verdict logic of one student x lab, with a fake build tree whose 'executables' are scripts (no compiler)."""
import dataclasses
import json
import unittest
from pathlib import Path

from helpers import COURSE, CORRECT, LAB01, TempDirTest
from test_gtest import fake_gtest, report

from course_grader import diagnostics, gtest, intake, lab_grader, sandbox
from course_grader.build_tree import Program
from course_grader.grading import Options
from course_grader.verdicts import BackendGap

COURSE_FAST = dataclasses.replace(COURSE, limits=dataclasses.replace(COURSE.limits, test_seconds=2))
PERF_SUITE, PERF_CASE = LAB01.perf[0].test.split(".")
CORRECTNESS = [
    ("MatAdd", "MatchesReference/1x1", "passed", [], {}),
    ("MatAdd", "MatchesReference/31x33", "passed", [], {}),
]


def perf_case(ratio, threshold=0.7, extra_failure=None, result_check="pass", props=None):
    """Lab 01's perf test as the harness's measurement records it. The failure texts are deliberately
    unlike the harness's: the grader must decide from the recorded properties alone."""
    verdict = "pass" if ratio >= threshold else "fail"
    failures = [f"slow: {ratio} / {threshold}"] if verdict == "fail" else []
    if result_check != "pass":
        failures.append("C[7] = 0 expected 1.5 (after timing)")
    if extra_failure:
        failures.append(extra_failure)
    recorded = {
        "metric": "bw/copy",
        "ratio": f"{ratio:.6f}",
        "threshold": f"{threshold:.6f}",
        "threshold_section": "gpu.nvidia_h200",
        "device": "NVIDIA H200",
        "result_check": result_check,
        "verdict": verdict,
    }
    recorded.update(props or {})
    return (
        PERF_SUITE,
        PERF_CASE,
        "failed" if failures else "passed",
        failures,
        {k: v for k, v in recorded.items() if v is not None},
    )


class FakeTree:
    """Behaviour from the submitted file: a JSON line '// FAKE {"correct": ..., "perf": [ratios...]}'."""

    def __init__(self, tmp: Path, backend: str):
        self.dir, self.backend = tmp / "tree", backend
        self.dir.mkdir(exist_ok=True)
        self.student_dir = tmp / "student-0"

    def programs(self, lab):
        return [Program(mode, self.dir / f"lab{lab.number}_{mode}") for mode in ("check", self.backend)]

    def build(self, lab, files):
        text = files["matadd.cu"].decode()
        spec = json.loads(text.split("// FAKE ", 1)[1].splitlines()[0]) if "// FAKE " in text else {}
        if spec.get("build") == "fail":
            return False, "matadd.cu:3:5: error: 'idx' was not declared in this scope"
        if spec.get("build") == "gap":
            raise BackendGap("cooperative_groups::this_grid() (a grid-wide barrier)")
        counter = self.dir / "perf-count"
        counter.write_text("0")
        for p in self.programs(lab):
            behaviour = spec.get("correct", "pass")
            if p.mode == "gpu" and "gpu" in spec:
                behaviour = spec["gpu"]
            if behaviour == "crash":
                body = "print('[course-cpu] FATAL: kernel crashed'); os.kill(os.getpid(), 11)\n"
            elif behaviour == "hang":
                body = "while True: pass\n"
            else:
                wrong = f"{self.student_dir}/01_matadd/matadd.cu:9: C[3] = 1 expected 2"
                late = {
                    "late": {"call_timeout_seconds": "30.000000"},
                    "died": {"worker_died": "it was killed by signal 11 (Segmentation fault)"},
                }.get(behaviour, {})
                waits = spec.get("answers", {}).get(p.mode, [])  # each case's longest wait, as the judge records it
                cases = [
                    c if behaviour == "pass" or i else (c[0], c[1], "failed", [wrong], late)
                    for i, c in enumerate(CORRECTNESS)
                ]
                cases = [
                    (*c[:4], {**c[4], "longest_answer_seconds": w}) if w is not None else c
                    for c, w in zip(cases, waits + [None] * len(cases))
                ]
                perf = [
                    report(
                        [
                            perf_case(
                                r,
                                extra_failure=spec.get("perf_failure"),
                                result_check=spec.get("result_check", "pass"),
                                props=spec.get("props"),
                            )
                        ]
                    )
                    for r in spec.get("perf", [1])
                ]
                # The perf tests run under a filter that names them, or "*" (after the correctness tests, skipped
                # when one failed: course::register_perf_tests); each such run takes the next of spec["perf"].
                body = (
                    f"cases = {report(cases)!r}\nperf = {perf!r}\nf = args['--gtest_filter']\n"
                    f"open({str(self.dir / 'calls')!r}, 'a').write({p.mode!r} + ' ' + f + '\\n')\n"
                    f"if f == '*' or ('Perf' in f and not f.startswith('-')):\n"
                    f"    if {spec.get('judge') == 'dies in perf'!r}: os.kill(os.getpid(), 6)\n"
                    f"    n = int(open({str(counter)!r}).read()); open({str(counter)!r}, 'w').write(str(n + 1))\n"
                    f"    timed = perf[min(n, len(perf) - 1)]['testsuites']\n"
                    f"    if f == '*' and {behaviour != 'pass'!r}:\n"
                    f"        skip = {{'result': 'SKIPPED', 'failures': []}}\n"
                    f"        timed = [{{'name': s['name'], 'testsuite': [{{**c, **skip}} for c in s['testsuite']]}}\n"
                    f"                 for s in timed]\n"
                    f"    cases = {{'testsuites': (cases['testsuites'] if f == '*' else []) + timed}}\n"
                    f"json.dump(cases, open(report, 'w'))\n"
                )
            fake_gtest(p.path, body)
        return True, ""


def submission(spec: dict | None, name="s", data: bytes | None = None):
    content = data if data is not None else CORRECT + (f"// FAKE {json.dumps(spec)}\n".encode() if spec else b"")
    sub = intake.Submission(student=name, source=name)
    sub.labs["01"] = intake.LabFiles(files={"matadd.cu": content})
    return sub


class Verdicts(TempDirTest):
    def setUp(self):
        super().setUp()
        self._policy = sandbox.use(sandbox.Policy(False))  # the fake programs keep a counter in the tree

    def tearDown(self):
        sandbox.use(self._policy)
        super().tearDown()

    def grade(self, spec, backend="cpu", data=None):
        opts = Options(backend=backend, gpus=("0",) if backend == "gpu" else ())
        g = lab_grader.LabGrader(COURSE_FAST, opts, self.tmp, "SECRETSEED")
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

    def test_a_gap_of_the_cpu_backend_is_not_graded_not_a_build_error(self):
        for backend in ("cpu", "gpu"):
            r = self.grade({"build": "gap"}, backend)
            self.assertEqual((r.verdict, r.score), ("not-graded", 0))
            self.assertIn("the CPU backend does not support cooperative_groups::this_grid()", r.message)

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
        # the first of each list: the run with the correctness tests, near the threshold, so measured again alone
        r = self.grade({"perf": [0.69, 0.69, 0.71, 0.72]}, "gpu")
        self.assertEqual((r.verdict, r.ratio, r.score), ("pass", 0.71, 10.0))
        self.assertIn("median of 0.690, 0.710, 0.720", r.message)
        r = self.grade({"perf": [0.69, 0.69, 0.68, 0.72]}, "gpu")
        self.assertEqual((r.verdict, r.ratio), ("partial", 0.69))

    def calls(self):
        return (self.tmp / "tree" / "calls").read_text().splitlines()

    def test_one_gpu_process_runs_the_correctness_tests_then_the_perf_tests(self):
        r = self.grade({"perf": [0.9]}, "gpu")
        self.assertEqual((r.verdict, r.score, r.message.split(";")[0]), ("pass", 10.0, "4 correctness tests passed"))
        self.assertEqual(self.calls(), ["check -*Perf.*", "gpu *"])
        r = self.grade({"gpu": "wrong"}, "gpu")  # the judge skips the perf tests after a failure
        self.assertEqual((r.verdict, r.score, r.perf_score), ("wrong", 0, 0))
        self.assertEqual(self.calls()[-1:], ["gpu *"])
        self.assertNotIn("perf", r.message)

    def test_perf_measured_with_the_correctness_tests_counts_only_as_a_clear_pass(self):
        r = self.grade({"perf": [0.2, 0.9]}, "gpu")  # low with the correctness tests; alone, a pass
        self.assertEqual((r.verdict, r.ratio, r.score), ("pass", 0.9, 10.0))
        self.assertEqual(self.calls()[1:], ["gpu *", f"gpu {LAB01.perf[0].test}"])
        r = self.grade({"perf": [0.9, 0.2]}, "gpu")  # a clear pass is kept: no second process
        self.assertEqual((r.verdict, r.ratio), ("pass", 0.9))
        self.assertEqual(self.calls()[-1], "gpu *")
        r = self.grade({"perf": [0.735, 0.76]}, "gpu")  # a pass, outside the band, within twice the band: again
        self.assertEqual((r.verdict, r.ratio), ("pass", 0.76))
        self.assertEqual(self.calls()[-2:], ["gpu *", f"gpu {LAB01.perf[0].test}"])

    def test_a_perf_call_past_its_deadline_with_the_correctness_tests_is_not_run_again(self):
        r = self.grade({"perf": [0.2], "props": {"call_timeout_seconds": "10.000000"}}, "gpu")
        self.assertEqual((r.verdict, r.correctness), ("timeout", "pass"))
        self.assertEqual(self.calls()[-1], "gpu *")

    def test_a_judge_that_dies_in_the_perf_tests_has_its_correctness_run_alone(self):
        r = self.grade({"perf": [0.9], "judge": "dies in perf"}, "gpu")
        self.assertEqual((r.verdict, r.correctness, r.score), ("perf-error", "pass", 6.0))
        self.assertIn("SIGABRT", r.message)
        self.assertEqual(self.calls(), ["check -*Perf.*", "gpu *", "gpu -*Perf.*", f"gpu {LAB01.perf[0].test}"])

    def test_gpu_crash_after_check_mode_passed(self):
        r = self.grade({"gpu": "crash"}, "gpu")
        self.assertEqual((r.verdict, r.score), ("crash", 0))
        self.assertIn("lab01_gpu", r.message)

    def test_wrong_after_timing(self):
        for ratio in (0.9, 0.2):  # fast or slow: a wrong result after the timed runs is a perf-error
            r = self.grade({"perf": [ratio], "result_check": "fail"}, "gpu")
            self.assertEqual((r.verdict, r.score), ("perf-error", 6.0))
            self.assertIn("wrong after the timed runs", r.message)

    def test_faster_than_the_ceiling_is_held_for_review(self):
        held = {"review": "yes", "ceiling": "device-to-device copy", "ceiling_fraction": "1.700000"}
        r = self.grade({"perf": [2.4], "props": held}, "gpu")
        self.assertEqual((r.verdict, r.score, r.perf_score), ("review", 6.0, 0.0))
        self.assertIn("1.700 of device-to-device copy", r.message)
        r = self.grade({"perf": [0.9], "props": {"review": "no", "ceiling_fraction": "0.800000"}}, "gpu")
        self.assertEqual(r.verdict, "pass")

    def test_a_call_past_its_deadline_is_a_timeout(self):
        r = self.grade({"correct": "late"}, "cpu")
        self.assertEqual((r.verdict, r.score), ("timeout", 0))
        self.assertIn("ran past 30 s", r.message)

    def test_a_worker_that_dies_during_a_call_is_a_crash(self):
        r = self.grade({"correct": "died"}, "cpu")
        self.assertEqual((r.verdict, r.score), ("crash", 0))
        self.assertIn("ended during a launcher call: it was killed by signal 11 (Segmentation fault)", r.message)

    def test_the_longest_answer_of_each_kind_of_run_is_kept(self):
        r = self.grade({"answers": {"check": ["0.25", "1.5"], "gpu": ["0.75", "not a number"]}}, "gpu")
        self.assertEqual(r.verdict, "pass")
        self.assertEqual(r.longest_answer, {"check": 1.5, "gpu": 0.75})
        r = self.grade({"answers": {"gpu": ["1", "2.5"]}, "gpu": "late"}, "gpu")
        self.assertEqual((r.verdict, r.longest_answer), ("timeout", {"gpu": 2.5}))  # kept: answer_times skips it

    def test_perf_verdict_from_recorded_properties_only(self):
        r = self.grade({"perf": [0.9], "perf_failure": "below the pass mark"}, "gpu")
        self.assertEqual(r.verdict, "perf-error")  # recorded a pass, yet failed: another check failed
        self.assertIn("failed a check during the perf test", r.message)
        r = self.grade({"perf": [0.2], "perf_failure": "some other text"}, "gpu")
        self.assertEqual(r.verdict, "slow")  # recorded result_check pass, verdict fail: just slow
        for missing in ("result_check", "verdict", "ratio", "threshold"):
            r = self.grade({"perf": [0.9], "props": {missing: None}}, "gpu")
            self.assertEqual(r.verdict, "perf-error", missing)
            self.assertIn(missing, r.message)
        r = self.grade({"perf": [0.2], "props": {"verdict": "pass"}}, "gpu")
        self.assertEqual(r.verdict, "perf-error")  # a verdict that contradicts its ratio and threshold
        r = self.grade({"perf": [0.9], "props": {"result_check": "maybe"}}, "gpu")
        self.assertEqual(r.verdict, "perf-error")

    def test_perf_that_fails_without_recording(self):
        r = self.grade(
            {
                "perf": [0.9],
                "props": {k: None for k in ("ratio", "threshold", "result_check", "verdict")},
                "perf_failure": "CUDA error: out of memory",
            },
            "gpu",
        )
        self.assertEqual(r.verdict, "perf-error")
        self.assertIn("failed before measuring", r.message)

    def test_perf_message_names_the_threshold_section(self):
        r = self.grade({"perf": [0.9]}, "gpu")
        self.assertIn("threshold 0.700 [gpu.nvidia_h200] on NVIDIA H200", r.message)

    def test_seed_and_grader_paths_never_in_messages(self):
        r = self.grade({"correct": "wrong"})
        self.assertNotIn("SECRETSEED", r.message)
        self.assertNotIn(str(self.tmp), r.message)
        self.assertIn("01_matadd/matadd.cu:9", r.message)

    def test_unhealthy_gpu_is_not_the_students_fault(self):
        opts = Options(backend="gpu", gpus=("0",))
        g = lab_grader.LabGrader(COURSE_FAST, opts, self.tmp, "x")
        g.gpu_healthy = lambda gpu: False
        r = g.grade(submission({"correct": "crash"}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "crash")  # in check mode, on the CPU: the GPU is not involved
        r = g.grade(submission({"gpu": "crash"}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "not-graded")
        r = g.grade(submission({}), LAB01, FakeTree(self.tmp, "gpu"))
        self.assertEqual(r.verdict, "not-graded")  # later students are not graded on a broken GPU

    def test_slow_gpu_run_needs_no_health_probe(self):
        opts = Options(backend="gpu", gpus=("0",))
        g = lab_grader.LabGrader(COURSE_FAST, opts, self.tmp, "x")
        probes = []
        g.gpu_healthy = lambda gpu: probes.append(gpu) or True
        self.assertEqual(g.grade(submission({"perf": [0.2]}), LAB01, FakeTree(self.tmp, "gpu")).verdict, "slow")
        self.assertEqual(probes, [])
        self.assertEqual(g.grade(submission({"gpu": "wrong"}), LAB01, FakeTree(self.tmp, "gpu")).verdict, "wrong")
        self.assertEqual(probes, ["0"])


class Findings(unittest.TestCase):
    def test_cpu_backend_diagnoses_are_listed(self):
        c = gtest.TestCase(
            "A",
            "b",
            "failed",
            [
                "x | [uninitialized-shared-read] 03_tiled_gemm/tiled_gemm.cu:26: thread (0,0)",
                "  [race] tiled_gemm.cu:28: written by (1,0) (3 times)\n  [race] tiled_gemm.cu:28: again",
            ],
            {},
        )
        self.assertEqual(
            diagnostics.findings([c]), "uninitialized-shared-read at tiled_gemm.cu:26, race at tiled_gemm.cu:28"
        )


class RuntimeGaps(unittest.TestCase):
    """Check mode's finding `unsupported` is the backend's gap only when every failed test met it."""

    GAP = (
        "[unsupported] 07_double_buffering/double_buffered_gemm.cu:41: the CPU backend does not support this use of "
        "the cuda::pipeline at line 41 (thread (0,0) of block (0,0)): its group has 32 threads and the block has "
        "256; it supports a pipeline of the whole block."
    )

    def case(self, *texts: str) -> gtest.TestCase:
        return gtest.TestCase("DoubleBufferedGemm", "Sizes", "failed", list(texts), {})

    def test_every_failed_test_stopped_on_the_gap(self):
        failed = [self.case("x | " + self.GAP), self.case("values differ", "  " + self.GAP + " [3 occurrences]")]
        self.assertEqual(
            diagnostics.runtime_gap(failed),
            "the CPU backend does not support this use of the cuda::pipeline at line 41 (thread (0,0) of block (0,0)): "
            "its group has 32 threads and the block has 256",
        )

    def test_a_failure_without_it_is_the_students(self):
        self.assertEqual(diagnostics.runtime_gap([self.case(self.GAP), self.case("[race] a.cu:3: read")]), "")
        self.assertEqual(diagnostics.runtime_gap([self.case("[unsupported] a.cu:3: something else")]), "")
        self.assertEqual(diagnostics.runtime_gap([]), "")


class BackendGaps(unittest.TestCase):
    """Only an error with the marker that the compiler places in the CPU backend's own headers is a gap."""

    HEADERS = Path("/course/common/cpu/include")

    def test_static_assert_and_error_in_the_backends_headers(self):
        log = (
            "In file included from /w/student-0/06_reduction/reduction.cu:2:\n"
            "/course/common/cpu/include/cooperative_groups.h:201:17: error: static assertion failed: "
            "course-cpu-unsupported: cooperative_groups::this_grid() (a grid-wide barrier)\n"
            "/w/student-0/06_reduction/reduction.cu:9:3: note: in instantiation of ...\n"
        )
        self.assertEqual(
            diagnostics.backend_gap(log, self.HEADERS), "cooperative_groups::this_grid() (a grid-wide barrier)"
        )
        log = '/course/common/cpu/include/cuda_fp16.h:3:2: error: #error "course-cpu-unsupported: <cuda_fp16.h>"\n'
        self.assertEqual(diagnostics.backend_gap(log, self.HEADERS), "<cuda_fp16.h>")

    def test_a_cuda_header_the_backend_lacks(self):
        for log in (
            "/w/student-0/07_double_buffering/double_buffered_gemm.cu:8:10: fatal error: cuda/ptx: No such file or "
            "directory\ncompilation terminated.\n",
            "/w/s/07_double_buffering/double_buffered_gemm.cu:8:10: fatal error: 'cuda/ptx' file not found\n",
        ):
            self.assertEqual(diagnostics.missing_cuda_header(log), "the header <cuda/ptx>")
        self.assertIn("cuda_fp16.h", diagnostics.cuda_headers())
        self.assertIn("cuda/std/cstdint", diagnostics.cuda_headers())

    def test_a_missing_file_that_is_no_cuda_header_is_the_students(self):
        for log in (
            "/w/s/07_double_buffering/double_buffered_gemm.cu:3:10: fatal error: lab07_double_bufering.h: No such "
            "file or directory\n",
            "/w/s/07_double_buffering/double_buffered_gemm.cu:3:10: fatal error: cuda/nothing: No such file or "
            "directory\n",
            '/w/s/07.cu:3:2: error: #error "fatal error: cuda/ptx: No such file or directory"\n',
            "/w/s/07.cu:3:2: error: #error m.cu:3:10: fatal error: cuda/ptx: No such file or directory\n"
            "    3 | #error m.cu:3:10: fatal error: cuda/ptx: No such file or directory\n",  # the quoted source line
        ):
            self.assertEqual(diagnostics.missing_cuda_header(log), "", log)

    def test_an_undeclared_cuda_function_is_the_backends_gap(self):
        for log in (
            "/w/s/01_matadd/matadd.cu:7:14: error: '__vadd4' was not declared in this scope; did you mean '__hadd'?\n",
            "/w/s/01_matadd/matadd.cu:7:14: error: there are no arguments to '__vadd4' that depend on a template "
            "parameter, so a declaration of '__vadd4' must be available [-fpermissive]\n",
            "/w/s/01_matadd/matadd.cu:7:14: error: use of undeclared identifier '__vadd4'\n",
            "/w/s/01_matadd/matadd.cu:3:42: error: \u2018__vadd4\u2019 was not declared in this scope\n",
        ):
            self.assertEqual(
                diagnostics.missing_cuda_function(log), "__vadd4() (a CUDA function it does not provide)", log
            )
        for name in ("__shfl_down_sync", "cudaMemcpy3D", "__ldcs", "rnorm3df", "__double2float_rn"):
            self.assertIn(name, diagnostics.cuda_functions())

    def test_an_undeclared_name_that_cuda_does_not_declare_is_the_students(self):
        for log in (
            "/w/s/01_matadd/matadd.cu:7:14: error: 'idx' was not declared in this scope\n",
            "/w/s/01_matadd/matadd.cu:7:14: error: '__syncthread' was not declared in this scope; did you mean "
            "'__syncthreads'?\n",  # a typo
            "/w/s/01_matadd/matadd.cu:7:14: error: 'row_index' was not declared in this scope\n",
            "/w/s/01_matadd/matadd.cu:7:2: error: #error \"error: '__vadd4' was not declared in this scope\"\n",
            "/w/s/01_matadd/matadd.cu:7:14: error: '__vadd4' is not a member of 'std'\n",
            # g++ quotes the #error's source line, indented: read as an error line, it would forge the report
            "/w/s/01_matadd/matadd.cu:3:2: error: #error \"m.cu:3:14: error: '__vadd4' was not declared in this "
            'scope"\n    3 | #error "m.cu:3:14: error: \'__vadd4\' was not declared in this scope"\n      |  ^~~~~\n',
        ):
            self.assertEqual(diagnostics.missing_cuda_function(log), "", log)

    def test_ordinary_errors_and_a_students_own_marker_are_not_gaps(self):
        log = (
            "/w/student-0/06_reduction/reduction.cu:3:5: error: 'idx' was not declared in this scope\n"
            '/w/student-0/06_reduction/reduction.cu:4:2: error: #error "course-cpu-unsupported: anything"\n'
            "/course/common/cpu/include/course_cpu/check.h:40:5: error: no match for 'operator[]'\n"
        )
        self.assertEqual(diagnostics.backend_gap(log, self.HEADERS), "")


if __name__ == "__main__":
    unittest.main()
