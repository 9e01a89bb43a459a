"""Symbol-level rules on the compiled student objects (course_grader/symbols.py, course.toml [symbols]).

The tests that compile need a configured and built course tree (symbol_tree.find_tree: $COURSE_BUILD_DIR or the
newest under build/); without one they are skipped, with the reason. They check that every program of the course
(solutions, variants, catalogue mutants, skeletons) keeps to the rules, that the honest forms in symbol_cases/ pass
the rules and the source scan, and that every cheat there is rejected with a message naming its symbol.
"""
import hashlib
import json
import os
import re
import shutil
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import symbol_tree
from helpers import COURSE, LAB01, TempDirTest

from course_grader import config, intake, lab_grader, scan, symbols
from course_grader.build_tree import Program
from course_grader.grading import Options

CASES = Path(__file__).resolve().parent / "symbol_cases"
TREE = symbol_tree.find_tree()
NO_TREE = "no configured and built course tree (cmake -S . -B build; cmake --build build; or set COURSE_BUILD_DIR)"
RULES = COURSE.symbols


def header(path: Path, key: str) -> list[str] | None:
    m = re.search(rf"^// {key}: (.*)$", path.read_text(), re.M)
    return m.group(1).split() if m else None


def lab_number(path: Path) -> str:
    return re.search(r'#include "lab(\d\d)_', path.read_text()).group(1)


def tree_modes() -> list[str]:
    return list(symbol_tree.lab_targets(TREE, "01")["objects"]) if TREE else []


_built: dict[tuple[str, str], object] = {}


def build_cases(work: Path) -> dict[tuple[str, str], object]:
    """Every case file in every mode it declares (// modes:, default: all; cheats: cpu and gpu) that the tree builds,
    and the labs' variants on the GPU (the tree builds them in check mode only), compiled once for all tests, in
    parallel: (file name, mode) -> ProgramInputs, or the compiler's error."""
    if _built:
        return _built
    jobs = []
    for path in sorted(CASES.glob("*.cu")):
        modes = header(path, "modes") or (["cpu", "gpu"] if path.name.startswith("cheat_") else tree_modes())
        jobs += [(path, m) for m in modes if m in tree_modes()]
    if "gpu" in tree_modes():
        jobs += [(lab.dir / "variants" / v, "gpu") for lab in COURSE.labs for v in lab.variants]

    def one(job):
        path, mode = job
        try:
            return symbol_tree.compile_lab_file(TREE, lab_number(path), mode, path, work / path.stem / mode)
        except RuntimeError as e:
            return str(e)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for (path, mode), result in zip(jobs, pool.map(one, jobs)):
            key = path.name if path.parent == CASES else f"variant:{lab_number(path)}:{path.name}"
            _built[(key, mode)] = result
    return _built


class Names(unittest.TestCase):
    def test_qualified_name(self):
        ostream = "std::basic_ostream<char, std::char_traits<char> >"
        cases = {
            "std::__throw_bad_alloc()": "std::__throw_bad_alloc",
            "void tiled_gemm<16>(float const*, float const*, float*, int, int, int, CUstream_st*)": "tiled_gemm<16>",
            "operator delete(void*, unsigned long)": "operator delete",
            "std::ostream::operator<<(int)": "std::ostream::operator<<",
            f"{ostream}& std::operator<< <std::char_traits<char> >({ostream}&, char const*)": (
                "std::operator<< <std::char_traits<char> >"
            ),
            "course::Foo::operator bool() const": "course::Foo::operator bool",
            "course_cpu::detail::format_index[abi:cxx11](uint3 const&)": "course_cpu::detail::format_index[abi:cxx11]",
            "(anonymous namespace)::helper(int)": "{anonymous}::helper",
            "matadd_kernel(float const*, float const*, float*, int, int) [clone .cold]": "matadd_kernel",
            "decltype (({parm#1}.begin)()) std::begin<x>(x&)": "std::begin<x>",
            "typeinfo for std::exception": "typeinfo for std::exception",
            "system": "system",
        }
        for demangled, name in cases.items():
            self.assertEqual(symbols.qualified_name(demangled), name, demangled)

    def test_weak_copies_from_the_standard_headers(self):
        """Inline variables and functions of the standard library are weak or unique definitions in every object that
        uses them (std::map's operator[] defines std::piecewise_construct with g++ 13): never a replacement."""
        self.assertTrue(symbols.matches(RULES.shared_unique, "std::piecewise_construct"))
        self.assertTrue(symbols.matches(RULES.shared_weak, "std::vector<int, std::allocator<int> >::push_back"))
        self.assertTrue(symbols.matches(RULES.shared_weak, "std::__cxx11::to_string"))  # inline, in <string> only
        # a weak plain function of libstdc++ (interposed) is a collision; the course's own names never match
        self.assertFalse(symbols.matches(RULES.shared_weak, "std::__throw_bad_alloc"))
        for name in ("course::run_launcher", "course::measure", "main", "matadd"):
            self.assertFalse(symbols.matches(RULES.shared_weak + RULES.shared_unique, name), name)

    def test_allowlists(self):
        cpu, gpu = RULES.allowed("cpu"), RULES.allowed("gpu")
        for name in (
            "sinf",
            "expl",
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
            "operator new",
            "std::__throw_length_error",
            "course_cpu::detail::run_grid",
        ):
            self.assertTrue(symbols.matches(cpu, name), name)
        for name in ("__cudaRegisterFunction", "cudaLaunchKernel", "exit"):
            self.assertTrue(symbols.matches(gpu, name), name)
        for name in (
            "system",
            "popen",
            "fork",
            "execve",
            "open",
            "open64",
            "fopen",
            "fopen64",
            "socket",
            "dlopen",
            "syscall",
            "getenv",
            "secure_getenv",
            "__environ",
            "environ",
            "ptrace",
            "posix_spawn",
            "kill",
            "cudaMemcpy",
            "cudaMemcpyFromSymbol",
            "cudaMallocManaged",
            "cudaMallocHost",
            "cudaDeviceReset",
            "cudaLaunchHostFunc",
            "course_cpu::take_diagnostics",
            "course_cpu::detail::reset_errors",
            "std::basic_ofstream<char, std::char_traits<char> >::basic_ofstream",
            "std::thread::_M_start_thread",
            "testing::Test::RecordProperty",
            "course::compare",
            "exit",
            "_exit",
            "mprotect",
        ):
            self.assertFalse(symbols.matches(cpu, name), name)
            if name != "exit":
                self.assertFalse(symbols.matches(gpu, name), name)
        self.assertFalse(symbols.matches(RULES.shared_weak, "cudaEventElapsedTime"))
        self.assertTrue(symbols.matches(RULES.shared_weak, "cudaMalloc<float>"))

    def test_message_names_the_symbol_and_says_what_to_do_once(self):
        found = [
            symbols.Violation("undefined", "system", "matadd.cu"),
            symbols.Violation(
                "defined",
                "course::run_launcher(std::__cxx11::basic_string<char, "
                "std::char_traits<char>, std::allocator<char> > const&)",
                "matadd.cu",
            ),
        ]
        text = symbols.report(found)
        self.assertIn("matadd.cu: uses 'system'", text)
        self.assertIn("'course::run_launcher(std::string const&)'", text)
        self.assertEqual(text.count(symbols.ADVICE[1:]), 1)


class NotCheckable(TempDirTest):
    def test_unknown_symbols_key_is_a_config_error(self):
        path = self.tmp / "course.toml"
        path.write_text(config.DEFAULT_CONFIG.read_text().replace("shared_weak = [", "shared_weakk = ["))
        with self.assertRaises(config.ConfigError):
            config.load(path)

    def test_a_tree_double_without_cmake_is_not_checked(self):
        double = type("Double", (), {"dir": self.tmp})()
        self.assertIsNone(symbols.check_build(double, LAB01, ["cpu"], RULES))

    def test_a_cmake_tree_without_the_objects_is_not_graded(self):
        (self.tmp / "CMakeCache.txt").write_text("CMAKE_MAKE_PROGRAM:FILEPATH=ninja\n")
        (self.tmp / "grader" / "targets").mkdir(parents=True)
        (self.tmp / "grader" / "targets" / "lab01.json").write_text(
            json.dumps({"lab": "01", "folder": LAB01.folder, "executables": {"cpu": str(self.tmp / "x")}})
        )
        double = type("Double", (), {"dir": self.tmp})()
        verdict, message = symbols.check_build(double, LAB01, ["cpu"], RULES)
        self.assertEqual(verdict, "not-graded")
        self.assertIn("could not be checked", message)


@unittest.skipUnless(TREE, NO_TREE)
class CourseCorpus(unittest.TestCase):
    def test_every_program_of_the_course_keeps_to_the_rules(self):
        """Solutions, variants, catalogue mutants and skeletons, every backend the tree builds: honest code."""
        programs = sorted((TREE / "grader" / "targets" / "programs").glob("*.json"))
        names = " ".join(p.stem for p in programs)
        self.assertIn("solution01_", names)
        self.assertIn("_catalogue_", names)
        for path in programs:
            d = json.loads(path.read_text())
            with self.subTest(program=path.stem):
                p = symbols.program_inputs(TREE, d["mode"], Path(d["worker"]), d["objects"], d["baselines"])
                self.assertEqual(symbols.check_program(p, RULES, COURSE.lab(d["lab"])), [])


@unittest.skipUnless(TREE, NO_TREE)
class Cases(TempDirTest):
    @classmethod
    def setUpClass(cls):
        # A fixed folder per tree, so that ccache (which the tree's commands use) serves the next run
        key = hashlib.sha1(str(TREE).encode()).hexdigest()[:10]
        work = Path(tempfile.gettempdir()) / f"course-symbol-cases-{os.getuid()}-{key}"
        shutil.rmtree(work, ignore_errors=True)
        cls.built = build_cases(work)

    def results(self, prefix: str):
        out = [(name, mode, r) for (name, mode), r in sorted(self.built.items()) if name.startswith(prefix)]
        self.assertTrue(out, prefix)
        return out

    def test_honest_forms_pass_the_scan_and_the_rules(self):
        for name, mode, built in self.results("honest_"):
            with self.subTest(case=name, mode=mode):
                path = CASES / name
                lab = COURSE.lab(lab_number(path))
                self.assertEqual(scan.scan_source(lab.files[0], path.read_text(), lab, COURSE.anticheat), [])
                self.assertNotIsInstance(built, str, built)
                self.assertEqual(symbols.check_program(built, RULES, lab), [])

    def test_variants_on_the_gpu(self):
        variants = [(name, r) for (name, mode), r in sorted(self.built.items()) if name.startswith("variant:")]
        if not variants:
            self.skipTest("the tree builds no GPU program")
        for name, built in variants:
            with self.subTest(variant=name):
                self.assertNotIsInstance(built, str, built)
                self.assertEqual(symbols.check_program(built, RULES, COURSE.lab(name.split(":")[1])), [])

    def test_cheats_are_rejected_naming_the_symbol(self):
        for name, mode, built in self.results("cheat_"):
            with self.subTest(case=name, mode=mode):
                rule, *names = header(CASES / name, "expect")
                split = header(CASES / name, "split")
                if split and split[0] == "link-fails":  # the judge/worker split: the worker cannot even link it
                    self.assertIsInstance(built, str, "the worker linked")
                    self.assertIn("undefined reference", built)
                    self.assertIn(split[1].split("::")[-1], built)
                    continue
                self.assertNotIsInstance(built, str, built)
                if split and split[0] == "harmless":  # nothing of the harness is in the worker to replace
                    self.assertEqual(symbols.check_program(built, RULES, COURSE.lab(lab_number(CASES / name))), [])
                    continue
                found = symbols.check_program(built, RULES, COURSE.lab(lab_number(CASES / name)))
                self.assertTrue(found, "not rejected")
                self.assertEqual({v.rule for v in found}, {rule}, found)
                text = symbols.report(found)
                for n in names:
                    self.assertTrue(any(symbols.qualified_name(v.symbol) == n or n in v.symbol for v in found), n)
                    self.assertIn(f"'{n}", text)

    def test_wired_after_the_build(self):
        """LabGrader.grade with a tree double whose CMake tree holds the compiled cheat: forbidden, not run."""
        built = self.built.get(("cheat_system_pointer.cu", "cpu"))
        if not isinstance(built, symbols.ProgramInputs):
            self.skipTest("the tree has no CPU backend")
        tree = self.tmp / "tree"
        (tree / "grader" / "targets").mkdir(parents=True)
        (tree / "CMakeCache.txt").write_text("CMAKE_MAKE_PROGRAM:FILEPATH=ninja\n")
        inputs = " ".join(str(p) for p in (*built.student, *built.others))
        (tree / "build.ninja").write_text(f"rule LINK\n  command = true\nbuild program: LINK {inputs}\n")
        os.symlink(built.executable, tree / "program")
        targets = {
            "lab": "01",
            "folder": LAB01.folder,
            "executables": {"cpu": str(tree / "program")},
            "workers": {"cpu": str(tree / "program")},
            "objects": {"cpu": [str(p) for p in built.student]},
            "baselines": {"cpu": []},
        }
        (tree / "grader" / "targets" / "lab01.json").write_text(json.dumps(targets))

        class Double:
            dir, student_dir = tree, self.tmp / "student-0"

            def build(self, lab, files):
                return True, ""

            def programs(self, lab):
                return [Program("cpu", tree / "program")]

        sub = intake.Submission(student="s", source="s")
        sub.labs["01"] = intake.LabFiles(files={"matadd.cu": (CASES / "cheat_system_pointer.cu").read_bytes()})
        grader = lab_grader.LabGrader(COURSE, Options(backend="cpu"), self.tmp, "SEED")
        r = grader.grade(sub, LAB01, Double())
        self.assertEqual(r.verdict, "forbidden", r.message)
        self.assertIn("matadd.cu: uses 'system'", r.message)
        self.assertFalse((self.tmp / "runs").exists())  # nothing ran


if __name__ == "__main__":
    unittest.main()
