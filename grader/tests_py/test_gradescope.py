"""The Gradescope autograder, in a simulated /autograder layout, and the bundle."""
import json
import os
import subprocess
import sys
import unittest
import zipfile

from helpers import COURSE, GRADER, LAB01, TempDirTest

from course_grader import gradescope


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
            self.assertIn("grader/course_grader/gradescope.py", names)
            self.assertIn("labs/01_matadd/matadd.cu", names)
            self.assertEqual(zf.read("grader/gradescope/labs.txt"), b"01\n")
            self.assertFalse([n for n in names if n.startswith("solutions/") or "/solutions/" in n])
            self.assertEqual((zf.getinfo("run_autograder").external_attr >> 16) & 0o111, 0o111)


if __name__ == "__main__":
    unittest.main()
