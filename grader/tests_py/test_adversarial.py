"""The adversarial suite (grader/adversarial): its specs generate, and its checker fails when it must. Grading the
suite for real is the CTest test course.grader.adversarial (grader/adversarial/run.py)."""
import json
import socket
import sys
import time
from pathlib import Path

from helpers import COURSE, GRADER, TempDirTest

from course_grader import expected, samples
from course_grader.verdicts import VERDICTS, LabResult

SUITE = GRADER / "adversarial"
sys.path.insert(0, str(SUITE))
import checks  # noqa: E402
import run  # noqa: E402

CLASSES = ("esc_", "forge_", "seed_", "detect_", "perf_", "res_", "honest_")


def result(student: str, verdict: str, message: str = "", lab: str = "01") -> LabResult:
    return LabResult(student, lab, verdict, message)


class Specs(TempDirTest):
    def load(self):
        return {name: samples.load(path) for name, path in run.SPECS.items()}

    def test_every_attack_generates_with_expectations_for_both_backends(self):
        found = [s for group in self.load().values() for s in group]
        self.assertGreaterEqual(len(found), 30)
        self.assertEqual(len({s.name for s in found}), len(found), "one student per attack")
        for prefix in CLASSES:
            self.assertTrue(any(s.name.startswith(prefix) for s in found), prefix)
        for group in self.load().values():
            written = samples.generate(group, self.tmp / "out", COURSE.existing_labs())
            self.assertEqual(len(written), len(group))
        for s in found:
            self.assertTrue(s.why, s.name)
            self.assertTrue(set(s.verdicts["cpu"] + s.verdicts["gpu"]) <= set(VERDICTS), s.name)
            for backend, gap in s.known_gaps.items():
                self.assertIn("issue", gap, f"{s.name}: a known gap names the issue that tracks it")
            text = (self.tmp / "out" / s.name / s.path).read_text()
            if s.source == "file:by_hand.cu":
                self.assertNotIn("// ATTACK", text, s.name)  # the attack replaced the marker

    def test_perf_cheats_never_expect_credit_on_a_gpu(self):
        for s in self.load()["suite"]:
            if s.name.startswith(("perf_", "detect_", "forge_", "seed_", "esc_", "res_")) and s.name not in (
                "perf_own_stream",
                "perf_per_thread_stream",
                "detect_h_perf_run",  # finds nothing to tell runs apart: honest code, at its honest speed
                "forge_backend_gap",  # forges only on the CPU backend: nvcc compiles the honest kernel
                "forge_undeclared_cuda_function",  # likewise
            ):
                self.assertFalse({"pass", "partial"} & set(s.verdicts["gpu"]), s.name)

    def test_every_hang_is_a_timeout(self):
        for s in self.load()["hangs"]:
            self.assertEqual(s.verdicts, {"cpu": ("timeout",), "gpu": ("timeout",)}, s.name)


class Checker(TempDirTest):
    """A wrong expectation, a closed gap, a trace left behind: each makes the suite fail."""

    SPEC = {
        ("alice", "01"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": {"cpu": "", "gpu": ""}, "why": "x"},
        ("bob", "01"): {
            "cpu": ["correct"],
            "gpu": ["pass"],
            "message_contains": {"cpu": "", "gpu": ""},
            "known_gap": {"gpu": "forbidden today (issue 11)"},
            "why": "y",
        },
    }

    def test_a_wrong_expectation_fails(self):
        ok = [result("alice", "wrong"), result("bob", "correct")]
        self.assertEqual(expected.check(ok, self.SPEC, "cpu"), [])
        problems = expected.check([result("alice", "correct"), result("bob", "correct")], self.SPEC, "cpu")
        self.assertEqual(len(problems), 1)
        self.assertIn("alice lab01: verdict correct, expected wrong", problems[0])
        self.assertIn("not graded", expected.check([result("bob", "correct")], self.SPEC, "cpu")[0])

    def test_a_known_gap_is_reported_while_open_and_fails_once_closed(self):
        still = [result("alice", "wrong"), result("bob", "forbidden", "uses cudaStreamCreateWithFlags")]
        self.assertEqual(expected.check(still, self.SPEC, "gpu"), [])
        (line,) = expected.gaps(still, self.SPEC, "gpu")
        self.assertIn("bob lab01: verdict forbidden, should be pass: forbidden today (issue 11)", line)
        closed = [result("alice", "wrong"), result("bob", "pass")]
        (problem,) = expected.check(closed, self.SPEC, "gpu")
        self.assertIn("the known gap has closed", problem)
        self.assertEqual(expected.gaps(closed, self.SPEC, "gpu"), [])
        self.assertEqual(expected.gaps(still, self.SPEC, "cpu"), [])  # the gap is the GPU's only

    def test_a_cpu_backend_gap_counts_on_a_gpu_tree_with_check_mode(self):
        spec = {("carol", "01"): dict(self.SPEC[("bob", "01")], known_gap={"cpu": "no cudaStreamPerThread (issue 11)"})}
        built = [result("carol", "build-error")]
        self.assertEqual(len(expected.check(built, spec, "gpu")), 1)  # no check mode: the GPU must pass
        self.assertEqual(expected.check(built, spec, "gpu", check_mode=True), [])
        self.assertEqual(len(expected.gaps(built, spec, "gpu", check_mode=True)), 1)
        self.assertEqual(expected.check([result("carol", "pass")], spec, "gpu"), [])

    def test_a_known_gap_in_the_message(self):
        spec = {
            ("dan", "02"): dict(self.SPEC[("alice", "01")], cpu=["build-error"], known_gap={"cpu": "collect2 only"})
        }
        spec[("dan", "02")]["message_contains"] = {"cpu": "uncoalesced_gemm", "gpu": "uncoalesced_gemm"}
        today = [result("dan", "build-error", "collect2: error: ld returned 1 exit status", lab="02")]
        self.assertEqual(expected.check(today, spec, "cpu"), [])
        self.assertIn("as expected, but its message lacks 'uncoalesced_gemm'", expected.gaps(today, spec, "cpu")[0])
        closed = [result("dan", "build-error", "undefined reference to `uncoalesced_gemm(...)'", lab="02")]
        self.assertIn("the known gap has closed", expected.check(closed, spec, "cpu")[0])

    def test_traces_of_an_escape_are_found_and_removed_before_a_run(self):
        top, deep = self.tmp / "top", self.tmp / "out"
        (deep / "x" / "y").mkdir(parents=True)
        top.mkdir()
        self.assertEqual(checks.canaries([top], [deep]), [])
        (top / "course-canary-esc_h_system").touch()
        (deep / "x" / "y" / "course-canary-esc_h_daemon").touch()
        (top / "other").touch()
        found = checks.canaries([top, self.tmp / "missing"], [deep])
        self.assertEqual(len(found), 2)
        self.assertIn("course-canary-esc_h_daemon", found[0])
        checks.remove_canaries([top], [deep])
        self.assertEqual(checks.canaries([top], [deep]), [])
        self.assertTrue((top / "other").exists())

    def test_the_seed_in_any_output_or_log_is_found(self):
        out, runs = self.tmp / "out", self.tmp / "work" / "runs" / "alice"
        (out / "suite" / "results" / "alice").mkdir(parents=True)
        (out / ".work" / "build").mkdir(parents=True)
        runs.mkdir(parents=True)
        (out / "suite" / "class.csv").write_text("alice,01,wrong\n")
        (out / ".work" / "build" / "CMakeCache.txt").write_text("seed-1234")  # build trees are not outputs
        (runs / "output.log").write_text("nothing")
        self.assertEqual(checks.seed_leaks("seed-1234", out, [runs]), [])
        (out / "suite" / "results" / "alice" / "results.json").write_text('{"output": "seed-1234"}')
        (runs / "output.log").write_text("adversarial: COURSE_SEED=seed-1234")
        self.assertEqual(len(checks.seed_leaks("seed-1234", out, [runs])), 2)

    def write_outputs(self, out: Path, students: list[str]) -> None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "class.csv").write_text("student,lab,verdict\n" + "".join(f"{s},lab01,wrong\n" for s in students))
        results = [{"student": s, "lab": "01", "verdict": "wrong"} for s in students]
        (out / "class.json").write_text(json.dumps({"results": results}))
        table = "".join(f"| {s} | lab01 | wrong | ... |\n" for s in students)
        (out / "summary.md").write_text(f"# Grading summary\n\n{len(students)} submissions, labs 01\n\n{table}")
        for s in students:
            (out / "results" / s).mkdir(parents=True, exist_ok=True)
            (out / "results" / s / "results.json").write_text(json.dumps({"tests": [{"name": "lab01 correctness"}]}))

    def test_outputs_must_be_whole_and_from_this_run(self):
        out = self.tmp / "out"
        start = time.time() - 5
        self.write_outputs(out, ["alice", "bob"])
        self.assertEqual(checks.outputs_problems(out, self.SPEC, start), [])
        (out / "results" / "bob" / "results.json").write_text('{"tests": [')
        self.write_outputs(out / "two", ["alice"])
        problems = checks.outputs_problems(out, self.SPEC, start) + checks.outputs_problems(out / "two", self.SPEC, 0)
        self.assertEqual(len(problems), 5, problems)  # bob's results.json; the second: the count, bob nowhere
        self.assertIn("was not written by this run", checks.outputs_problems(out, self.SPEC, time.time() + 60)[0])

    def test_run_folders_hold_only_the_graders_files_within_the_limit(self):
        run_dir = self.tmp / "runs" / "alice" / "lab01" / "check"
        run_dir.mkdir(parents=True)
        (run_dir / "output.log").write_bytes(b"x" * 1000)
        (run_dir / "report.json").write_text("{}")
        self.assertEqual(checks.run_folder_problems([self.tmp / "runs" / "alice"], 1000), [])
        (run_dir / "output.log").write_bytes(b"x" * (1000 + (2 << 20)))
        (run_dir / "fill-0.bin").write_bytes(b"x")
        self.assertEqual(len(checks.run_folder_problems([self.tmp / "runs" / "alice"], 1000)), 2)

    def test_a_connection_to_a_listener_is_a_problem(self):
        listeners = checks.Listeners()
        if listeners.problems:
            listeners.close()
            self.skipTest("; ".join(listeners.problems))
        port = next(s.getsockname()[1] for s in listeners.sockets if s.family == socket.AF_INET)
        with socket.create_connection(("127.0.0.1", port)) as c:
            c.sendall(b"esc_h_socket\n")
        time.sleep(1.5)
        problems = listeners.close()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("esc_h_socket", problems[0])
