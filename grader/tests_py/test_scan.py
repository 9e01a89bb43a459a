"""The source scan's clear cases (libraries, includes of other files) and the link-level checks. What a lab file may
call or define is decided on its compiled objects (test_symbols.py): the scan must not reject honest code."""
import dataclasses
import unittest

from helpers import COURSE, CORRECT, LAB01, LAB03

from course_grader import config, samples, scan

RULES = COURSE.anticheat


def problems(text, lab=LAB01):
    return scan.scan_source("matadd.cu", text, lab, RULES)


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

    def test_comments_only_keeps_literals(self):
        self.assertEqual(scan.strip_code('#/**/include "x.h" // y', comments_only=True), '#    include "x.h"  ')


class LineDirectives(unittest.TestCase):
    """A line directive, in any spelling, means an error's file name proves nothing (the forged backend gap)."""

    def test_every_spelling(self):
        for text in (
            '#line 3 "/course/common/cpu/include/mma.h"\n',
            "  #  line 3\n",
            '# 3 "/course/common/cpu/include/mma.h"\n',
            '%:line 3 "x"\n',
            '#\\\nline 3 "x"\n',
            "/* a comment */ #line 3\n",
        ):
            self.assertTrue(scan.line_directives("int a;\n" + text), text)

    def test_honest_code_has_none(self):
        for text in (
            "#include <cstdio>\n#define LINE 3\n#pragma unroll\n",
            'const char* s = "#line 3";\n// #line 3\n/*\n#line 3\n*/\n',
            "#if 1\n#endif\nint line = 3;\n",
        ):
            self.assertEqual(scan.line_directives(text), [], text)
        for lab in (LAB01, LAB03):
            for f in (COURSE.repo_root / "solutions" / lab.folder).glob("*.cu"):
                self.assertEqual(scan.line_directives(f.read_text()), [], f)


class SourceScan(unittest.TestCase):
    def test_samples(self):
        self.assertEqual(problems(CORRECT.decode()), [])
        racy = samples.source("racy", COURSE.labs)
        self.assertEqual(scan.scan_source("tiled_gemm.cu", racy, LAB03, RULES), [])
        forbidden = samples.source("forbidden", COURSE.labs)
        self.assertTrue(any("cublas" in p for p in problems(forbidden)))

    def test_course_solutions_and_skeletons_pass(self):
        for lab in COURSE.existing_labs():
            for top in ("labs", "solutions"):
                for name in lab.files:
                    path = config.REPO_ROOT / top / lab.folder / name
                    if path.is_file():
                        self.assertEqual(scan.scan_source(name, path.read_text(), lab, RULES), [], str(path))

    def test_forbidden_includes(self):
        for inc in (
            "<cublas_v2.h>",
            "<thrust/reduce.h>",
            "<cub/cub.cuh>",
            "<curand_kernel.h>",
            "<cufft.h>",
            "<gtest/gtest.h>",
            '"../../solutions/01_matadd/matadd.cu"',
            '"/work/main/solutions/01_matadd/matadd.cu"',
            '"lab02_baselines.h"',
            '"helper.h"',
            "MACRO",
        ):
            self.assertTrue(problems(f"#include {inc}\n"), inc)
        self.assertEqual(problems('#include "lab01_matadd.h"\n#include <cstdio>\n#include <cuda_runtime.h>\n'), [])

    def test_include_spellings(self):
        for line in (
            "#/* x */include <cub/cub.cuh>",
            "%:include <thrust/sort.h>",
            "#import <cublas_v2.h>",
            "#  include_next <cufft.h>",
            "#inc\\\nlude <cub/cub.cuh>",
        ):
            self.assertTrue(problems(line + "\n"), line)

    def test_library_identifiers_in_code_only(self):
        self.assertEqual(problems('// cublasSgemm thrust::sort\nconst char* s = "thrust::sort cub::";\n'), [])
        for code in (
            "cublasSgemm(h);",
            "cublasHandle_t h;",
            "CUBLAS_OP_N;",
            "curand_init(1, 0, 0, &s);",
            "nppiAdd_32f_C1R();",
            "thrust::sort(a, a + n);",
            "cub::DeviceReduce::Sum();",
        ):
            self.assertTrue(problems(code + "\n"), code)

    def test_honest_code_passes(self):
        """What the symbol rules decide, and names that only look like a library's, pass the scan."""
        for code in (
            "int npp = 0, curandom = 1, cublas = 2;",
            "struct P { void open(); int write(int); };",
            "void f() { open(); write(1); exit(0); system(); }",
            "volatile float* p = nullptr;",
            'getenv("COURSE_SEED");',
            'asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));',
            "#define CAT(a, b) a##b",
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 256, 0);",
            "namespace cg = cooperative_groups; cg::this_thread_block().sync();",
            "uncoalesced_gemm(a, b, c, m, n, k, s);",
            "__attribute__((constructor)) void f() {}",
        ):
            self.assertEqual(problems(code + "\n"), [], code)
        self.assertEqual(problems("#include <cooperative_groups.h>\n#include <cuda/barrier>\n#include <fstream>\n"), [])

    def test_allow_list_per_lab(self):
        lab = dataclasses.replace(LAB01, allow=("cublasSgemm", "thrust/sort.h"))
        self.assertEqual(scan.scan_source("matadd.cu", "#include <thrust/sort.h>\ncublasSgemm(h);\n", lab, RULES), [])

    def test_line_numbers(self):
        (p,) = problems("int x;\n\n  cublasSgemm(0);\n")
        self.assertTrue(p.startswith("matadd.cu:3:"), p)


class LinkScan(unittest.TestCase):
    def test_forbidden_libraries(self):
        libs = ["libcudart.so.12", "libcublas.so.12", "/usr/lib/libcurand.so.10", "libstdc++.so.6", "libc.so.6"]
        self.assertEqual(scan.forbidden_links(libs, RULES), ["libcublas.so.12", "libcurand.so.10"])

    def test_needed_libraries_of_a_real_binary(self):
        libs = scan.needed_libraries(__import__("pathlib").Path("/bin/ls"))
        self.assertTrue(any(lib.startswith("libc.so") for lib in libs), libs)
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
            (Path(d) / "build.ninja").write_text(
                f"build build.ninja: RERUN_CMAKE | {solution}\n" f"build {solution}: phony\n"
            )
            self.assertEqual(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"), [])
            (Path(d) / "build.ninja").write_text(f"build r.cpp: CUSTOM_COMMAND $\n    {solution}\n")
            self.assertTrue(scan.solution_inputs(Path(d), config.REPO_ROOT / "solutions"))


if __name__ == "__main__":
    unittest.main()
