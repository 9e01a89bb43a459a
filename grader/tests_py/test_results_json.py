"""results.json for Gradescope (course_grader/results_json.py): every failing test, the same max_score whatever the
verdict, execution_time, visibility from course.toml, repository-relative paths, texts cut at a word, nothing twice."""
import json
import unittest

from helpers import COURSE, LAB01, TempDirTest
from test_grading import COURSE_FAST, FakeTree, submission
from test_gtest import fake_gtest, report

from course_grader import config, diagnostics, gradescope, intake, lab_grader, report as outputs, results_json, sandbox
from course_grader.grading import Options
from course_grader.verdicts import LabResult

R = LabResult
FAILURES = [
    ("MatAdd.MatchesReference/1x1", "grader/labs/01_matadd/test.cpp:70 | C[0][0]: got 1, expected 2"),
    ("MatAdd.MatchesReference/31x33", "grader/labs/01_matadd/test.cpp:70 | C[3][1]: got 5, expected 6"),
    ("MatAdd.MatchesReference/1x1000", "grader/labs/01_matadd/test.cpp:70 | C[3][1]: got 5, expected 6"),
]


def wrong():
    first = f"{FAILURES[0][0]}: {FAILURES[0][1]}"
    message = f"3 of 12 correctness tests failed (lab01_check); first: {first}"
    return R("s", "01", "wrong", message, "fail", correctness_max=6, perf_max=4, failures=list(FAILURES))


def by_name(data: dict) -> dict:
    return {t["name"]: t for t in data["tests"]}


class Entries(unittest.TestCase):
    def test_every_failing_test_is_listed_with_its_message_once(self):
        out = by_name(results_json.student_results([wrong()], []))["lab01 correctness"]["output"]
        for name, _ in FAILURES:
            self.assertIn(name, out)
        self.assertIn("Failing correctness tests (3):", out)
        self.assertEqual(out.count("C[0][0]: got 1, expected 2"), 1)  # the first failure is in the message already
        self.assertEqual(out.count("C[3][1]: got 5, expected 6"), 1)  # two tests with the same message
        self.assertIn("- MatAdd.MatchesReference/1x1000: the same message as MatAdd.MatchesReference/31x33", out)

    def test_every_name_even_with_many_long_messages(self):
        r = wrong()
        r.failures = [(f"Gemm.Size/{n}", f"case {n}: " + "a long explanation " * 30) for n in range(50)]
        out = by_name(results_json.student_results([r], []))["lab01 correctness"]["output"]
        for name, _ in r.failures:
            self.assertIn(f"- {name}: case", out)
        self.assertLess(len(out), results_json.MAX_OUTPUT)

    def test_max_score_is_the_same_whatever_the_verdict(self):
        message = "all correctness tests passed on the CPU backend; not graded (no GPU)"
        correct = R("s", "01", "correct", message, "pass", None, None, 6, 0, 6, 4, "not graded (no GPU)")
        missing = R("s", "01", "missing", "no matadd.cu", correctness_max=6, perf_max=4)
        for elsewhere, perf_max in ((True, 0), (False, 4)):  # the Gradescope autograder; the class run
            for r in (correct, wrong(), missing):
                tests = by_name(results_json.student_results([r], [], graded_elsewhere=elsewhere))
                self.assertEqual(tests["lab01 correctness"]["max_score"], 6, r.verdict)
                self.assertEqual(tests["lab01 performance"]["max_score"], perf_max, (r.verdict, elsewhere))

    def test_execution_time_in_seconds(self):
        r = wrong()
        r.seconds = 41.6
        self.assertEqual(results_json.student_results([r, r], [])["execution_time"], 83)
        self.assertEqual(results_json.student_results([r], [], execution_time=7.2)["execution_time"], 7)

    def test_performance_details_only_in_the_performance_entry(self):
        message = "12 correctness tests passed; MatAddPerf.BandwidthVsCopy: bw/copy = 0.650, threshold 0.700"
        r = R("s", "01", "partial", message, "pass", 0.65, 0.7, 6, 2.86, 6, 4)
        visibility = config.Visibility(correctness="visible", performance="after_due_date")
        tests = by_name(results_json.student_results([r], [], visibility))
        self.assertNotIn("0.65", tests["lab01 correctness"]["output"])
        self.assertEqual(tests["lab01 correctness"]["visibility"], "visible")
        self.assertIn("threshold 0.700", tests["lab01 performance"]["output"])
        self.assertEqual(tests["lab01 performance"]["visibility"], "after_due_date")

    def test_no_text_twice(self):
        hint = "MatAdd.cu: not a lab file name; did you mean matadd.cu? (names are case-sensitive)"
        missing = R("s", "01", "missing", f"no matadd.cu in the submission; {hint}", correctness_max=6, perf_max=4)
        data = results_json.student_results([missing], [hint, "ignored 2 file(s) that are not lab files"])
        self.assertEqual(json.dumps(data).count("did you mean"), 1)
        self.assertIn("ignored 2 file(s)", data["output"])
        message = "12 correctness tests passed; perf: lab01_gpu crashed (SIGSEGV)"
        error = R("s", "01", "perf-error", message, "pass", correctness_score=6, correctness_max=6, perf_max=4)
        self.assertEqual(json.dumps(results_json.student_results([error], [])).count("SIGSEGV"), 1)
        log = "\n".join(["FAILED: a.o", "x/01_matadd/matadd.cu:11:5: error: 'idx' was not declared"] * 2)
        once = "labs/01_matadd/matadd.cu:11:5: error: 'idx' was not declared"
        self.assertEqual(diagnostics.compiler_messages(log, "x"), once)  # the check and cpu builds both fail

    def test_long_texts_are_cut_at_a_word(self):
        words = " ".join(f"word{i:03d}" for i in range(200))  # 1599 characters
        cut = diagnostics.shorten(words, 500)
        self.assertLessEqual(len(cut), 500)
        self.assertTrue(cut.endswith("…"))
        self.assertIn(cut[:-1] + " ", words)  # whole words only
        self.assertEqual(diagnostics.first_lines(words), cut)
        self.assertEqual(diagnostics.shorten("short", 500), "short")
        self.assertEqual(diagnostics.shorten("x" * 600, 10), "x" * 9 + "…")  # one long word: cut it


class VisibilityConfig(TempDirTest):
    def test_visibility_is_configured_in_course_toml(self):
        self.assertIn(COURSE.visibility.performance, config.VISIBILITIES)
        text = config.DEFAULT_CONFIG.read_text(encoding="utf-8")
        path = self.tmp / "course.toml"
        path.write_text(text.replace('performance = "after_due_date"', 'performance = "later"'))
        with self.assertRaisesRegex(config.ConfigError, "visibility.performance"):
            config.load(path)
        path.write_text(text.replace('performance = "after_due_date"', 'performance = "hidden"'))
        self.assertEqual(config.load(path).visibility.performance, "hidden")


class FromTheGrader(TempDirTest):
    """What the grader puts into a result: every failed test, paths relative to the course repository."""

    def setUp(self):
        super().setUp()
        self._policy = sandbox.use(sandbox.Policy(False))

    def tearDown(self):
        sandbox.use(self._policy)
        super().tearDown()

    def test_failures_with_repository_relative_paths(self):
        tmp = self.tmp

        class AllWrong(FakeTree):
            def build(self, lab, files):
                text = f"{COURSE.repo_root}/grader/labs/01_matadd/test.cpp:70\nC[{{n}}] wrong | "
                text += f"[race] {self.student_dir}/01_matadd/matadd.cu:9: SECRETSEED"
                cases = [("MatAdd", f"MatchesReference/{n}", "failed", [text.format(n=n)], {}) for n in range(3)]
                for p in self.programs(lab):
                    fake_gtest(p.path, f"json.dump({report(cases)!r}, open(report, 'w'))\n")
                return True, ""

        g = lab_grader.LabGrader(COURSE_FAST, Options(backend="cpu"), tmp, "SECRETSEED")
        r = g.grade(submission({}), LAB01, AllWrong(tmp, "cpu"))
        self.assertEqual(r.verdict, "wrong")
        self.assertEqual([name for name, _ in r.failures], [f"MatAdd.MatchesReference/{n}" for n in range(3)])
        data = results_json.student_results([r], [])
        text = json.dumps(data)
        for absolute in (str(tmp), str(COURSE.repo_root), "SECRETSEED"):
            self.assertNotIn(absolute, text)
        self.assertIn("grader/labs/01_matadd/test.cpp:70", r.failures[2][1])
        self.assertIn("labs/01_matadd/matadd.cu:9", r.failures[2][1])
        out = by_name(data)["lab01 correctness"]["output"]
        self.assertIn("- MatAdd.MatchesReference/2: grader/labs/01_matadd/test.cpp:70 | C[2] wrong", out)

    def test_class_run_and_gradescope_use_the_configured_visibility(self):
        subs = [intake.Submission("s", "s")]
        outputs.write_student_results([wrong()], subs, self.tmp, visibility={"performance": "after_published"})
        data = json.loads((self.tmp / "results" / "s" / "results.json").read_text())
        self.assertEqual(by_name(data)["lab01 performance"]["visibility"], "after_published")
        self.assertIn("execution_time", data)
        root = self.tmp / "autograder"
        (root / "submission").mkdir(parents=True)
        (root / "submission" / "matadd.cu").write_text("#include <thrust/reduce.h>\n")
        data = gradescope.run(root, COURSE, (LAB01,), root / "work")
        self.assertEqual(by_name(data)["lab01 performance"]["visibility"], COURSE.visibility.performance)
        self.assertEqual(by_name(data)["lab01 performance"]["max_score"], 0)
        self.assertIsInstance(data["execution_time"], int)


if __name__ == "__main__":
    unittest.main()
