"""Forbidden-library scan (source level) and link-level checks."""
import unittest

from helpers import COURSE, CORRECT, LAB01, LAB03

from course_grader import config, samples, scan

RULES = COURSE.anticheat
BASELINES = scan.baseline_functions(COURSE.labs)


def problems(text, lab=LAB01):
    return scan.scan_source("matadd.cu", text, lab, RULES, BASELINES)


class StripCode(unittest.TestCase):
    def test_comments_and_strings_removed_lines_kept(self):
        text = 'a // cublas\n/* thrust::\n x */ b "getenv(" \'c\' R"x(fopen)x" 1\'000\n'
        out = scan.strip_code(text)
        self.assertEqual(out.count("\n"), text.count("\n"))
        for word in ("cublas", "thrust", "getenv", "fopen"):
            self.assertNotIn(word, out)
        self.assertIn("a", out)
        self.assertIn("b", out)

    def test_line_splice_joins_identifiers(self):
        self.assertIn("getenv", scan.strip_code("get\\\nenv"))


class SourceScan(unittest.TestCase):
    def test_samples(self):
        self.assertEqual(problems(CORRECT.decode()), [])
        racy = samples.source("racy", COURSE.labs)
        self.assertEqual(scan.scan_source("tiled_gemm.cu", racy, LAB03, RULES, BASELINES), [])
        forbidden = samples.source("forbidden", COURSE.labs)
        self.assertTrue(any("cublas" in p for p in problems(forbidden)))

    def test_course_solutions_and_skeletons_pass(self):
        for lab in COURSE.existing_labs():
            for top in ("labs", "solutions"):
                for name in lab.files:
                    path = config.REPO_ROOT / top / lab.folder / name
                    if path.is_file():
                        self.assertEqual(scan.scan_source(name, path.read_text(), lab, RULES, BASELINES), [],
                                         str(path))

    def test_forbidden_includes(self):
        for inc in ("<cublas_v2.h>", "<thrust/reduce.h>", "<cub/cub.cuh>", "<curand_kernel.h>", "<cufft.h>",
                    "<gtest/gtest.h>", "<fstream>", "<dlfcn.h>", '"../../solutions/01_matadd/matadd.cu"',
                    '"/work/main/solutions/01_matadd/matadd.cu"', '"lab02_baselines.h"', '"helper.h"', "MACRO"):
            self.assertTrue(problems(f"#include {inc}\n"), inc)
        self.assertEqual(problems('#include "lab01_matadd.h"\n#include <cstdio>\n#include <cuda_runtime.h>\n'), [])

    def test_identifiers_in_code_only(self):
        self.assertEqual(problems('// cublasSgemm getenv\nconst char* s = "thrust::sort fopen";\n'), [])
        for code in ("cublasSgemm(h);", "thrust::sort(a, a + n);", "cub::DeviceReduce::Sum();",
                     "cudaLaunchHostFunc(s, f, 0);", "asm(\"trap;\");", "getenv(\"COURSE_SEED\");",
                     "FILE* f = fopen(\"x\", \"w\");", "system(\"ls\");", "exit(0);",
                     "uncoalesced_gemm(a, b, c, m, n, k, s);", "unpadded_gemm_kernel<<<1, 1>>>();",
                     "__attribute__((constructor)) void f() {}", "#define CAT(a, b) a##b",
                     "::testing::Test::RecordProperty(\"ratio\", \"9\");", "cudaMemcpy(c, a, n, k);"):
            self.assertTrue(problems(code + "\n"), code)

    def test_every_labs_baselines_are_forbidden(self):
        for lab in COURSE.labs:
            for name in lab.baselines:
                text = (lab.dir / name).read_text()
                self.assertTrue(any(f"{b}(" in text for b in BASELINES), f"{lab.folder}/{name}")

    def test_calls_vs_names(self):
        self.assertEqual(problems("int write = 0; s.write(1); p->exit(); float remove;\n"), [])
        self.assertTrue(problems("write(1, buf, 2);\n"))

    def test_allow_list_per_lab(self):
        import dataclasses
        lab = dataclasses.replace(LAB01, allow=("cudaMemcpy",))
        self.assertEqual(scan.scan_source("matadd.cu", "cudaMemcpy(a, b, n, k);\n", lab, RULES), [])

    def test_line_numbers(self):
        (p,) = problems("int x;\n\n  getenv(0);\n")
        self.assertTrue(p.startswith("matadd.cu:3:"), p)


class LinkScan(unittest.TestCase):
    def test_forbidden_libraries(self):
        libs = ["libcudart.so.12", "libcublas.so.12", "/usr/lib/libcurand.so.10", "libstdc++.so.6", "libc.so.6"]
        self.assertEqual(scan.forbidden_links(libs, RULES), ["libcublas.so.12", "libcurand.so.10"])

    def test_needed_libraries_of_a_real_binary(self):
        libs = scan.needed_libraries(__import__("pathlib").Path("/bin/ls"))
        self.assertTrue(any(l.startswith("libc.so") for l in libs), libs)
        self.assertEqual(scan.forbidden_links(libs, RULES), [])

    def test_solution_inputs(self):
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "build.ninja").write_text(f"build x: CXX {config.REPO_ROOT}/solutions/01_matadd/matadd.cu\n")
            self.assertTrue(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"))
            (Path(d) / "build.ninja").write_text("build x: CXX /scratch/student-0/01_matadd/matadd.cu\n")
            self.assertEqual(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"), [])
            # the configure step reads the solutions (to write the catalogue's mutants): not a build of them
            solution = config.REPO_ROOT / "solutions" / "01_matadd" / "matadd.cu"
            (Path(d) / "build.ninja").write_text(f"build build.ninja: RERUN_CMAKE | {solution}\n"
                                                 f"build {solution}: phony\n")
            self.assertEqual(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"), [])
            (Path(d) / "build.ninja").write_text(f"build r.cpp: CUSTOM_COMMAND $\n    {solution}\n")
            self.assertTrue(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"))


if __name__ == "__main__":
    unittest.main()
