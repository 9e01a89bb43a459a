"""The samples generator (course_grader.samples) on bad specs: every error names the spec, the sample and the problem.
Each test writes a small spec for the course's lab 01 and 03 into a temporary folder."""
import os

from helpers import COURSE, LAB01, TempDirTest

from course_grader import samples

GOOD = """
[[sample]]
name = "alice"
lab = "01"
path = "01_matadd/matadd.cu"
from = "variant:scalar_256.cu"
why = "adds A to itself"
cpu = "wrong"
gpu = ["wrong", "crash"]
[[sample.edit]]
find = "c[i] = a[i] + b[i];"
replace = "c[i] = a[i] + a[i];"
"""


class Generator(TempDirTest):
    def spec(self, text: str):
        path = self.tmp / "samples.toml"
        path.write_text(text)
        return path

    def generate(self, text: str):
        return samples.generate(samples.load(self.spec(text)), self.tmp / "out", COURSE.existing_labs())

    def fails(self, text: str, *needles: str, when: str = "generate"):
        with self.assertRaises(samples.SampleError) as cm:
            if when == "load":
                samples.load(self.spec(text))
            else:
                self.generate(text)
        message = str(cm.exception)
        self.assertIn(str(self.tmp / "samples.toml"), message)
        for needle in needles:
            self.assertIn(needle, message)
        return message

    def test_good_spec(self):
        (sample,) = self.generate(GOOD)
        text = (self.tmp / "out" / "alice" / "01_matadd" / "matadd.cu").read_text()
        self.assertIn("c[i] = a[i] + a[i];", text)
        self.assertNotIn("c[i] = a[i] + b[i];", text)
        self.assertEqual(sample.verdicts, {"cpu": ("wrong",), "gpu": ("wrong", "crash")})
        self.assertEqual(sample.message_contains, {"cpu": "", "gpu": ""})

    def test_solution_is_the_lab_file_whatever_the_path(self):
        text = GOOD.replace('"variant:scalar_256.cu"', '"solution"').replace("01_matadd/matadd.cu", "MatAdd.cu")
        text = text[: text.index("[[sample.edit]]")]
        self.generate(text)
        solution = (COURSE.repo_root / "solutions" / LAB01.folder / "matadd.cu").read_text()
        self.assertEqual((self.tmp / "out" / "alice" / "MatAdd.cu").read_text(), solution)

    def test_bad_from(self):
        for source, needle in (
            ("catalog:missing_bounds_guard", 'expected "solution"'),
            ("solution:matadd.cu", 'expected "solution"'),
            ("catalogue:", 'expected "solution"'),
            ("variant:", 'expected "solution"'),
        ):
            self.fails(GOOD.replace("variant:scalar_256.cu", source), "sample 'alice'", needle, when="load")
        self.fails(
            GOOD.replace("variant:scalar_256.cu", "catalogue:no_such_mutant"),
            "sample 'alice'",
            "no entry 'no_such_mutant'",
            "missing_bounds_guard",
        )
        self.fails(GOOD.replace("scalar_256.cu", "nope.cu"), "sample 'alice'", "does not exist", "scalar_16x16.cu")
        self.fails(GOOD.replace("scalar_256.cu", "../lab.toml"), "sample 'alice'", "plain file name")

    def test_catalogue_entry(self):
        text = GOOD.replace("variant:scalar_256.cu", "catalogue:missing_bounds_guard")
        text = text[: text.index("[[sample.edit]]")]
        self.generate(text)
        self.assertIn("BUG", (self.tmp / "out" / "alice" / "01_matadd" / "matadd.cu").read_text())

    def test_an_edit_that_no_longer_applies(self):
        message = self.fails(
            GOOD.replace('find = "c[i] = a[i] + b[i];"', 'find = "c[k] = a[k] + b[k];"'),
            "sample 'alice'",
            "edit 1 no longer applies",
            "occurs 0 times",
            "c[k] = a[k] + b[k];",
        )
        self.assertIn("variant:scalar_256.cu", message)
        self.assertFalse((self.tmp / "out").exists())  # nothing written when one sample fails
        self.fails(
            GOOD.replace('replace = "c[i] = a[i] + a[i];"', 'replace = "x"\nwith = 1'),
            "sample 'alice'",
            "unknown key 'with'",
        )

    def test_a_path_that_escapes_the_folder(self):
        for path in (
            "../bob/matadd.cu",
            "/tmp/matadd.cu",
            "01_matadd/../../matadd.cu",
            "01_matadd//matadd.cu",
            "01_matadd\\matadd.cu",
            "./matadd.cu",
        ):
            self.fails(
                GOOD.replace("01_matadd/matadd.cu", path.replace("\\", "\\\\")),
                "sample 'alice'",
                f"path = '{path}'",
                when="load",
            )

    def test_a_path_through_a_symlink_is_refused(self):
        outside = self.tmp / "outside"
        outside.mkdir()
        (self.tmp / "out" / "alice").mkdir(parents=True)
        os.symlink(outside, self.tmp / "out" / "alice" / "01_matadd")
        self.fails(GOOD, "sample 'alice'", "outside its folder")
        self.assertEqual(list(outside.iterdir()), [])
        (self.tmp / "out" / "alice" / "01_matadd").unlink()
        (self.tmp / "out" / "alice").rmdir()
        os.symlink(outside, self.tmp / "out" / "alice")
        self.fails(GOOD, "sample 'alice'", "not a folder")
        self.assertEqual(list(outside.iterdir()), [])

    def test_bad_names_keys_and_verdicts(self):
        self.fails(GOOD.replace('name = "alice"', 'name = "al ice"'), "sample 'al ice'", "student id", when="load")
        self.fails(GOOD.replace('name = "alice"', 'name = ".alice"'), "student id", when="load")
        self.fails(GOOD + GOOD, "sample 'alice'", "two samples have this name", when="load")
        self.fails(GOOD.replace("why =", "wyh ="), "sample 'alice'", "unknown key 'wyh'", when="load")
        self.fails(
            GOOD.replace('cpu = "wrong"', 'cpu = "fail"'), "sample 'alice'", "unknown verdict 'fail'", when="load"
        )
        self.fails(GOOD.replace('cpu = "wrong"\n', ""), "sample 'alice'", "'cpu'", when="load")
        self.fails(GOOD.replace('lab = "01"', "lab = 1"), "sample 'alice'", "'lab'", when="load")
        self.fails(GOOD.replace('lab = "01"', 'lab = "1"'), "sample 'alice'", "two-digit", when="load")
        self.fails(GOOD.replace('name = "alice"\n', ""), "sample 1", "missing key 'name'", when="load")
        self.fails("[other]\n", "unknown key or table 'other'", when="load")
        self.fails("x = \n", "not valid TOML", when="load")
        self.fails("", "no [[sample]]", when="load")

    def test_a_lab_not_in_this_checkout_is_skipped(self):
        self.assertEqual(self.generate(GOOD.replace('lab = "01"', 'lab = "42"')), [])
        with self.assertRaises(samples.SampleError):
            samples.text(samples.load(self.spec(GOOD.replace('lab = "01"', 'lab = "42"')))[0], COURSE.labs)


class FilesIncludesAndGaps(Generator):
    """The adversarial suite's additions: `from = "file:<path>"`, `include = [...]`, `known_gap`."""

    def test_a_file_next_to_the_spec(self):
        (self.tmp / "cases").mkdir()
        (self.tmp / "cases" / "attack.cu").write_text("void matadd() {}  // ATTACK\n")
        text = GOOD.replace("variant:scalar_256.cu", "file:cases/attack.cu").replace(
            'find = "c[i] = a[i] + b[i];"\nreplace = "c[i] = a[i] + a[i];"', 'find = "// ATTACK"\nreplace = "// done"'
        )
        self.generate(text)
        self.assertEqual(
            (self.tmp / "out" / "alice" / "01_matadd" / "matadd.cu").read_text(), "void matadd() {}  // done\n"
        )
        for bad, needle in (
            ("file:../x.cu", "'..'"),
            ("file:/etc/passwd", "absolute"),
            ("file:", 'expected "solution"'),
        ):
            self.fails(GOOD.replace("variant:scalar_256.cu", bad), "sample 'alice'", needle, when="load")
        self.fails(GOOD.replace("variant:scalar_256.cu", "file:nope.cu"), "sample 'alice'", "cannot read the file")

    def test_included_specs_follow_in_order(self):
        (self.tmp / "more.toml").write_text(GOOD.replace('"alice"', '"bob"'))
        found = samples.load(self.spec('include = ["more.toml"]\n' + GOOD))
        self.assertEqual([s.name for s in found], ["alice", "bob"])
        self.assertEqual(found[1].spec, self.tmp / "more.toml")  # its errors and file: paths are its own
        self.assertEqual([s.name for s in samples.load(self.spec('include = ["more.toml"]\n'))], ["bob"])
        (self.tmp / "more.toml").write_text('include = ["other.toml"]\n' + GOOD.replace('"alice"', '"bob"'))
        self.fails('include = ["more.toml"]\n', "more.toml", "includes nothing further", when="load")
        (self.tmp / "more.toml").write_text(GOOD)
        self.fails('include = ["more.toml"]\n' + GOOD, "two samples have this name", when="load")
        self.fails('include = ["../more.toml"]\n' + GOOD, "include '../more.toml'", when="load")
        self.fails('include = "more.toml"\n' + GOOD, "include must be a list", when="load")

    def test_known_gaps_per_backend(self):
        both = samples.load(self.spec(GOOD.replace('why = "adds A to itself"', 'why = "x"\nknown_gap = "y"')))[0]
        self.assertEqual(both.known_gaps, {"cpu": "y", "gpu": "y"})
        one = samples.load(self.spec(GOOD.replace('why = "adds A to itself"', 'why = "x"\ngpu_known_gap = "z"')))[0]
        self.assertEqual(one.known_gaps, {"gpu": "z"})
        self.assertEqual(samples.expectations((one,))[("alice", "01")]["known_gap"], {"gpu": "z"})
        self.assertEqual(samples.load(self.spec(GOOD))[0].known_gaps, {})
        self.fails(GOOD.replace('why = "adds A to itself"', 'why = "x"\nknown_gap = 1'), "'known_gap'", when="load")
