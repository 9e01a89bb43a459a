"""The bundled samples (grader/samples/samples.toml): every one generates, lands where the intake expects it and comes
from the course's own sources; the expected-verdict check; grade.py generating them. Grading them for real is the
CTest test course.grader.samples."""
import io
import unittest
from contextlib import redirect_stderr

from helpers import COURSE, LAB01, LAB03, NO_SANDBOX_ARGS, TempDirTest

from course_grader import catalogue, cli, expected, intake, samples, verdicts

SPEC = samples.SPEC


class BundledSamples(TempDirTest):
    def generate(self):
        out = self.tmp / "samples"
        written = samples.generate(samples.load(SPEC), out, COURSE.existing_labs())
        return out, {s.name: s for s in written}

    def test_every_sample_generates_with_valid_expectations(self):
        out, written = self.generate()
        self.assertEqual(set(written), {s.name for s in samples.load(SPEC)})
        self.assertEqual({p.name for p in out.iterdir()}, set(written))
        for (student, lab), spec in expected.load(SPEC).items():
            self.assertTrue(spec["why"], student)
            for backend in ("cpu", "gpu"):
                self.assertTrue(spec[backend], f"{student} lab{lab}: no {backend} verdict")
                for v in spec[backend]:
                    self.assertIn(v, verdicts.VERDICTS, f"{student} lab{lab}")

    def test_each_sample_holds_its_lab_file(self):
        out, _ = self.generate()
        subs, ignored = intake.discover(out, COURSE, (LAB01, LAB03))
        self.assertEqual(ignored, [])
        by = {s.student: s for s in subs}
        for (student, lab), spec in expected.load(SPEC).items():
            lf = by[student].labs[lab]
            if spec["cpu"] == ["missing"]:
                self.assertTrue(lf.problem, student)
            else:
                self.assertEqual(lf.problem, "", student)

    def test_the_layouts_the_intake_is_tested_with(self):
        out, written = self.generate()
        self.assertTrue((out / "slow" / "matadd.cu").is_file())  # flat
        self.assertTrue((out / "misnamed" / "MatAdd.cu").is_file())  # wrong name
        self.assertTrue((out / "correct" / "01_matadd" / "matadd.cu").is_file())
        self.assertEqual(written["racy"].lab, "03")

    def test_samples_come_from_the_course_sources(self):
        out, _ = self.generate()
        variant = (LAB01.dir / "variants" / "scalar_256.cu").read_text()
        self.assertEqual((out / "correct" / "01_matadd" / "matadd.cu").read_text(), variant)
        racy = {m.name: m for m in catalogue.load_catalogue(LAB03)}["missing_first_sync"]
        self.assertEqual((out / "racy" / "03_tiled_gemm" / "tiled_gemm.cu").read_text(), racy.text)
        for s in samples.load(SPEC):
            if s.edits:  # each edit leaves its mark: the bug is in the file
                self.assertNotEqual((out / s.name / s.path).read_text(), variant, s.name)

    def test_the_bugs_are_where_they_were(self):
        out, _ = self.generate()

        def text(name):
            return next((out / name).rglob("*.cu")).read_text()

        self.assertIn("c[i] = a[i] + a[i];", text("wrong"))
        self.assertIn("c[i + (1ll << 30)] = a[i] + b[i];", text("crashing"))
        self.assertIn("while (volatile_a[0] == volatile_a[0])", text("hanging"))
        self.assertIn("c[idx] = a[idx] + b[idx];", text("not_compiling"))
        self.assertIn("#include <cublas_v2.h>", text("forbidden"))
        self.assertIn("cublasSgeam(", text("forbidden"))
        self.assertIn("static_cast<int>(t % rows)", text("slow"))
        self.assertNotIn("__syncthreads();\n#pragma unroll", text("racy"))

    def test_one_sample_as_text(self):
        out, _ = self.generate()
        self.assertEqual(samples.source("racy", COURSE.labs), (out / "racy/03_tiled_gemm/tiled_gemm.cu").read_text())
        with self.assertRaises(samples.SampleError):
            samples.source("nobody", COURSE.labs)

    def test_generating_only_some_labs(self):
        written = samples.generate(samples.load(SPEC), self.tmp / "s", (LAB03,))
        self.assertEqual([s.name for s in written], ["racy"])
        self.assertEqual([p.name for p in (self.tmp / "s").iterdir()], ["racy"])


class Check(unittest.TestCase):
    def test_check(self):
        none = {"cpu": "", "gpu": ""}
        exp = {
            ("a", "01"): {"cpu": ["correct"], "gpu": ["pass"], "message_contains": none, "why": ""},
            ("b", "01"): {
                "cpu": ["wrong"],
                "gpu": ["wrong"],
                "message_contains": {"cpu": "race", "gpu": "race"},
                "why": "",
            },
            ("c", "09"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": none, "why": ""},
        }
        R = verdicts.LabResult
        ok = [R("a", "01", "correct", ""), R("b", "01", "wrong", "[race] x.cu:3")]
        self.assertEqual(expected.check(ok, exp, "cpu"), [])
        bad = [R("a", "01", "wrong", "m"), R("b", "01", "wrong", "oob")]
        self.assertEqual(len(expected.check(bad, exp, "cpu")), 2)
        self.assertEqual(len(expected.check(ok, exp, "gpu")), 1)

    def test_message_expectation_can_be_per_backend(self):
        exp = {
            ("b", "03"): {"cpu": ["wrong"], "gpu": ["wrong"], "message_contains": {"cpu": "race", "gpu": ""}, "why": ""}
        }
        R = verdicts.LabResult
        self.assertEqual(expected.check([R("b", "03", "wrong", "C[8][32] is wrong")], exp, "gpu"), [])
        self.assertEqual(len(expected.check([R("b", "03", "wrong", "C[8][32] is wrong")], exp, "cpu")), 1)
        loaded = expected.load(SPEC)
        self.assertEqual(loaded[("racy", "03")]["message_contains"], {"cpu": "race", "gpu": ""})
        self.assertEqual(loaded[("forbidden", "01")]["message_contains"], {"cpu": "cublas", "gpu": "cublas"})
        self.assertEqual(loaded[("slow", "01")]["gpu"], ["slow", "partial"])


SPEC_DECIDED_BEFORE_BUILD = """
[[sample]]
name = "cheat"
lab = "01"
path = "01_matadd/matadd.cu"
from = "solution"
why = "includes cuBLAS"
cpu = "forbidden"
gpu = "forbidden"
message_contains = "cublas"
[[sample.edit]]
find = '#include "lab01_matadd.h"'
replace = '#include <cublas_v2.h>'

[[sample]]
name = "named"
lab = "01"
path = "MatAdd.cu"
from = "solution"
why = "misnamed"
cpu = "%s"
gpu = "missing"
"""


class CommandLine(TempDirTest):
    """grade.py with a samples spec whose verdicts are decided before any build (forbidden, missing)."""

    def grade(self, *args):
        err = io.StringIO()
        with redirect_stderr(err):
            rc = cli.main(
                [*map(str, args), "--backend", "cpu", "--quiet", "--labs", "01", "--no-plots", *NO_SANDBOX_ARGS]
            )
        return rc, err.getvalue()

    def test_a_spec_is_generated_under_the_output_folder_and_checked(self):
        spec = self.tmp / "input" / "samples.toml"
        spec.parent.mkdir()
        spec.write_text(SPEC_DECIDED_BEFORE_BUILD % "missing")
        out = self.tmp / "out"
        (out / ".samples" / "stale").mkdir(parents=True)  # from an earlier run: removed
        rc, err = self.grade(spec, "--out", out)
        self.assertEqual(rc, 0, err)
        self.assertIn("every verdict matches", err)
        self.assertEqual(sorted(p.name for p in (out / ".samples").iterdir()), ["cheat", "named"])
        self.assertEqual(self.files_outside(out), [])
        rc, err = self.grade(spec.parent, "--out", out)  # the folder that holds samples.toml: the same
        self.assertEqual(rc, 0, err)

    def test_a_verdict_that_differs_is_exit_status_1(self):
        spec = self.tmp / "input" / "samples.toml"
        spec.parent.mkdir()
        spec.write_text(SPEC_DECIDED_BEFORE_BUILD % "correct")
        rc, err = self.grade(spec, "--out", self.tmp / "out")
        self.assertEqual(rc, 1, err)
        self.assertIn("named lab01: verdict missing, expected correct", err)

    def test_a_bad_spec_is_a_usage_error_before_grading(self):
        spec = self.tmp / "input" / "bad.toml"
        spec.parent.mkdir()
        spec.write_text((SPEC_DECIDED_BEFORE_BUILD % "missing").replace('"solution"', '"catalogue:nope"', 1))
        rc, err = self.grade(spec, "--out", self.tmp / "out")
        self.assertEqual(rc, 2)
        self.assertIn("sample 'cheat'", err)
        self.assertIn("no entry 'nope'", err)
        self.assertFalse((self.tmp / "out" / "class.csv").exists())

    def test_the_default_is_the_bundled_spec(self):
        self.assertEqual(cli._spec(None), SPEC)
        self.assertEqual(cli._spec(SPEC.parent), SPEC)
        self.assertIsNone(cli._spec(self.tmp))


if __name__ == "__main__":
    unittest.main()
