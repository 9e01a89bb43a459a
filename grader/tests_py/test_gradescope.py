"""The Gradescope autograder, in a simulated /autograder layout, and the bundle.

FromAnEmptyFolder is the bundle's end-to-end test (ctest -R course.grader.gradescope, grader/cmake/editions.cmake):
it runs only where COURSE_GRADESCOPE_SELFTEST names a folder to use (emptied first), since it configures and builds
a grading tree (minutes on 2 cores).
"""
import json
import os
import shutil
import subprocess
import sys
import time
import unittest
import zipfile
from pathlib import Path

from helpers import COURSE, GRADER, LAB01, TempDirTest

from course_grader import gradescope, samples


class Layout(TempDirTest):
    def test_results_json_without_a_build(self):
        root = self.tmp / "autograder"
        (root / "submission" / "01_matadd").mkdir(parents=True)
        (root / "submission" / "01_matadd" / "matadd.cu").write_text("#include <thrust/reduce.h>\n")
        data = gradescope.run(root, COURSE, (LAB01,), root / "work")
        on_disk = json.loads((root / "results" / "results.json").read_text())
        self.assertEqual(data, on_disk)
        self.assertEqual(on_disk["score"], 0)
        names = [t["name"] for t in on_disk["tests"]]
        self.assertEqual(names, ["lab01 correctness", "lab01 performance"])
        self.assertIn("forbidden", on_disk["tests"][0]["output"])
        self.assertEqual(on_disk["tests"][0]["max_score"], LAB01.correctness_points)

    def test_run_autograder_script(self):
        """run_autograder with AUTOGRADER_ROOT pointing at a fake layout whose source/ is this checkout."""
        root = self.tmp / "autograder"
        (root / "submission").mkdir(parents=True)
        os.symlink(GRADER.parent, root / "source")
        (root / "submission" / "matadd.cu").write_text('#include "/etc/passwd"\n')
        env = dict(os.environ, AUTOGRADER_ROOT=str(root))
        subprocess.run(
            ["bash", str(GRADER / "gradescope" / "run_autograder")],
            env=env,
            check=True,
            timeout=120,
            capture_output=True,
        )
        data = json.loads((root / "results" / "results.json").read_text())
        lab01 = [t for t in data["tests"] if t["name"] == "lab01 correctness"][0]
        self.assertIn("forbidden", lab01["output"])

    def test_bundle(self):
        out = self.tmp / "bundle.zip"
        subprocess.run(
            [sys.executable, str(GRADER / "gradescope" / "make_bundle.py"), "--labs", "01", "--out", str(out)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        with zipfile.ZipFile(out) as zf:
            names = zf.namelist()
            self.assertIn("setup.sh", names)
            self.assertIn("run_autograder", names)
            self.assertIn("CMakeLists.txt", names)
            self.assertIn("grader/course_grader/gradescope.py", names)
            self.assertIn("grader/labs/01_matadd/lab.toml", names)
            self.assertIn("labs/01_matadd/matadd.cu", names)
            self.assertTrue([n for n in names if n.startswith("third_party/tomlplusplus/include/toml++/toml.h")])
            self.assertEqual(zf.read("grader/gradescope/labs.txt"), b"01\n")
            self.assertEqual((zf.getinfo("run_autograder").external_attr >> 16) & 0o111, 0o111)
            # Nothing of the solutions (nor the catalogue's mutants of them, nor the correct variants), no docs,
            # samples or grader tests, and only the graded lab.
            for part in ("solutions", "variants", "docs", "samples", "tests_py", "02_naive_gemm"):
                self.assertFalse([n for n in names if part in n.split("/")], part)
            self.assertFalse([n for n in names if n.endswith("catalogue.toml")])
            solution = (GRADER.parent / "solutions" / "01_matadd" / "matadd.cu").read_bytes()
            self.assertFalse([n for n in names if zf.read(n) == solution])

    def test_setup_plan(self):
        """setup.sh --plan says what it would install on this machine, and installs and builds nothing."""
        root = self.tmp / "autograder"
        (root / "source" / "grader").mkdir(parents=True)
        os.symlink(GRADER / "course_grader", root / "source" / "grader" / "course_grader")
        c = subprocess.run(
            ["bash", str(GRADER / "gradescope" / "setup.sh"), "--plan", str(root)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertRegex(c.stdout, r"== (everything the course needs is installed: nothing to install|to install: )")
        self.assertEqual(sorted(p.name for p in root.iterdir()), ["source"])


SELFTEST_DIR = os.environ.get("COURSE_GRADESCOPE_SELFTEST")


@unittest.skipUnless(
    SELFTEST_DIR, "set COURSE_GRADESCOPE_SELFTEST to a folder to run (ctest -R course.grader.gradescope)"
)
class FromAnEmptyFolder(unittest.TestCase):
    """The bundle as Gradescope uses it: unzipped into ROOT/source of an empty folder laid out like /autograder,
    setup.sh run there (--no-install: it fails rather than install what this machine lacks; needs no root), then each
    sample submission put into ROOT/submission and graded by run_autograder into ROOT/results/results.json."""

    SAMPLES = ("correct", "wrong")  # grader/samples/samples.toml, both lab 01
    LABS = "01"

    def test_bundle_grades_the_samples(self):
        base = Path(SELFTEST_DIR).resolve()
        shutil.rmtree(base, ignore_errors=True)
        root = base / "autograder"
        for sub in ("source", "submission", "results"):
            (root / sub).mkdir(parents=True)
        zip_path = base / "bundle.zip"
        started = time.monotonic()
        self._run([sys.executable, GRADER / "gradescope" / "make_bundle.py", "--labs", self.LABS, "--out", zip_path])
        with zipfile.ZipFile(zip_path) as zf:
            for info in zf.infolist():
                zf.extract(info, root / "source")
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    (root / "source" / info.filename).chmod(mode)
        self.assertFalse((root / "source" / "solutions").exists())
        self.assertFalse((root / "source" / "docs").exists())
        self._run([root / "source" / "setup.sh", "--no-install", root], timeout=1800)
        self.assertTrue((root / "grader-work" / "python.txt").is_file())
        print(f"\nbundle made, unzipped and set up in {time.monotonic() - started:.0f} s", file=sys.stderr)

        specs = {s.name: s for s in samples.load()}
        for name in self.SAMPLES:
            with self.subTest(sample=name):
                spec = specs[name]
                for sub in ("submission", "results"):
                    shutil.rmtree(root / sub)
                    (root / sub).mkdir()
                upload = root / "submission" / spec.path
                upload.parent.mkdir(parents=True, exist_ok=True)
                upload.write_text(samples.text(spec, COURSE.labs), encoding="utf-8")
                started = time.monotonic()
                self._run([root / "source" / "run_autograder", root], timeout=900)
                print(f"sample {name} graded in {time.monotonic() - started:.0f} s", file=sys.stderr)
                data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
                self._check(data, spec)

    def _check(self, data: dict, spec: samples.Sample) -> None:
        tests = {t["name"]: t for t in data["tests"]}
        entry = tests[f"lab{spec.lab} correctness"]
        verdicts = spec.verdicts["cpu"]
        self.assertEqual(entry["max_score"], LAB01.correctness_points)
        if set(verdicts) <= {"correct", "pass", "partial", "slow"}:
            self.assertEqual(entry["score"], entry["max_score"], entry["output"])
        else:
            self.assertEqual(entry["score"], 0, entry["output"])
            self.assertTrue(entry["output"].startswith(verdicts), f"expected {verdicts}: {entry['output']}")
        self.assertEqual(data["score"], sum(t["score"] for t in data["tests"]))
        self.assertEqual(tests[f"lab{spec.lab} performance"]["score"], 0)  # graded on the course GPU

    def _run(self, cmd: list, timeout: float = 300) -> None:
        c = subprocess.run([str(a) for a in cmd], capture_output=True, text=True, timeout=timeout)
        if c.returncode != 0:
            self.fail(
                f"{' '.join(str(a) for a in cmd)} exited with {c.returncode}:\n{c.stdout[-4000:]}{c.stderr[-4000:]}"
            )


if __name__ == "__main__":
    unittest.main()
