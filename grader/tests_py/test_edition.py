"""The student edition (grader/edition/student_edition.py) and its search for solution code (solution_code.py).

Built is the edition's end-to-end test (ctest -R course.edition.student, grader/cmake/editions.cmake): it runs only
where COURSE_EDITION_SELFTEST names a folder to use (emptied first), since it configures and builds the edition.
"""
import os
import re
import shutil
import subprocess
import sys
import time
import unittest
from pathlib import Path

from helpers import COURSE, GRADER, TempDirTest

sys.path.insert(0, str(GRADER / "edition"))
import solution_code  # noqa: E402
import student_edition  # noqa: E402

from course_grader import catalogue  # noqa: E402

REPO = GRADER.parent
SECRETS = solution_code.secrets(REPO)


class Contents(unittest.TestCase):
    def setUp(self):
        self.files = student_edition.contents(COURSE.labs)

    def test_no_solutions_variants_catalogue_or_instructor_pages(self):
        for name in self.files:
            parts = name.split("/")
            self.assertNotIn("solutions", parts, name)
            self.assertNotIn("variants", parts, name)
            self.assertNotEqual(parts[-1], "catalogue.toml", name)
        for page in ("grader.md", "slurm.md", "architecture.md", "contributing-docs.md", "CMakeLists.txt"):
            self.assertNotIn(f"docs/{page}", self.files)
        self.assertNotRegex(self.files["mkdocs.yml"].decode(), r"\.md\s*# instructor")
        self.assertNotIn("grader.md", self.files["mkdocs.yml"].decode())

    def test_what_the_build_and_the_site_need(self):
        for name in (
            "CMakeLists.txt",
            "README.md",
            "setup.sh",
            "grader/CMakeLists.txt",
            "grader/cmake/CourseLab.cmake",
            "grader/cmake/configure_labs.py",
            "grader/course.toml",
            "grader/labs/03_tiled_gemm/lab.toml",
            "grader/labs/03_tiled_gemm/test.cpp",
            "grader/labs/03_tiled_gemm/gemm_naive.cu",
            "labs/03_tiled_gemm/tiled_gemm.cu",
            "labs/03_tiled_gemm/README.md",
            "docs/index.md",
            "docs/tools/build_site.py",
            "mkdocs.yml",
        ):
            self.assertIn(name, self.files)
        grader = sorted(n for n in self.files if n.startswith("grader/course_grader/"))
        self.assertEqual([Path(n).name for n in grader], ["__init__.py", "catalogue.py", "manifest.py"])
        self.assertEqual(self.files["README.md"], (GRADER / "edition" / "student_README.md").read_bytes())

    def test_an_assignment_has_its_labs_only(self):
        files = student_edition.contents(student_edition.choose_labs("01,02"))
        labs = {"01_matadd", "02_naive_gemm"}
        self.assertEqual({n.split("/")[2] for n in files if n.endswith("/lab.toml")}, labs)
        self.assertEqual({n.split("/")[1] for n in files if n.startswith("labs/") and n.endswith("/README.md")}, labs)
        self.assertNotIn(b"labs/03_tiled_gemm.md", files["mkdocs.yml"])
        self.assertIn(b"labs/02_naive_gemm.md", files["mkdocs.yml"])
        # what the chapters include comes along, wherever it is: the site builds
        self.assertIn("grader/labs/06_reduction/reduce_interleaved.cu", files)


class Writing(TempDirTest):
    def test_a_later_lab_that_gives_an_earlier_answer_away_is_refused(self):
        """Lab 03's baseline is lab 02's reference solution, renamed: an edition of every lab gives it away."""
        out = self.tmp / "edition"
        with self.assertRaises(student_edition.EditionError) as caught:
            student_edition.make(out, git=False)
        message = str(caught.exception)
        self.assertIn("grader/labs/03_tiled_gemm/gemm_naive.cu contains lab 02's solution code", message)
        self.assertIn("--released 02", message)
        self.assertEqual(list(out.iterdir()), [])  # nothing left behind

    def test_every_lab_once_their_answers_may_show(self):
        out = self.tmp / "edition"
        self.assertEqual(student_edition.make(out, released="01,02,03"), [lab.number for lab in COURSE.labs])
        log = subprocess.run(["git", "-C", str(out), "log", "--format=%s"], capture_output=True, text=True)
        self.assertEqual(log.stdout.splitlines(), [student_edition.COMMIT_MESSAGE])
        status = subprocess.run(["git", "-C", str(out), "status", "--porcelain"], capture_output=True, text=True)
        self.assertEqual(status.stdout, "")
        self.assertTrue(os.access(out / "setup.sh", os.X_OK))

    def test_an_assignment_needs_no_release(self):
        out = self.tmp / "edition"
        self.assertEqual(student_edition.make(out, numbers="01,02", git=False), ["01", "02"])
        self.assertFalse((out / ".git").exists())
        self.assertEqual(solution_code.scan(out, SECRETS), [])

    def test_a_folder_that_is_not_empty_is_refused(self):
        (self.tmp / "edition").mkdir()
        (self.tmp / "edition" / "keep.txt").write_text("mine")
        with self.assertRaisesRegex(student_edition.EditionError, "exists and is not an empty folder"):
            student_edition.make(self.tmp / "edition", numbers="01")
        self.assertEqual((self.tmp / "edition" / "keep.txt").read_text(), "mine")


class SolutionCode(TempDirTest):
    """The search finds solution code however it is dressed, and leaves the labs' own hand-outs alone."""

    def setUp(self):
        super().setUp()
        self.out = self.tmp / "edition"
        student_edition.make(self.out, numbers="01,02,03", released="01,02", git=False)

    def found(self, rel: str, text: str, released: frozenset = frozenset()) -> list[str]:
        (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.out / rel).write_text(text)
        return [f.secret.what for f in solution_code.scan(self.out, SECRETS, released) if f.path == rel]

    def test_a_copied_solution(self):
        text = (REPO / "solutions" / "03_tiled_gemm" / "tiled_gemm.cu").read_text()
        self.assertIn("solutions/03_tiled_gemm/tiled_gemm.cu", self.found("labs/03_tiled_gemm/mine.cu", text))

    def test_an_answer_reformatted_in_a_markdown_page(self):
        solution = (REPO / "solutions" / "06_reduction" / "reduction.cu").read_text()
        answer = solution_code.todo_answers(solution)[0]
        page = "# Notes\n\n```cuda\n" + "\n".join("  " + line.strip() + "  // mine" for line in answer.splitlines())
        found = self.found("docs/notes.md", page + "\n```\n")
        self.assertIn("solutions/06_reduction/reduction.cu, TODO region 1", found)

    def test_a_catalogue_mutant_and_a_variant_kernel(self):
        lab = COURSE.lab("05")
        mutant = catalogue.load_catalogue(lab, REPO)[0]
        self.assertIn(f"catalogue entry {mutant.name}", self.found("docs/bug.md", mutant.text))
        variant = (lab.dir / "variants" / lab.variants[0]).read_text()
        name, kernel = solution_code.kernels(variant)[0]
        self.assertTrue(any(w.endswith(f"kernel {name}") for w in self.found("common/x.h", "// x\n" + kernel)))

    def test_a_released_lab_and_the_labs_own_baselines_are_not_secret(self):
        self.assertEqual(solution_code.scan(self.out, SECRETS, frozenset({"01", "02"})), [])
        text = (REPO / "solutions" / "06_reduction" / "reduction.cu").read_text()
        self.assertEqual(self.found("docs/lab06.md", text, frozenset({"06"})), [])
        baseline = (REPO / "grader" / "labs" / "02_naive_gemm" / "gemm_uncoalesced.cu").read_text()
        self.assertEqual(self.found("docs/baseline.md", baseline), [])  # a baseline shares the dot product


SELFTEST_DIR = os.environ.get("COURSE_EDITION_SELFTEST")


@unittest.skipUnless(SELFTEST_DIR, "set COURSE_EDITION_SELFTEST to a folder to run (ctest -R course.edition.student)")
class Built(unittest.TestCase):
    """The edition of every lab, configured and built on the CPU backend as a student would: every skeleton
    compiles and `ctest -R labNN` fails; with the reference solution in its place it passes (the failures are the
    TODOs', not the edition's). The harness dominates the build: six labs take hardly longer than one."""

    LABS = tuple(lab.number for lab in COURSE.labs)
    RELEASED = "01,02,03"  # lab 03 gives labs 01 and 02 away, lab 07 lab 03 (its baseline; Writing tests why)

    def test_skeletons_compile_and_fail(self):
        base = Path(SELFTEST_DIR).resolve()  # the same path every run, so ccache finds the harness again
        shutil.rmtree(base, ignore_errors=True)
        edition = base / "edition"
        build = edition / "build" / "cpu"  # the edition's preset "cpu": no CUDA compiler used at all
        started = time.monotonic()
        student_edition.make(edition, numbers=",".join(self.LABS), released=self.RELEASED)
        names = [p.relative_to(edition) for p in edition.rglob("*") if ".git" not in p.relative_to(edition).parts]
        self.assertFalse([n for n in names if {"solutions", "variants"} & set(n.parts) or n.name == "catalogue.toml"])
        self.assertEqual(solution_code.scan(edition, SECRETS, frozenset(self.RELEASED.split(","))), [])
        self._run(["cmake", "--preset", "cpu"], cwd=edition)
        self.assertIn("COURSE_BUILD_SOLUTIONS:BOOL=OFF", (build / "CMakeCache.txt").read_text())
        self._run([sys.executable, "docs/tools/build_site.py", "--check"], cwd=edition)  # the student flavour there
        self._run(["cmake", "--build", "--preset", "cpu", "-j", "2"], cwd=edition, timeout=3000)
        print(f"\nedition written, configured and built in {time.monotonic() - started:.0f} s", file=sys.stderr)
        listed = subprocess.run(["ctest", "--test-dir", str(build), "-N"], capture_output=True, text=True, timeout=600)
        self.assertEqual(listed.returncode, 0, listed.stdout[-3000:] + listed.stderr[-3000:])
        names = re.findall(r"Test\s+#\d+: (\S+)", listed.stdout)
        self.assertTrue(names, listed.stdout[-3000:])
        # the course's own tests (harness, CPU backend) are the self-test's, which a tree without solutions/ lacks
        self.assertEqual([n for n in names if not re.match(r"lab\d\d\.", n)], [])
        for number in self.LABS:
            with self.subTest(lab=number):
                c = self._ctest(build, number)
                self.assertNotEqual(c.returncode, 0, f"the skeleton of lab {number} passes:\n{c.stdout[-3000:]}")
                self.assertRegex(c.stdout, r"tests passed, [1-9]\d* tests failed out of")

        for number in self.LABS:  # the reference solutions in the skeletons' place: the same tests pass
            lab = COURSE.lab(number)
            for name in lab.files:
                shutil.copyfile(REPO / "solutions" / lab.folder / name, edition / "labs" / lab.folder / name)
        self._run(["cmake", "--build", "--preset", "cpu", "-j", "2"], cwd=edition, timeout=3000)
        for number in self.LABS:
            with self.subTest(lab=number, solution=True):
                c = self._ctest(build, number)
                self.assertEqual(c.returncode, 0, c.stdout[-3000:])
                self.assertIn("100% tests passed", c.stdout)
        print(f"edition tested in {time.monotonic() - started:.0f} s", file=sys.stderr)

    def _ctest(self, build: Path, number: str) -> subprocess.CompletedProcess:
        cmd = ["ctest", "--test-dir", str(build), "-R", f"lab{number}", "-j", "2", "--timeout", "300"]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=1800)

    def _run(self, cmd: list, cwd: Path, timeout: float = 600) -> None:
        c = subprocess.run([str(a) for a in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout)
        if c.returncode != 0:
            self.fail(
                f"{' '.join(str(a) for a in cmd)} exited with {c.returncode}:\n{c.stdout[-4000:]}{c.stderr[-4000:]}"
            )


if __name__ == "__main__":
    unittest.main()
