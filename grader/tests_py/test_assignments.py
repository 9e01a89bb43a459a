"""Assignments (course.toml [assignments.NAME], grade.py --assignment) and one-student re-grades (grade.py --only),
end to end on submissions that are decided before any build (missing, rejected, forbidden)."""
import csv
import io
import json
import unittest
from contextlib import redirect_stderr
from pathlib import Path

from helpers import COURSE, NO_SANDBOX_ARGS, TempDirTest

from course_grader import assignments, cli, config, record, regrade, sandbox, slurm, slurm_tasks

FORBIDDEN = b"#include <cublas_v2.h>\n"
EXTRA = """
[assignments.two]
labs = ["03", "01"]
points = { 01 = 20 }
due = 2027-03-01T23:59:00-05:00
"""


def rows(out) -> dict:
    return {(r["student"], r["lab"]): r for r in csv.DictReader((out / "class.csv").read_text().splitlines())}


class Parsing(TempDirTest):
    def parse(self, text: str) -> dict:
        path = self.tmp / "course.toml"
        path.write_text(config.DEFAULT_CONFIG.read_text(encoding="utf-8") + text)
        return config.load(path).assignments

    def test_labs_points_and_due(self):
        two = self.parse(EXTRA)["two"]
        self.assertEqual((two.labs, two.points, two.due), (("01", "03"), {"01": 20.0}, "2027-03-01T23:59:00-05:00"))
        lab01, lab03 = two.select(COURSE.existing_labs())
        self.assertEqual((lab01.number, lab01.correctness_points, lab01.performance_points), ("01", 12.0, 8.0))
        self.assertEqual((lab03.correctness_points, lab03.performance_points), (6.0, 4.0))  # the manifest's
        self.assertIn("due 2027-03-01", two.title)

    def test_the_course_defines_assignments(self):
        for a in COURSE.assignments.values():
            self.assertTrue(a.select(COURSE.existing_labs()))

    def test_mistakes_are_named(self):
        for text, words in (
            ('[assignments.x]\nlabs = ["01"]\npoint = 3\n', "unknown key 'point'"),
            ("[assignments.x]\nlabs = []\n", "'labs' must be a non-empty list"),
            ('[assignments.x]\nlabs = ["01", "1"]\n', "names a lab twice"),
            ('[assignments.x]\nlabs = ["01"]\npoints = { 03 = 5 }\n', "points for lab 03, which is not in its labs"),
            ('[assignments.x]\nlabs = ["01"]\npoints = { 01 = -5 }\n', "must be a positive number"),
            ('[assignments.x]\nlabs = ["01"]\ndue = 5\n', "'due' must be a TOML date"),
        ):
            with self.subTest(text=text), self.assertRaisesRegex(config.ConfigError, words):
                self.parse(text)

    def test_a_lab_this_checkout_lacks(self):
        a = assignments.Assignment("x", ("01", "97"))
        with self.assertRaisesRegex(assignments.AssignmentError, "lab 97, which this checkout does not have"):
            a.select(COURSE.existing_labs())


class Run(TempDirTest):
    def setUp(self):
        super().setUp()
        self.config = self.tmp / "course.toml"
        self.config.write_text(config.DEFAULT_CONFIG.read_text(encoding="utf-8") + EXTRA)
        self.subs = self.tmp / "input"
        self.write("alice/matadd.cu", FORBIDDEN)
        self.write("alice/tiled_gemm.cu", FORBIDDEN)
        self.write("bob/01_matadd/matadd.cu", b"int x;\0")  # rejected: not a text file
        self.write("carol/notes.txt", b"nothing to grade")  # missing
        self.out = self.tmp / "out"

    def write(self, rel: str, data: bytes) -> None:
        p = self.subs / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    def grade(self, *args):
        err = io.StringIO()
        previous = sandbox.use(None)
        try:
            with redirect_stderr(err):
                argv = [str(self.subs), "--out", str(self.out), "--config", str(self.config), "--backend", "cpu"]
                rc = cli.main(argv + ["--quiet", "--no-plots", *NO_SANDBOX_ARGS, *map(str, args)])
        finally:
            sandbox.use(previous)
        return rc, err.getvalue()

    def snapshot(self) -> dict:
        files = [p for p in self.out.rglob("*") if p.is_file() and ".work" not in p.relative_to(self.out).parts]
        return {p.relative_to(self.out): p.read_bytes() for p in files}

    def test_one_assignment_is_graded_and_reported(self):
        rc, err = self.grade("--assignment", "two")
        self.assertEqual(rc, 0, err)
        found = rows(self.out)
        self.assertEqual(sorted({lab for _, lab in found}), ["lab01", "lab03"])  # no other lab, no 'missing' rows
        self.assertEqual(len(found), 6)
        self.assertEqual({r["max_score"] for (_, lab), r in found.items() if lab == "lab01"}, {"20"})
        self.assertEqual({r["max_score"] for (_, lab), r in found.items() if lab == "lab03"}, {"10"})
        summary = (self.out / "summary.md").read_text()
        self.assertIn("Assignment **two**, due 2027-03-01T23:59:00-05:00, out of 30 points", summary)
        alice = json.loads((self.out / "results" / "alice" / "results.json").read_text())
        self.assertEqual(sum(t["max_score"] for t in alice["tests"]), 30)
        self.assertEqual(alice["extra_data"]["assignment"], "two")
        self.assertEqual(record.load(self.out).assignment, "two")

    def test_assignment_mistakes(self):
        rc, err = self.grade("--assignment", "nope")
        self.assertEqual(rc, 2)
        self.assertIn("no [assignments.nope]", err)
        rc, err = self.grade("--assignment", "two", "--labs", "01")
        self.assertEqual(rc, 2)
        self.assertIn("do not go together", err)
        self.assertFalse(self.out.exists())

    def test_only_one_student_is_regraded_and_merged(self):
        rc, err = self.grade("--assignment", "two")
        self.assertEqual(rc, 0, err)
        before = self.snapshot()
        self.write("bob/01_matadd/matadd.cu", FORBIDDEN)  # bob's corrected upload, graded again alone
        rc, err = self.grade("--only", "bob")
        self.assertEqual(rc, 0, err)
        self.assertIn("the previous outputs are in", err)
        found = rows(self.out)
        self.assertEqual(len(found), 6)
        self.assertEqual(found[("bob", "lab01")]["verdict"], "forbidden")
        self.assertEqual(found[("bob", "lab01")]["max_score"], "20")  # the assignment's points, as the class run
        after = self.snapshot()
        for student in ("alice", "carol"):  # the others' results are as they were
            rel = next(p for p in before if p.parts[:2] == ("results", student))
            self.assertEqual(after[rel], before[rel])
        (kept,) = (self.out / regrade.PREVIOUS).iterdir()
        self.assertTrue(kept.name.endswith("-bob"))
        for name in ("class.csv", "summary.md", "class.json"):
            self.assertEqual((kept / name).read_bytes(), before[Path(name)], name)
        self.assertIn("rejected", (kept / "results" / "bob" / "results.json").read_text())
        self.assertEqual([p for p in self.out.iterdir() if p.name.startswith(".regrade")], [])
        self.assertIn("| bob | lab01 | forbidden |", (self.out / "summary.md").read_text())

    def test_bad_regrades_lose_nothing(self):
        rc, err = self.grade("--only", "bob")
        self.assertEqual(rc, 2)
        self.assertIn("there are none to merge into", err)
        self.assertFalse((self.out / "class.csv").exists())
        rc, err = self.grade("--labs", "01")
        self.assertEqual(rc, 0, err)
        before = self.snapshot()
        for args, words in (
            (("--only", "bobb"), "no such student"),
            (("--only", "bob", "--labs", "03"), "graded for labs 01"),
            (("--only", "bob", "--assignment", "two"), "graded as labs 01"),
        ):
            with self.subTest(args=args):
                rc, err = self.grade(*args)
                self.assertEqual(rc, 2, err)
                self.assertIn(words, err)
                self.assertEqual(self.snapshot(), before)
        self.assertIn("did you mean bob?", self.grade("--only", "bobb")[1])
        self.assertFalse((self.out / regrade.PREVIOUS).exists())
        (self.out / record.NAME).write_text("{")  # a damaged record: nothing to merge into either
        rc, err = self.grade("--only", "bob")
        self.assertEqual(rc, 2)
        self.assertIn("cannot be read", err)
        self.assertEqual((self.out / "class.csv").read_bytes(), before[Path("class.csv")])

    def test_slurm_grades_an_assignment_and_refuses_only(self):
        course = config.load(self.config)
        self.assertEqual(slurm._labs(course, "", "two"), ["01", "03"])
        labs = slurm_tasks.graded_labs({"assignment": "two", "labs": ["01", "03"]}, course)
        self.assertEqual([lab.max_points for lab in labs], [20.0, 10.0])
        self.assertEqual(slurm.FORWARDED["assignment"], "--assignment")
        err = io.StringIO()
        with redirect_stderr(err):
            rc = cli.main([str(self.subs), "--out", str(self.out), "--slurm", "--only", "bob"])
        self.assertEqual(rc, 2)
        self.assertIn("without --slurm", err.getvalue())


if __name__ == "__main__":
    unittest.main()
