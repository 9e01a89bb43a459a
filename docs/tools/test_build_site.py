"""Unit tests for build_site.py. Run: python3 -m unittest discover -s docs/tools -v"""

import contextlib
import io
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

import build_site as bs

KERNEL_SOURCE = """\
#include <cstdio>
// [docs:kernel]
__global__ void add_kernel(const float* a, float* c, int n) {
    // [docs:index]
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // [/docs:index]
    if (i < n) c[i] = a[i];
}
// [/docs:kernel]
"""

KERNEL_BLOCK = """\
```cuda
__global__ void add_kernel(const float* a, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i];
}
```
"""

MKDOCS_YML = """\
site_name: Course
docs_dir: build/site-src
site_dir: build/site
nav:
  - Home: index.md
  - Tiling: tiling.md
  - CPU backend: cpu-backend.md
  - Labs:
      - labs/03_tiled_gemm.md
  - More labs:
      - labs/05_stencil.md
markdown_extensions:
  - tables
"""


class Repo:
    """A throw-away repository tree: Repo({'docs/index.md': '...'})."""

    def __init__(self, files):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name)
        for rel, text in files.items():
            self.write(rel, text)

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")

    def read(self, rel):
        return (self.root / rel).read_text(encoding="utf-8")

    def close(self):
        self._tmp.cleanup()


class RepoTest(unittest.TestCase):
    files = {}

    def setUp(self):
        self.repo = Repo(self.files)
        self.addCleanup(self.repo.close)
        self.root = self.repo.root


class PagesTest(RepoTest):
    files = {
        "docs/index.md": "# Home\n",
        "docs/tools/build_site.py": "",
        "docs/figures/a.png": "x",
        "labs/03_tiled_gemm/README.md": "# Lab 03\n",
        "labs/03_tiled_gemm/tiled_gemm.cu": "",
        "labs/common/README.md": "not a lab\n",
    }

    def test_docs_and_handouts_map_to_site_paths(self):
        self.assertEqual(
            bs.site_pages(self.root),
            {
                "docs/index.md": "index.md",
                "docs/figures/a.png": "figures/a.png",
                "labs/03_tiled_gemm/README.md": "labs/03_tiled_gemm.md",
            },
        )


class LinkRewriteTest(RepoTest):
    files = {
        "docs/index.md": "",
        "docs/tiling.md": "",
        "docs/figures/speed.png": "png",
        "labs/03_tiled_gemm/README.md": "",
        "solutions/03_tiled_gemm/tiled_gemm.cu": "",
        "common/x.h": "",
    }

    def rewrite(self, source, text, **kw):
        return bs.rewrite_for_site(text, source, bs.site_pages(self.root), self.root, **kw)

    def test_handout_link_to_chapter_becomes_site_relative(self):
        text, problems = self.rewrite("labs/03_tiled_gemm/README.md", "See [tiling](../../docs/tiling.md#why).\n")
        self.assertEqual(text, "See [tiling](../tiling.md#why).\n")
        self.assertEqual(problems, [])

    def test_handout_image_in_docs_becomes_site_relative(self):
        text, _ = self.rewrite("labs/03_tiled_gemm/README.md", "![speed](../../docs/figures/speed.png)\n")
        self.assertEqual(text, "![speed](../figures/speed.png)\n")

    def test_chapter_link_to_handout_and_to_lab_folder(self):
        text, _ = self.rewrite(
            "docs/tiling.md", "[Lab 3](../labs/03_tiled_gemm/README.md) [folder](../labs/03_tiled_gemm/)\n"
        )
        self.assertEqual(text, "[Lab 3](labs/03_tiled_gemm.md) [folder](labs/03_tiled_gemm.md)\n")

    def test_chapter_link_to_chapter_is_unchanged(self):
        original = "[Tiling](tiling.md) and [a URL](https://example.com/x.md) and [top](#top)\n"
        self.assertEqual(self.rewrite("docs/index.md", original), (original, []))

    def test_repository_file_becomes_code_text(self):
        text, problems = self.rewrite(
            "labs/03_tiled_gemm/README.md",
            "[tiled_gemm.cu](../../solutions/03_tiled_gemm/tiled_gemm.cu), [the harness](../../common/)\n",
        )
        self.assertEqual(text, "`solutions/03_tiled_gemm/tiled_gemm.cu`, the harness (`common`)\n")
        self.assertEqual(problems, [])

    def test_repository_file_becomes_url_when_repo_url_given(self):
        text, _ = self.rewrite(
            "labs/03_tiled_gemm/README.md",
            "[code](../../solutions/03_tiled_gemm/tiled_gemm.cu#L3) [dir](../../common)\n",
            repo_url="https://github.com/o/c/",
            ref="v1",
        )
        self.assertEqual(
            text,
            "[code](https://github.com/o/c/blob/v1/solutions/03_tiled_gemm/tiled_gemm.cu#L3) "
            "[dir](https://github.com/o/c/tree/v1/common)\n",
        )

    def test_missing_target_is_reported_and_rendered_as_code(self):
        text, problems = self.rewrite("docs/index.md", "Do [Lab 1](../labs/01_matadd/README.md).\n")
        self.assertEqual(text, "Do Lab 1 (`labs/01_matadd/README.md`).\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("docs/index.md:1: link target ../labs/01_matadd/README.md", problems[0])

    def test_links_in_code_are_left_alone(self):
        original = "```md\n[x](../../solutions/a.cu)\n```\nInline `[x](../nowhere.md)` too.\n"
        self.assertEqual(self.rewrite("docs/index.md", original), (original, []))

    def test_reference_definition_is_rewritten(self):
        text, _ = self.rewrite("labs/03_tiled_gemm/README.md", '[t]: ../../docs/tiling.md "Tiling"\n')
        self.assertEqual(text, '[t]: ../tiling.md "Tiling"\n')


class IncludeTest(RepoTest):
    files = {"solutions/01_matadd/matadd.cu": KERNEL_SOURCE}

    def expand(self, text):
        return bs.expand_includes(textwrap.dedent(text), self.root, "docs/x.md")

    def test_region_drops_nested_markers_and_dedents(self):
        self.assertEqual(
            bs.extract_region(self.root, "solutions/01_matadd/matadd.cu:index"),
            "int i = blockIdx.x * blockDim.x + threadIdx.x;\n",
        )
        self.assertEqual(
            bs.render_block(
                "solutions/01_matadd/matadd.cu:kernel",
                bs.extract_region(self.root, "solutions/01_matadd/matadd.cu:kernel"),
            ),
            KERNEL_BLOCK,
        )

    def test_whole_file_include_removes_marker_lines(self):
        region = bs.extract_region(self.root, "solutions/01_matadd/matadd.cu")
        self.assertNotIn("[docs:", region)
        self.assertTrue(region.startswith("#include <cstdio>\n"))

    def test_todo_region_lines_are_left_out(self):
        self.repo.write(
            "lab.cu",
            """\
            // [docs:body]
            __global__ void k(float* c) {
              // TODO(lab03): wait until the whole block has written its tiles (1 line)
              __syncthreads();
              // END TODO
              //   TODO(lab06, going further): optional
              c[0] = 1.0f;  // TODO is fine inside a code line
              // END TODO
            }
            // [/docs:body]
            """,
        )
        self.assertEqual(
            bs.extract_region(self.root, "lab.cu:body"),
            "__global__ void k(float* c) {\n  __syncthreads();\n"
            "  c[0] = 1.0f;  // TODO is fine inside a code line\n}\n",
        )
        self.assertNotIn("END TODO", bs.extract_region(self.root, "lab.cu"))

    def test_pragma_in_column_0_does_not_stop_the_dedent(self):
        self.repo.write(
            "loop.cu",
            """\
            void f() {
              // [docs:loop]
              for (int t = 0; t < 4; ++t) {
            #pragma unroll
                for (int p = 0; p < 4; ++p) g(p);

              }
              // [/docs:loop]
            }
            """,
        )
        self.assertEqual(
            bs.extract_region(self.root, "loop.cu:loop"),
            "for (int t = 0; t < 4; ++t) {\n#pragma unroll\n  for (int p = 0; p < 4; ++p) g(p);\n\n}\n",
        )

    def test_missing_block_is_inserted(self):
        text, stale, errors = self.expand("Intro\n<!-- include: solutions/01_matadd/matadd.cu:kernel -->\nAfter\n")
        self.assertEqual(
            text, "Intro\n<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n" + KERNEL_BLOCK + "After\n"
        )
        self.assertEqual(errors, [])
        self.assertEqual(
            stale, ["docs/x.md:2: no fenced block after the include of " "solutions/01_matadd/matadd.cu:kernel"]
        )

    def test_stale_block_is_replaced_and_reported(self):
        doc = "<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n```cuda\nold code\n```\nAfter\n"
        text, stale, _ = self.expand(doc)
        self.assertEqual(text, "<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n" + KERNEL_BLOCK + "After\n")
        self.assertEqual(stale, ["docs/x.md:1: the block differs from solutions/01_matadd/matadd.cu:kernel"])

    def test_current_block_is_not_stale(self):
        doc = "<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n" + KERNEL_BLOCK
        self.assertEqual(self.expand(doc), (doc, [], []))

    def test_include_inside_code_is_not_expanded(self):
        doc = "````md\n<!-- include: solutions/01_matadd/matadd.cu:nope -->\n````\n"
        self.assertEqual(self.expand(doc), (doc, [], []))

    def test_missing_marker_and_file_are_errors(self):
        _, _, errors = self.expand(
            "<!-- include: solutions/01_matadd/matadd.cu:nope -->\n" "<!-- include: solutions/none.cu:kernel -->\n"
        )
        self.assertEqual(
            errors,
            [
                "docs/x.md:1: no marker [docs:nope] in solutions/01_matadd/matadd.cu",
                "docs/x.md:2: included file solutions/none.cu does not exist",
            ],
        )

    def test_unclosed_and_duplicated_markers_are_errors(self):
        self.repo.write("a.cu", "// [docs:open]\nint x;\n// [docs:twice]\n// [/docs:twice]\n// [docs:twice]\n")
        with self.assertRaisesRegex(bs.SiteError, "no closing"):
            bs.extract_region(self.root, "a.cu:open")
        with self.assertRaisesRegex(bs.SiteError, "appears 2 times"):
            bs.extract_region(self.root, "a.cu:twice")


class CheckAndUpdateTest(RepoTest):
    files = {
        "mkdocs.yml": MKDOCS_YML,
        "solutions/01_matadd/matadd.cu": KERNEL_SOURCE,
        "docs/index.md": "# Home\n<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n" + KERNEL_BLOCK,
        "docs/tiling.md": "# Tiling\n[Lab 3](../labs/03_tiled_gemm/README.md)\n",
        "docs/cpu-backend.md": "# CPU\n",
        "labs/03_tiled_gemm/README.md": "# Lab 3\nRead [tiling](../../docs/tiling.md).\n",
        "labs/05_stencil/README.md": "# Lab 5\n",
    }

    def test_consistent_tree_passes(self):
        self.assertEqual(bs.check(self.root), [])

    def test_drift_is_detected_then_fixed_by_update(self):
        self.repo.write("solutions/01_matadd/matadd.cu", KERNEL_SOURCE.replace("c[i] = a[i]", "c[i] = 2 * a[i]"))
        problems = bs.check(self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn("docs/index.md:2: the block differs from solutions/01_matadd/matadd.cu:kernel", problems[0])
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(bs.main(["--root", str(self.root), "--check"]), 1)
        self.assertEqual(bs.update(self.root), (["docs/index.md"], []))
        self.assertIn("c[i] = 2 * a[i]", self.repo.read("docs/index.md"))
        self.assertEqual(bs.check(self.root), [])

    def test_missing_marker_fails_check(self):
        self.repo.write("solutions/01_matadd/matadd.cu", "// no markers\n")
        self.assertEqual(
            bs.check(self.root)[0], "docs/index.md:2: no marker [docs:kernel] in solutions/01_matadd/matadd.cu"
        )

    def test_missing_nav_page_and_broken_link_fail_check(self):
        (self.root / "labs/03_tiled_gemm/README.md").unlink()
        problems = bs.check(self.root)
        self.assertTrue(any("docs/tiling.md:2: link target" in p for p in problems), problems)
        self.assertTrue(any("nav page labs/03_tiled_gemm.md does not exist" in p for p in problems), problems)

    def test_stage_writes_pages_and_config(self):
        (self.root / "labs/05_stencil/README.md").unlink()
        staging = self.root / "build" / "site-src"
        with contextlib.redirect_stdout(io.StringIO()) as out:
            config = bs.stage(self.root, staging, self.root / "build" / "site", None, "main")
        self.assertEqual(
            self.repo.read("build/site-src/labs/03_tiled_gemm.md"), "# Lab 3\nRead [tiling](../tiling.md).\n"
        )
        self.assertFalse((staging / "tools").exists())
        text = config.read_text()
        self.assertIn(f"docs_dir: {staging}\n", text)
        self.assertNotIn("docs_dir: build/site-src", text)
        self.assertIn("labs/03_tiled_gemm.md", text)
        self.assertNotIn("More labs", text)  # its only page is missing, so the section goes too
        self.assertIn("nav page labs/05_stencil.md does not exist yet", out.getvalue())


LAB_TOML = """\
[lab]
title = "matAdd"
files = ["matadd.cu"]
interface = "lab01_matadd.h"
launchers = ["matadd"]
tests = ["test.cpp"]
baselines = []
variants = []

[points]
correctness = 6
performance = 4
perf_baseline = 0.35
"""

CATALOGUE_TOML = """\
[[mutant]]
name = "no_guard"
mistake = "The bounds guard is missing."
expect = "out-of-bounds"
at = "c[i] = a[i];"
[[mutant.edit]]
find = "    if (i < n) c[i] = a[i];\\n"
replace = "    // [docs:bug]\\n    c[i] = a[i];  // BUG: no guard\\n    // [/docs:bug]\\n"
"""

NO_GUARD_BLOCK = """\
```cuda
__global__ void add_kernel(const float* a, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i];  // BUG: no guard
}
```
"""


class CatalogueIncludeTest(RepoTest):
    """`PATH#ENTRY[:NAME]` with PATH a lab's catalogue.toml: the mutant course_grader.manifest builds."""

    files = {
        "mkdocs.yml": "site_name: Course\nnav:\n  - Home: index.md\n",
        "grader/course.toml": "[gpus]\n",
        "grader/labs/01_matadd/lab.toml": LAB_TOML,
        "grader/labs/01_matadd/lab01_matadd.h": "",
        "grader/labs/01_matadd/test.cpp": "",
        "grader/labs/01_matadd/catalogue.toml": CATALOGUE_TOML,
        "solutions/01_matadd/matadd.cu": KERNEL_SOURCE,
        "docs/index.md": "# Home\n<!-- include: grader/labs/01_matadd/catalogue.toml#no_guard:kernel -->\n"
        + NO_GUARD_BLOCK,
    }
    SPEC = "grader/labs/01_matadd/catalogue.toml#no_guard"

    def test_region_of_the_mutant(self):
        self.assertEqual(
            bs.render_block(self.SPEC + ":kernel", *bs.include(self.root, self.SPEC + ":kernel")), NO_GUARD_BLOCK
        )

    def test_marker_added_by_the_edit_and_whole_mutant(self):
        self.assertEqual(bs.extract_region(self.root, self.SPEC + ":bug"), "c[i] = a[i];  // BUG: no guard\n")
        whole, lang = bs.include(self.root, self.SPEC)
        self.assertEqual(lang, "cuda")
        self.assertTrue(whole.startswith("#include <cstdio>\n__global__ void add_kernel"), whole)
        self.assertNotIn("[docs:", whole)

    def test_check_passes_then_a_changed_edit_is_stale_until_update(self):
        self.assertEqual(bs.check(self.root), [])
        self.repo.write("grader/labs/01_matadd/catalogue.toml", CATALOGUE_TOML.replace("no guard", "unguarded"))
        problems = bs.check(self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn(f"docs/index.md:2: the block differs from {self.SPEC}:kernel", problems[0])
        self.assertEqual(bs.update(self.root), (["docs/index.md"], []))
        self.assertIn("// BUG: unguarded", self.repo.read("docs/index.md"))
        self.assertEqual(bs.check(self.root), [])

    def test_unknown_entry_broken_edit_and_missing_catalogue_are_errors(self):
        with self.assertRaisesRegex(bs.SiteError, "has no entry 'nope' \\(its entries: no_guard\\)"):
            bs.extract_region(self.root, "grader/labs/01_matadd/catalogue.toml#nope:kernel")
        with self.assertRaisesRegex(bs.SiteError, "included catalogue grader/labs/02_x/catalogue.toml does not"):
            bs.extract_region(self.root, "grader/labs/02_x/catalogue.toml#no_guard")
        self.repo.write("solutions/01_matadd/matadd.cu", KERNEL_SOURCE.replace("if (i < n) ", "if (i >= n) return;\n"))
        with self.assertRaisesRegex(bs.SiteError, "mutant 'no_guard': edit 1 no longer applies"):
            bs.extract_region(self.root, self.SPEC + ":kernel")
        problems = bs.check(self.root)
        self.assertEqual(len(problems), 1)
        self.assertIn("docs/index.md:2: cannot build the entries of grader/labs/01_matadd/catalogue.toml", problems[0])


FLAVOURS_YML = """\
site_name: Course
nav:
  - Home: index.md
  - Reference:
      - How it is built: architecture.md   # instructor
      - Grader: grader.md  #instructor
  - CPU backend: cpu-backend.md  # not instructor-only
"""


class FlavourTest(RepoTest):
    """--flavour student: no instructor pages, no solution code; --flavour instructor: everything."""

    files = {
        "mkdocs.yml": FLAVOURS_YML,
        "solutions/01_matadd/matadd.cu": KERNEL_SOURCE,
        "labs/01_matadd/matadd.cu": KERNEL_SOURCE,
        "grader/labs/01_matadd/baseline.cu": KERNEL_SOURCE,
        "grader/labs/01_matadd/variants/other.cu": KERNEL_SOURCE,
        "docs/index.md": "# Home\nSee [the grader](grader.md).\n<!-- include: labs/01_matadd/matadd.cu:kernel -->\n"
        + KERNEL_BLOCK,
        "docs/cpu-backend.md": "# CPU\n<!-- include: grader/labs/01_matadd/baseline.cu:kernel -->\n" + KERNEL_BLOCK,
        "docs/architecture.md": "# Built\n<!-- include: solutions/01_matadd/matadd.cu:kernel -->\n" + KERNEL_BLOCK,
        "docs/grader.md": "# Grader\n",
    }

    def test_instructor_pages_are_marked_in_the_nav(self):
        self.assertEqual(bs.instructor_pages(FLAVOURS_YML), {"architecture.md", "grader.md"})
        self.assertEqual(
            bs.without_pages(FLAVOURS_YML, {"architecture.md", "grader.md"}),
            "site_name: Course\nnav:\n  - Home: index.md\n  - CPU backend: cpu-backend.md  # not instructor-only\n",
        )

    def test_include_specs_leave_code_alone(self):
        text = "<!-- include: a.cu:x -->\n```md\n<!-- include: b.cu -->\n```\n  <!-- include: c.cu -->\n"
        self.assertEqual(bs.include_specs(text), ["a.cu:x", "c.cu"])

    def test_instructor_flavour_has_everything(self):
        self.assertEqual(bs.check(self.root, "instructor"), [])

    def test_student_flavour_leaves_out_instructor_pages_and_links_to_them(self):
        problems = bs.check(self.root, "student")
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("docs/index.md:2: links to docs/grader.md, a page the student flavour leaves out", problems[0])
        staging = self.root / "build" / "site-src"
        with contextlib.redirect_stdout(io.StringIO()):
            config = bs.stage(self.root, staging, self.root / "build" / "site", None, "main", "student")
        self.assertEqual(sorted(p.name for p in staging.iterdir()), ["cpu-backend.md", "index.md"])
        self.assertTrue(self.repo.read("build/site-src/index.md").startswith("# Home\nSee the grader.\n"))
        self.assertNotIn("grader.md", config.read_text())

    def test_student_flavour_fails_on_solution_code(self):
        for spec in (
            "solutions/01_matadd/matadd.cu:kernel",
            "grader/labs/01_matadd/variants/other.cu",
            "grader/labs/01_matadd/catalogue.toml#no_guard:kernel",
            "labs/../solutions/01_matadd/matadd.cu",
        ):
            with self.subTest(spec=spec), self.assertRaisesRegex(bs.SiteError, "is not student material"):
                bs.include(self.root, spec, "student")
        self.repo.write("docs/cpu-backend.md", self.repo.read("docs/architecture.md"))
        problems = bs.check(self.root, "student")
        self.assertTrue(
            any("docs/cpu-backend.md:2: solutions/01_matadd/matadd.cu is not student" in p for p in problems)
        )
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(bs.main(["--root", str(self.root), "--check", "--flavour", "student"]), 1)
            with self.assertRaisesRegex(bs.SiteError, "cannot expand code includes"):
                bs.stage(self.root, self.root / "s", self.root / "o", None, "main", "student")
        self.assertIn("is not student material", out.getvalue())

    def test_default_flavour_follows_the_checkout(self):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(bs.main(["--root", str(self.root), "--check"]), 0)  # instructor: solutions/ exists
            (self.root / "solutions" / "01_matadd" / "matadd.cu").unlink()
            (self.root / "solutions" / "01_matadd").rmdir()
            (self.root / "solutions").rmdir()
            self.assertEqual(bs.main(["--root", str(self.root), "--check"]), 1)  # student: the link to grader.md
        self.assertIn("check (student): 1 problem(s)", out.getvalue())


class SiteConfigTest(unittest.TestCase):
    def test_nav_pages_listed_with_lines(self):
        self.assertEqual(
            [p for _, p in bs.nav_pages(MKDOCS_YML)],
            ["index.md", "tiling.md", "cpu-backend.md", "labs/03_tiled_gemm.md", "labs/05_stencil.md"],
        )

    def test_missing_pages_and_empty_sections_are_dropped(self):
        text, dropped = bs.site_config(MKDOCS_YML, "/s", "/o", {"index.md", "tiling.md"})
        self.assertEqual(dropped, ["cpu-backend.md", "labs/03_tiled_gemm.md", "labs/05_stencil.md"])
        self.assertEqual(
            text,
            "site_name: Course\nnav:\n  - Home: index.md\n  - Tiling: tiling.md\n"
            "markdown_extensions:\n  - tables\ndocs_dir: /s\nsite_dir: /o\n",
        )


class FindMkdocsTest(unittest.TestCase):
    def probe(self, stderr):
        def run(cmd, **kw):
            return subprocess.CompletedProcess(cmd, 1, "", stderr)

        with mock.patch.object(bs.subprocess, "run", run):
            with self.assertRaises(bs.SiteError) as caught:
                bs.find_mkdocs()
        return str(caught.exception)

    def test_missing_mkdocs_says_what_to_install(self):
        message = self.probe("ModuleNotFoundError: No module named 'mkdocs'")
        self.assertIn("MkDocs is not installed", message)
        self.assertIn("install with: sudo apt-get install mkdocs mkdocs-material", message)

    def test_missing_theme_says_what_to_install(self):
        message = self.probe("ModuleNotFoundError: No module named 'material'")
        self.assertIn("the Material theme is missing", message)
        self.assertIn("install with: sudo apt-get install mkdocs mkdocs-material", message)

    def test_main_reports_missing_mkdocs_with_exit_code_2(self):
        with mock.patch.object(bs, "find_mkdocs", side_effect=bs.SiteError("MkDocs is not installed: x")):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(bs.main([]), 2)
        self.assertIn("error: MkDocs is not installed", out.getvalue())


if __name__ == "__main__":
    unittest.main()
