"""The lab manifests (course_grader.manifest) and grader/course.toml (course_grader.config) on bad input: every error
names the file and the key or entry. Each test writes a small repository of one lab in a temporary folder."""
import unittest
from pathlib import Path

from helpers import TempDirTest

from course_grader import catalogue, config, manifest

COURSE_TOML = '[gpus]\nnvidia_h200 = "NVIDIA H200"\n'
LAB_TOML = """[lab]
title = "demo"
files = ["demo.cu"]
interface = "lab01_demo.h"
launchers = ["demo"]
tests = ["test.cpp"]
baselines = []
variants = []

[points]
correctness = 6
performance = 4
perf_baseline = 1.0

[[perf]]
test = "DemoPerf.Speed"
key = "min_speedup"
metric = "time of the baseline / time of demo()"
ceiling = "library"
review_above = 1.1
size = { n = 1024 }

[thresholds.default]
min_speedup = 1.5

[thresholds.gpu.nvidia_h200]
min_speedup = 1.6
"""
SOLUTION = """__global__ void demo_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f * x[i];
  // twice
  // twice
}
"""
CATALOGUE = """[[mutant]]
name = "no_guard"
mistake = "No bounds guard: the last block writes past the end."
expect = "out-of-bounds"
at = "x[i] = 2.0f"
[[mutant.edit]]
find = "if (i < n) "
replace = ""
"""


class Repo(TempDirTest):
    """A one-lab repository: grader/course.toml, grader/labs/01_demo/, solutions/01_demo/."""

    def setUp(self):
        super().setUp()
        self.lab_dir = self.tmp / "grader" / "labs" / "01_demo"
        self.lab_dir.mkdir(parents=True)
        (self.tmp / "grader" / "course.toml").write_text(COURSE_TOML)
        (self.lab_dir / "lab01_demo.h").write_text("void demo(float* x, int n);\n")
        (self.lab_dir / "test.cpp").write_text("// tests\n")
        (self.tmp / "solutions" / "01_demo").mkdir(parents=True)
        (self.tmp / "solutions" / "01_demo" / "demo.cu").write_text(SOLUTION)
        self.manifest = self.lab_dir / "lab.toml"
        self.catalogue = self.lab_dir / "catalogue.toml"

    def lab_error(self, old: str, new: str) -> str:
        self.assertEqual(LAB_TOML.count(old), 1, old)
        self.manifest.write_text(LAB_TOML.replace(old, new))
        with self.assertRaises(manifest.ManifestError) as cm:
            manifest.load_labs(self.tmp)
        message = str(cm.exception)
        self.assertIn(str(self.manifest), message)
        return message

    def catalogue_error(self, old: str, new: str, entry: str = "no_guard") -> str:
        self.manifest.write_text(LAB_TOML)
        self.assertEqual(CATALOGUE.count(old), 1, old)
        self.catalogue.write_text(CATALOGUE.replace(old, new))
        (lab,) = manifest.load_labs(self.tmp)
        with self.assertRaises(manifest.ManifestError) as cm:
            catalogue.load_catalogue(lab, self.tmp)
        message = str(cm.exception)
        self.assertIn(str(self.catalogue), message)
        self.assertIn(entry, message)
        return message


class GoodManifest(Repo):
    def test_loads(self):
        self.manifest.write_text(LAB_TOML)
        self.catalogue.write_text(CATALOGUE)
        (lab,) = manifest.load_labs(self.tmp)
        self.assertEqual(
            (lab.number, lab.folder, lab.files, lab.interface), ("01", "01_demo", ("demo.cu",), "lab01_demo.h")
        )
        self.assertEqual((lab.correctness_points, lab.performance_points, lab.perf_baseline), (6.0, 4.0, 1.0))
        self.assertEqual([(p.test, p.key, p.size) for p in lab.perf], [("DemoPerf.Speed", "min_speedup", {"n": 1024})])
        self.assertEqual(lab.thresholds, {"default": {"min_speedup": 1.5}, "gpu.nvidia_h200": {"min_speedup": 1.6}})
        self.assertEqual(lab.allow, ())
        (m,) = catalogue.load_catalogue(lab, self.tmp)
        self.assertEqual((m.name, m.expect, m.line), ("no_guard", "out-of-bounds", 3))
        self.assertNotIn("if (i < n)", m.text)

    def test_allow_list(self):
        self.manifest.write_text(LAB_TOML.replace("variants = []", 'variants = []\nallow = ["cudaMemcpy"]'))
        (lab,) = manifest.load_labs(self.tmp)
        self.assertEqual(lab.allow, ("cudaMemcpy",))


class BadManifest(Repo):
    def test_missing_key(self):
        self.assertIn("'lab.title'", self.lab_error('title = "demo"\n', ""))
        self.assertIn("'points.perf_baseline'", self.lab_error("perf_baseline = 1.0\n", ""))
        self.assertIn("perf[0].key", self.lab_error('key = "min_speedup"\n', ""))

    def test_mistyped_key(self):
        message = self.lab_error('title = "demo"', 'titel = "demo"')
        self.assertIn("'lab.titel' a typo", message)
        self.assertIn("unknown key 'lab.allow_list'", self.lab_error("variants = []", "variants = []\nallow_list = []"))
        self.assertIn("'points.perf_basline'", self.lab_error("perf_baseline = 1.0", "perf_basline = 1.0"))

    def test_wrong_type(self):
        message = self.lab_error("correctness = 6", 'correctness = "six"')
        self.assertIn("'points.correctness'", message)
        self.assertIn("'six'", message)
        self.assertIn("'lab.files'", self.lab_error('files = ["demo.cu"]', 'files = "demo.cu"'))
        self.assertIn("'perf[0].size.n'", self.lab_error("size = { n = 1024 }", 'size = { n = "big" }'))

    def test_threshold_section_for_an_unknown_gpu_model(self):
        message = self.lab_error("[thresholds.gpu.nvidia_h200]", "[thresholds.gpu.nvidia_b200]")
        self.assertIn("thresholds.gpu.nvidia_b200", message)
        self.assertIn("unknown GPU model", message)
        self.assertIn("nvidia_h200", message)  # the known ones, from course.toml [gpus]

    def test_threshold_key_no_perf_declares(self):
        message = self.lab_error("min_speedup = 1.5\n", "min_speedup = 1.5\nmin_speedup_vs_copy = 0.5\n")
        self.assertIn("thresholds.default", message)
        self.assertIn("'min_speedup_vs_copy'", message)
        message = self.lab_error("min_speedup = 1.6\n", "min_sped_up = 1.6\n")
        self.assertIn("thresholds.gpu.nvidia_h200", message)
        self.assertIn("min_speedup", message)  # and the key it lacks

    def test_other_sections_and_names(self):
        self.assertIn("thresholds.sm90", self.lab_error("[thresholds.default]", "[thresholds.sm90]"))
        self.assertIn("perf[0].test", self.lab_error('test = "DemoPerf.Speed"', 'test = "Demo.Speed"'))
        self.assertIn("'lab.tests'", self.lab_error('tests = ["test.cpp"]', 'tests = ["missing.cpp"]'))


class BadCatalogue(Repo):
    def test_find_text_that_no_longer_matches(self):
        message = self.catalogue_error('find = "if (i < n) "', 'find = "if (i <= n) "')
        self.assertIn("edit 1", message)
        self.assertIn("occurs 0 times", message)

    def test_find_text_that_matches_twice(self):
        message = self.catalogue_error('find = "if (i < n) "', 'find = "  // twice\\n"')
        self.assertIn("edit 1", message)
        self.assertIn("occurs 2 times", message)

    def test_at_text_on_no_line_or_two(self):
        message = self.catalogue_error('at = "x[i] = 2.0f"', 'at = "x[i] = 3.0f"')
        self.assertIn('at = "x[i] = 3.0f"', message)
        self.assertIn("on 0 lines", message)
        message = self.catalogue_error('at = "x[i] = 2.0f"', 'at = "// twice"')
        self.assertIn("on 2 lines", message)

    def test_entry_keys(self):
        message = self.catalogue_error('expect = "out-of-bounds"', 'expected = "oob"', entry="mutant[0]")
        self.assertIn("'mutant[0].expect'", message)
        self.assertIn("'mutant[0].expected' a typo", message)
        self.assertIn("expect = 'oob'", self.catalogue_error('expect = "out-of-bounds"', 'expect = "oob"'))

    def test_missing_solution(self):
        self.manifest.write_text(LAB_TOML)
        self.catalogue.write_text(CATALOGUE)
        (self.tmp / "solutions" / "01_demo" / "demo.cu").unlink()
        (lab,) = manifest.load_labs(self.tmp)
        with self.assertRaises(manifest.ManifestError) as cm:
            catalogue.load_catalogue(lab, self.tmp)
        self.assertIn("demo.cu", str(cm.exception))
        self.assertIn("no_guard", str(cm.exception))


class CourseToml(Repo):
    def load(self, text: str) -> config.Course:
        self.manifest.write_text(LAB_TOML)
        path = self.tmp / "grader" / "course.toml"
        path.write_text(text)
        return config.load(path, self.tmp)

    def error(self, text: str) -> str:
        with self.assertRaises(config.ConfigError) as cm:
            self.load(text)
        self.assertIn(str(self.tmp / "grader" / "course.toml"), str(cm.exception))
        return str(cm.exception)

    def test_labs_come_from_the_manifests(self):
        course = self.load(COURSE_TOML + "[limits]\ntest_seconds = 30\n")
        self.assertEqual([lab.folder for lab in course.existing_labs()], ["01_demo"])
        self.assertEqual(course.limits.test_seconds, 30.0)
        self.assertEqual(course.gpus, {"nvidia_h200": "NVIDIA H200"})
        self.assertEqual(course.all_files(), {"demo.cu": course.lab("01")})

    def test_a_deadline_for_each_kind_of_run(self):
        course = self.load(COURSE_TOML + "[limits]\ncall_seconds = 30\ngpu_call_seconds = 10\n")
        deadline = course.limits.call_deadline
        self.assertEqual([deadline(k, 3) for k in ("check", "cpu", "gpu", "sanitizer")], [30, 30, 10, 90])

    def test_bad_course_toml(self):
        self.assertIn("grader/labs/NN_name/lab.toml", self.error(COURSE_TOML + '[[lab]]\nnumber = "01"\n'))
        self.assertIn("'limits.test_secs'", self.error(COURSE_TOML + "[limits]\ntest_secs = 3\n"))
        self.assertIn("'limits.max_file_bytes'", self.error(COURSE_TOML + '[limits]\nmax_file_bytes = "1 MB"\n'))
        self.assertIn("[thresholds]", self.error(COURSE_TOML + "[thresholds]\n"))
        self.assertIn("all-or-nothing", self.error(COURSE_TOML + '[grading]\ncorrectness = "partial"\n'))

    def test_a_manifest_error_is_a_config_error(self):
        (self.tmp / "grader" / "course.toml").write_text(COURSE_TOML)
        self.manifest.write_text(LAB_TOML.replace("correctness = 6", 'correctness = "six"'))
        with self.assertRaises(config.ConfigError) as cm:
            config.load(self.tmp / "grader" / "course.toml", self.tmp)
        self.assertIn(str(self.manifest), str(cm.exception))

    def test_the_course_itself(self):
        course = config.load()
        self.assertTrue(course.labs)
        for lab in course.labs:
            self.assertTrue((lab.dir / lab.interface).is_file(), lab.folder)
            for perf in lab.perf:
                self.assertIn(perf.key, lab.thresholds["default"], lab.folder)
        self.assertEqual(Path(config.DEFAULT_CONFIG).name, "course.toml")


if __name__ == "__main__":
    unittest.main()
