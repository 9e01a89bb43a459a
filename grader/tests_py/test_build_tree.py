"""The grading build tree without building: which programs a lab has comes from <tree>/grader/targets/labNN.json."""
import json
import unittest

from helpers import COURSE, LAB01, LAB03, TempDirTest

from course_grader import build_tree
from course_grader.verdicts import GraderError


class Targets(TempDirTest):
    def write(self, lab, data):
        path = self.tmp / "grader" / "targets" / f"lab{lab.number}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data) if not isinstance(data, str) else data)
        return path

    def test_programs_check_mode_first(self):
        self.write(
            LAB03,
            {
                "lab": "03",
                "folder": LAB03.folder,
                "executables": {"cpu": "/t/grader/x_cpu", "check": "/t/grader/x_check"},
                "workers": {"cpu": "/t/grader/w_cpu", "check": "/t/grader/w_check"},
            },
        )
        tree = build_tree.BuildTree(COURSE, self.tmp, 0, "cpu", (LAB03,), 1)
        tree.targets = {"03": build_tree.read_targets(self.tmp, LAB03)}
        self.assertEqual(
            [(p.mode, str(p.path), p.name, str(p.worker)) for p in tree.programs(LAB03)],
            [
                ("check", "/t/grader/x_check", "x_check", "/t/grader/w_check"),
                ("cpu", "/t/grader/x_cpu", "x_cpu", "/t/grader/w_cpu"),
            ],
        )

    def test_without_check_mode(self):
        programs = {"executables": {"gpu": "/t/g"}, "workers": {"gpu": "/t/w"}}
        self.write(LAB01, {"lab": "01", "folder": LAB01.folder, **programs})
        tree = build_tree.BuildTree(COURSE, self.tmp, 0, "gpu", (LAB01,), 1)
        tree.targets = {"01": build_tree.read_targets(self.tmp, LAB01)}
        self.assertEqual([p.mode for p in tree.programs(LAB01)], ["gpu"])

    def test_bad_targets_files(self):
        with self.assertRaises(GraderError) as cm:
            build_tree.read_targets(self.tmp, LAB01)
        self.assertIn("lab01.json", str(cm.exception))
        for data in (
            "{not json",
            {"lab": "02", "folder": LAB01.folder, "executables": {}},
            {"lab": "01", "folder": "01_other", "executables": {}},
            {"lab": "01", "folder": LAB01.folder, "executables": {"fast": "/t/x"}},
            {"lab": "01", "folder": LAB01.folder, "executables": {"cpu": "relative/x"}},
            {"lab": "01", "folder": LAB01.folder, "executables": {"cpu": "/t/x"}},  # no worker
            {"lab": "01", "folder": LAB01.folder, "executables": {"cpu": "/t/x"}, "workers": {"cpu": "w"}},
        ):
            self.write(LAB01, data)
            with self.assertRaises(GraderError, msg=str(data)):
                build_tree.read_targets(self.tmp, LAB01)


class NinjaQuery(unittest.TestCase):
    def test_outputs_are_parsed(self):
        text = (
            "/s/03_tiled_gemm/tiled_gemm.cu:\n  outputs:\n    grader/rewritten/lab03_cpu/tiled_gemm.cpp\n"
            "    /b/grader/rewritten/lab03_cpu/tiled_gemm.cpp\n"
            "grader/x.cpp.o:\n  input: CXX_COMPILER__lab03_check_Release\n    /b/grader/x.cpp\n"
            "    || cmake_object_order_depends_target_lab03_check\n  outputs:\n    grader/lab03_check\n"
        )
        self.assertEqual(
            build_tree._query_outputs(text),
            [
                "grader/rewritten/lab03_cpu/tiled_gemm.cpp",
                "/b/grader/rewritten/lab03_cpu/tiled_gemm.cpp",
                "grader/lab03_check",
            ],
        )


if __name__ == "__main__":
    unittest.main()
