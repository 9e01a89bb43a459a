"""Unit tests for measured_numbers.py and its place in build_site.py. Run: python3 -m unittest discover -s docs/tools"""

import json
import tempfile
import textwrap
import unittest
from pathlib import Path

import build_site as bs
import measured_numbers as mn

BENCH = {
    "gpu": "NVIDIA H200",
    "l2_bytes": 62914560,
    "series": [
        {"name": "naive (lab 02)", "points": [{"x": 1024, "value": 6047.48, "ms": 0.355}]},
        {"name": "tiled 32 (lab 03)", "points": [{"x": 1024, "value": 8574.02, "ms": 0.250}]},
        {"name": "tiled 16 (lab 03)", "points": [{"x": 1024, "value": 7671.34, "ms": 0.280}]},
        {"name": "unpadded", "ncu": {"load_conflicts": 1879324054}, "points": [{"x": 1024, "value": 1726.81}]},
    ],
}
RUNS = {
    "executables": {
        "solution01_gpu": [
            {"MatAddPerf.BandwidthVsCopy": {"ratio": "0.929"}},
            {"MatAddPerf.BandwidthVsCopy": {"ratio": "0.931"}},
            {"MatAddPerf.BandwidthVsCopy": {"ratio": 0.930}},
        ]
    }
}
LAB_TOML = "[thresholds.gpu.nvidia_h200]\nmin_fraction_of_copy = 0.55\n"
TILED = 'data/gemm:"tiled 32"@1024'
NAIVE = 'data/gemm:"naive"@1024'
PAGE = f"""\
# Tiling

The tiled kernel reaches 8574<!-- num: {TILED} as .0 --> GFLOP/s,
1.42×<!-- num: {TILED} / {NAIVE} as .2× --> the naive kernel, and 42 %<!-- num: {TILED} / {NAIVE} - 1 as .0% --> more.

| kernel | GFLOP/s |
|---|---|
| tiled 32 | 8574<!-- num: {TILED} as .0 --> |
"""


class NumbersTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        self.write("docs/data/gemm.json", json.dumps(BENCH))
        self.write("grader/calibration/runs/h200-run.json", json.dumps(RUNS))
        self.write("grader/labs/01_matadd/lab.toml", LAB_TOML)
        self.write("grader/course.toml", "[limits]\ngpu_call_seconds = 10\n")

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def check(self, text):
        return mn.check_text(textwrap.dedent(text), "page.md", mn.Data(self.root))

    def value(self, expr):
        return mn.evaluate(expr, mn.Data(self.root))

    def test_numbers_that_match_their_data_pass(self):
        self.assertEqual(self.check(PAGE), [])

    def test_a_wrong_written_number_fails_naming_file_line_and_both_numbers(self):
        problems = self.check(PAGE.replace("1.42×", "1.49×"))
        self.assertEqual(len(problems), 1)
        self.assertIn("page.md:4: 1.49 written, the data gives 1.42", problems[0])

    def test_a_changed_value_in_the_data_fails(self):
        self.write("docs/data/gemm.json", json.dumps(BENCH).replace("8574.02", "9001.5"))
        problems = self.check(PAGE)
        self.assertEqual(len(problems), 4)  # 8574 twice, the ratio and the percentage
        self.assertIn("page.md:3: 8574 written, the data gives 9002", problems[0])

    def test_a_missing_file_fails(self):
        problems = self.check('Read 4136 GB/s<!-- num: data/copy:"copy"@64 as .0 -->.\n')
        self.assertEqual(len(problems), 1)
        self.assertIn("page.md:1: 4136: docs/data/copy.json does not exist", problems[0])

    def test_a_missing_value_fails(self):
        for ref, message in [
            ('data/gemm:"tiled 64"@1024', 'names start with "tiled 64"'),
            ('data/gemm:"tiled 32"@2048', "0 items match x = 2048"),
            ('data/gemm:"tiled"@1024', '2 names start with "tiled"'),
            ('data/gemm:"unpadded".ncu.store_conflicts', "no key 'store_conflicts'"),
            ("lab/02:thresholds.sm_90.x", "0 folders grader/labs/02_*/"),
        ]:
            with self.subTest(ref=ref):
                problems = self.check(f"It is 8574<!-- num: {ref} as .0 --> GFLOP/s.\n")
                self.assertEqual(len(problems), 1, problems)
                self.assertIn(message, problems[0])

    def test_a_malformed_reference_fails(self):
        for comment in [
            f"<!-- num: {TILED} -->",  # no format
            f"<!-- num: {TILED} as 2f -->",  # not a format
            f"<!-- num: {TILED} / as .0 -->",  # an operator without its operand
            "<!-- num: docs/data/gemm.json:x as .0 -->",  # not a source
            f"<!-- num: {TILED} / 0 as .0 -->",
            "<!-- num: runs/h200-run:executables.solution01_gpu.*[MatAddPerf.BandwidthVsCopy].ratio as .3 -->",
        ]:
            with self.subTest(comment=comment):
                problems = self.check(f"It is 8574{comment} GFLOP/s.\n")
                self.assertEqual(len(problems), 1, problems)
                self.assertIn("page.md:1: 8574: ", problems[0])

    def test_a_value_that_rounds_to_zero_fails(self):
        problems = self.check(f"T = 32 is 42<!-- num: {TILED} / {NAIVE} - 1 as .0 --> % faster.\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("0.4178 rounds to 0 with '.0': a fraction needs % or * 100", problems[0])
        problems = self.check(f"It reaches 1<!-- num: {NAIVE} / {TILED} as .0 --> of the tiled speed.\n")
        self.assertIn("0.7053 rounds to 1 with '.0'", problems[0])

    def test_a_reference_needs_a_number_before_it_and_the_unit_its_format_names(self):
        self.assertIn("does not follow a number", self.check(f"It is fast<!-- num: {TILED} as .0 -->.\n")[0])
        problems = self.check(f'It is 1.42<!-- num: {TILED} / data/gemm:"naive"@1024 as .2× --> as fast.\n')
        self.assertIn("is written with unit 'none', its format '.2×' says '×'", problems[0])

    def test_derived_numbers(self):
        self.assertAlmostEqual(self.value(f'{TILED} / data/gemm:"naive"@1024'), 8574.02 / 6047.48)
        self.assertAlmostEqual(self.value(f'({TILED} - data/gemm:"naive"@1024) / 1000'), 2.52654)
        self.assertEqual(self.value('data/gemm:"tiled 32"@1024.ms'), 0.25)
        self.assertEqual(self.value('data/gemm:"unpadded".ncu.load_conflicts'), 1879324054)
        self.assertEqual(self.value("data/gemm:l2_bytes / 1048576"), 60)
        runs = "runs/h200-run:executables.solution01_gpu.*[MatAddPerf.BandwidthVsCopy].ratio"
        self.assertEqual(self.value(f"median({runs})"), 0.930)
        self.assertAlmostEqual(self.value(f"(max({runs}) - min({runs})) / min({runs})"), 0.002 / 0.929)
        self.assertEqual(self.value("lab/01:thresholds.gpu.nvidia_h200.min_fraction_of_copy"), 0.55)
        self.assertEqual(self.value("course:limits.gpu_call_seconds"), 10)
        self.assertEqual(self.value("data/gemm:series[name=naive (lab 02)].points[0].value"), 6047.48)
        self.assertEqual(self.value("max(data/gemm:series[?name=unpadded].ncu.load_conflicts)"), 1879324054)
        self.assertEqual(mn.formatted(1879324054, ",.0"), ("1,879,324,054", None))
        self.assertEqual(mn.formatted(0.8951, ".1%"), ("89.5", "%"))
        self.assertEqual(mn.formatted(-0.0004, ".2"), ("0.00", None))

    def test_an_unreferenced_measurement_fails(self):
        for line in [
            "It reaches 4136 GB/s.",
            "It is 1.49× faster.",
            "A speed-up of 1.49 here.",
            "It is 12.5 times slower.",
            "It took 35 s.",
            "It reached 87 % of the copy.",
            "It is 1.17x the global stencil.",
            "Conflicts: 1,879,324,054.",
            "| 30.1 TFLOP/s | fast |",
        ]:
            with self.subTest(line=line):
                problems = self.check(f"# Page\n\n{line}\n")
                self.assertEqual(len(problems), 1, problems)
                self.assertIn("page.md:3: ", problems[0])
                self.assertIn("looks measured but names no source", problems[0])

    def test_a_bare_number_in_a_column_of_measurements_fails(self):
        table = "| kernel | GFLOP/s | blocks |\n|---|---|---|\n| tiled | 8574 | 64 |\n"
        problems = self.check(table)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("page.md:3: '8574'", problems[0])

    def test_numbers_that_are_not_measurements_pass(self):
        text = """\
        CUDA 13.0, CMake ≥ 3.25, Python 3.11, driver 580.159.04, on 2026-11-23 (issue 14), lab 01 of 6.
        A 32 × 32 tile, 8192 x 8192 floats, 2 × block size + 1, 3 × `test_seconds`, 2^26 floats, sm_90, 32 banks.
        Shared memory is 48 KB per block; 1024 threads; 100 lines of `x = 1.5 * y;`.
        Peak is 4.8 TB/s<!-- not-measured: NVIDIA's data sheet --> on the data sheet.
        [a link](https://example.com/1.5x) and <https://example.com/v2.0>. <!-- a comment with 1.5× -->

        ```cuda
        float speedup = 1.49;  // 12.5× in 35 ms
        ```
        """
        self.assertEqual(self.check(text), [])

    def test_a_comment_over_several_lines_keeps_the_line_numbers(self):
        problems = self.check("<!-- a comment\nover two lines -->\n\n```\n1.5× in code\n```\nIt took 35 s.\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("page.md:7: '35 s'", problems[0])

    def test_a_marker_needs_a_reason(self):
        problems = self.check("Peak is 4.8 TB/s<!-- not-measured: --> on paper.\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("page.md:1: not-measured marker without a reason", problems[0])

    def test_references_inside_code_are_not_checked(self):
        text = f"```markdown\nIt is 1.00×<!-- num: {TILED} as .2× --> here.\n```\n"
        self.assertEqual(self.check(text), [])
        self.assertEqual(self.check("Write a comment (`<!-- num: … -->`) after a number.\n"), [])

    def test_update_fixes_stale_numbers_and_leaves_the_rest(self):
        stale = PAGE.replace("8574<", "8500<").replace("1.42×", "1.40×").replace("42 %", "40 %")
        new, problems = mn.update_text(stale, "page.md", mn.Data(self.root))
        self.assertEqual((new, problems), (PAGE, []))
        self.assertEqual(mn.update_text(PAGE, "page.md", mn.Data(self.root)), (PAGE, []))


class BuildSiteTest(unittest.TestCase):
    """--check and --update go through build_site.py, over the site's pages and the top-level README.md."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        files = {
            "mkdocs.yml": "site_name: C\nnav:\n  - Home: index.md\n  - Lab: labs/01_matadd.md\n",
            "docs/index.md": "# Home\n\n" + PAGE.split("\n", 2)[2],
            "docs/data/gemm.json": json.dumps(BENCH),
            "labs/01_matadd/README.md": f"# Lab\n\nIt reaches 8574<!-- num: {TILED} as .0 --> GFLOP/s.\n",
            "README.md": "# Course\n\nIt is 1.5× faster.\n",
        }
        for rel, text in files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")

    def test_check_reports_numbers_of_pages_and_readme(self):
        problems = bs.check(self.root)
        self.assertEqual(len(problems), 1, problems)
        self.assertTrue(problems[0].startswith("README.md:3: '1.5×' looks measured"))

    def test_update_rewrites_stale_numbers_in_every_page(self):
        handout = self.root / "labs/01_matadd/README.md"
        handout.write_text(handout.read_text(encoding="utf-8").replace("8574", "8000"), encoding="utf-8")
        self.assertEqual(len(bs.check(self.root)), 2)
        updated, errors = bs.update(self.root)
        self.assertEqual((updated, errors), (["labs/01_matadd/README.md"], []))
        self.assertIn("It reaches 8574<!--", handout.read_text(encoding="utf-8"))
        self.assertEqual(len(bs.check(self.root)), 1)  # the README's unreferenced 1.5× is left to the author


if __name__ == "__main__":
    unittest.main()
