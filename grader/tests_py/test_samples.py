"""The bundled samples and their expected verdicts (the file itself; grading them is course.grader.samples)."""
import unittest

from helpers import COURSE, GRADER

from course_grader import expected, intake, verdicts

EXPECTED = GRADER / "samples" / "expected.toml"


class Samples(unittest.TestCase):
    def test_every_sample_has_an_expectation_and_back(self):
        exp = expected.load(EXPECTED)
        folders = {p.name for p in (GRADER / "samples").iterdir() if p.is_dir()}
        self.assertEqual(folders, {student for student, _ in exp})
        for (student, lab), spec in exp.items():
            for backend in ("cpu", "gpu"):
                self.assertTrue(spec[backend], f"{student} lab{lab}: no {backend} verdict")
                for v in spec[backend]:
                    self.assertIn(v, verdicts.VERDICTS, f"{student} lab{lab}")

    def test_each_sample_holds_its_lab_file(self):
        labs = tuple(COURSE.lab(n) for n in ("01", "03"))
        subs, _ = intake.discover(GRADER / "samples", COURSE, labs)
        by = {s.student: s for s in subs}
        for (student, lab), spec in expected.load(EXPECTED).items():
            lf = by[student].labs[lab]
            if spec["cpu"] == ["missing"]:
                self.assertTrue(lf.problem)
            else:
                self.assertEqual(lf.problem, "", student)

    def test_check(self):
        none = {"cpu": "", "gpu": ""}
        exp = {("a", "01"): {"cpu": ["correct"], "gpu": ["pass"], "message_contains": none, "why": ""},
               ("b", "01"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": {"cpu": "race", "gpu": "race"},
                             "why": ""},
               ("c", "09"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": none, "why": ""}}
        R = verdicts.LabResult
        ok = [R("a", "01", "correct", ""), R("b", "01", "wrong", "[race] x.cu:3")]
        self.assertEqual(expected.check(ok, exp, "cpu"), [])
        bad = [R("a", "01", "wrong", "m"), R("b", "01", "wrong", "oob")]
        self.assertEqual(len(expected.check(bad, exp, "cpu")), 2)
        self.assertEqual(len(expected.check(ok, exp, "gpu")), 1)

    def test_message_expectation_can_be_per_backend(self):
        exp = {("b", "03"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": {"cpu": "race", "gpu": ""},
                             "why": ""}}
        R = verdicts.LabResult
        self.assertEqual(expected.check([R("b", "03", "wrong", "C[8][32] is wrong")], exp, "gpu"), [])
        self.assertEqual(len(expected.check([R("b", "03", "wrong", "C[8][32] is wrong")], exp, "cpu")), 1)
        loaded = expected.load(EXPECTED)[("racy", "03")]["message_contains"]
        self.assertEqual(loaded, {"cpu": "race", "gpu": ""})


if __name__ == "__main__":
    unittest.main()
