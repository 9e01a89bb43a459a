"""class.csv, results.json (Gradescope format), summary.md, plots; the command line on inputs that need no build."""
import csv
import io
import json
import unittest
import zipfile
from contextlib import redirect_stderr

from helpers import COURSE, CORRECT, LAB01, LAB03, NO_SANDBOX_ARGS, TempDirTest

from course_grader import cli, intake, report, sandbox, verdicts

LABS = (LAB01, LAB03)


def results():
    R = verdicts.LabResult
    return [
        R("alice", "01", "pass", "12 correctness tests passed; ratio 0.8", "pass", 0.8, 0.7, 6, 4, 6, 4),
        R("alice", "03", "missing", "no tiled_gemm.cu", correctness_max=6, perf_max=4),
        R("bob", "01", "wrong", "1 of 12 failed:\nC[3] | bad", "fail", correctness_max=6, perf_max=4),
        R("bob", "03", "correct", "ok", "pass", None, None, 6, 0, 6, 4, "not graded (no GPU): on the course GPU"),
    ]


class Outputs(TempDirTest):
    def test_csv(self):
        report.write_csv(results(), self.tmp / "c.csv")
        rows = list(csv.DictReader((self.tmp / "c.csv").read_text(encoding="utf-8").splitlines()))
        self.assertEqual(list(rows[0]), report.CSV_FIELDS)
        self.assertEqual(
            (rows[0]["student"], rows[0]["lab"], rows[0]["ratio"], rows[0]["score"]), ("alice", "lab01", "0.800", "10")
        )
        self.assertNotIn("\n", rows[2]["message"])

    def test_results_json(self):
        subs = [intake.Submission("alice", "alice", notes=["ignored 2 file(s)"]), intake.Submission("bob", "bob")]
        report.write_student_results(results(), subs, self.tmp)
        data = json.loads((self.tmp / "results" / "alice" / "results.json").read_text())
        self.assertEqual(data["score"], 10)
        self.assertEqual(len(data["tests"]), 4)
        for t in data["tests"]:
            self.assertEqual(set(t), {"name", "score", "max_score", "output", "visibility"})
        self.assertIn("ignored 2", data["output"])
        bob = json.loads((self.tmp / "results" / "bob" / "results.json").read_text())
        self.assertIn("not graded (no GPU)", bob["tests"][3]["output"])

    def test_summary(self):
        subs = [intake.Submission("alice", "alice"), intake.Submission("bob", "bob")]
        report.write_summary(results(), subs, LABS, ["x.txt: ignored"], "cpu", self.tmp, [])
        text = (self.tmp / "summary.md").read_text()
        self.assertIn("| lab01 | 2 | 1 |", text)
        self.assertIn("| bob | lab01 | wrong |", text)
        self.assertIn("C[3] \\| bad", text)
        self.assertIn("x.txt", text)

    def test_plots_never_fail(self):
        orig = report._python_with_matplotlib
        try:
            report._python_with_matplotlib = lambda: None
            made, msg = report.write_plots(results(), LABS, self.tmp)
            self.assertEqual(made, [])
            self.assertIn("matplotlib is not installed", msg)
            report._python_with_matplotlib = lambda: "/nonexistent/python"
            made, msg = report.write_plots(results(), LABS, self.tmp)
            self.assertEqual(made, [])
        finally:
            report._python_with_matplotlib = orig
        made, msg = report.write_plots(results(), LABS, self.tmp)
        if made:
            self.assertTrue((self.tmp / made[0]).is_file())
        else:
            self.assertTrue(msg)


class CommandLine(TempDirTest):
    """Whole runs on submissions that are decided before any build (missing, rejected, forbidden)."""

    def grade(self, *args, machine_default=True):
        """machine_default: add --no-sandbox where bwrap is not installed (helpers.NO_SANDBOX_ARGS)."""
        err = io.StringIO()
        previous = sandbox.use(None)  # the command sets the process's sandbox policy
        extra = NO_SANDBOX_ARGS if machine_default else ()
        try:
            with redirect_stderr(err):
                rc = cli.main([*map(str, args), "--backend", "cpu", "--quiet", "--labs", "01", *extra])
        finally:
            sandbox.use(previous)
        return rc, err.getvalue()

    def test_bad_inputs_end_to_end(self):
        sub = self.tmp / "input"
        sub.mkdir()
        (sub / "alice").mkdir()
        (sub / "alice" / "matadd.cu").write_bytes(b"#include <cublas_v2.h>\n")
        with zipfile.ZipFile(sub / "alice.zip", "w") as zf:
            zf.writestr("matadd.cu", CORRECT)
        with zipfile.ZipFile(sub / "evil.zip", "w") as zf:
            zf.writestr("../../../escaped.cu", b"x")
            zf.writestr("/tmp/abs.cu", b"x")
        (sub / "huge").mkdir()
        (sub / "huge" / "matadd.cu").write_bytes(b"/" * (COURSE.limits.max_file_bytes + 10))
        (sub / "cheat").mkdir()
        (sub / "cheat" / "matadd.cu").write_text('#include "../../solutions/01_matadd/matadd.cu"\n')
        (sub / "empty").mkdir()
        (sub / "README.txt").write_text("hi")
        out = self.tmp / "out"
        rc, err = self.grade(sub, "--out", out)
        self.assertEqual(rc, 0, err)
        rows = {(r["student"], r["lab"]): r for r in csv.DictReader((out / "class.csv").read_text().splitlines())}
        self.assertEqual(rows[("alice", "lab01")]["verdict"], "rejected")
        self.assertIn("duplicate", rows[("alice", "lab01")]["message"])
        self.assertEqual(rows[("evil", "lab01")]["verdict"], "missing")
        self.assertEqual(rows[("huge", "lab01")]["verdict"], "rejected")
        self.assertEqual(rows[("cheat", "lab01")]["verdict"], "forbidden")
        self.assertEqual(rows[("empty", "lab01")]["verdict"], "missing")
        evil = json.loads((out / "results" / "evil" / "results.json").read_text())
        self.assertIn("'..'", evil["output"])
        self.assertIn("README.txt", (out / "summary.md").read_text())
        written = [p for p in self.tmp.rglob("*") if p.is_file() and out not in p.parents and sub not in p.parents]
        self.assertEqual(written, [])

    def test_empty_folder(self):
        (self.tmp / "input").mkdir()
        rc, err = self.grade(self.tmp / "input", "--out", self.tmp / "out")
        self.assertEqual(rc, 0)
        self.assertIn("holds no submission", err)
        self.assertTrue((self.tmp / "out" / "summary.md").is_file())

    def test_without_bubblewrap_grading_refuses_unless_no_sandbox(self):
        sub = self.tmp / "input"
        (sub / "alice").mkdir(parents=True)
        (sub / "alice" / "matadd.cu").write_bytes(b"#include <cublas_v2.h>\n")
        which = sandbox.shutil.which
        sandbox.shutil.which = lambda name, *a, **k: None if name == "bwrap" else which(name, *a, **k)
        try:
            rc, err = self.grade(sub, "--out", self.tmp / "out", machine_default=False)
            self.assertEqual(rc, 2)
            self.assertIn("sudo apt-get install bubblewrap", err)
            self.assertIn("--no-sandbox", err)
            self.assertFalse((self.tmp / "out" / "class.csv").exists())
            rc, err = self.grade(sub, "--out", self.tmp / "out", "--no-sandbox", machine_default=False)
        finally:
            sandbox.shutil.which = which
        self.assertEqual(rc, 0, err)
        out = self.tmp / "out"
        rows = list(csv.DictReader((out / "class.csv").read_text().splitlines()))
        self.assertEqual({r["sandbox"] for r in rows}, {sandbox.Policy(False).note})
        self.assertIn("**OFF (--no-sandbox)", (out / "summary.md").read_text())
        data = json.loads((out / "results" / "alice" / "results.json").read_text())
        self.assertEqual(data["extra_data"], {"sandbox": sandbox.Policy(False).note})

    def test_usage_errors(self):
        (self.tmp / "input").mkdir()
        self.assertEqual(self.grade(self.tmp / "input", "--out", self.tmp / "input" / "out")[0], 2)
        self.assertEqual(self.grade(self.tmp / "nope", "--out", self.tmp / "out")[0], 2)
        err = io.StringIO()
        with redirect_stderr(err):
            self.assertEqual(
                cli.main([str(self.tmp / "input"), "--out", str(self.tmp / "o"), "--labs", "09", *NO_SANDBOX_ARGS]), 2
            )


if __name__ == "__main__":
    unittest.main()
