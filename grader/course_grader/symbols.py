"""Symbol-level anti-cheat rules on the compiled student objects: the rule that decides `forbidden` after the build.

For every program of a lab (check, cpu, gpu) the build tree states which objects were compiled from the student's lab
file(s) and which are the lab's baselines (<tree>/grader/targets/labNN.json, written by grader/cmake/CourseLab.cmake);
every other input of the link (test objects, harness, CPU runtime, GoogleTest, shared libraries) comes from the build
graph (`ninja -t query <executable>`). The rules, with lists from course.toml [symbols]:
  undefined  every symbol the student's object uses (readelf) must match the allowlist of its backend (the CUDA runtime
             calls a lab needs, math, what the allowed headers expand to); a symbol of the lab's baselines never does;
  defined    no global symbol the student's object defines may be defined or used by another input of the link, or
             be exported by the executable (that would replace a harness, runtime or library function), except the
             lab's launchers and the weak template copies that shared headers put in every object;
  code       the student's host code contains no system call instruction, and no data sits in its code sections.
Names are compared demangled, without their parameter list (qualified_name), as shell patterns (fnmatch).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import functools
import json
import re
import subprocess
import threading
from pathlib import Path

from .build_tree import BuildTree
from . import sandbox
from .config import SymbolRules
from .manifest import Lab

# The one sentence a student reads under every violation.
ADVICE = (
    "a lab file may use only the CUDA runtime, math and C++ standard-library calls that a kernel and its "
    "launcher need, and may not call or redefine anything of the grader's: remove it and submit again"
)


class SymbolError(Exception):
    """The objects or the tools are missing: the submission cannot be checked (not graded)."""


@dataclasses.dataclass(frozen=True)
class Symbol:
    name: str  # as in the object (mangled)
    kind: str  # as nm: U undefined, w weak undefined, W weak definition, u unique definition, T definition

    @property
    def undefined(self) -> bool:
        return self.kind in "Uw"

    @property
    def weak(self) -> bool:
        return self.kind in "Wwu"

    @property
    def global_definition(self) -> bool:
        return not self.undefined  # read_symbols keeps no local symbol


@dataclasses.dataclass(frozen=True)
class ProgramInputs:
    """One linked test program, split by origin."""

    mode: str  # check, cpu (CPU backend) or gpu
    executable: Path
    student: tuple[Path, ...]  # objects compiled from the lab file(s)
    baselines: tuple[Path, ...]  # the lab's baseline objects
    others: tuple[Path, ...]  # every other input of the link: objects, static and shared libraries


# ---- reading objects -------------------------------------------------------------------------------------------------


def _run(cmd: list[str], stdin: str | None = None, files: tuple[Path, ...] = ()) -> str:
    """Runs a tool; one that reads the student's `files` (named in `cmd` by absolute path) runs in the sandbox."""
    try:
        if files:
            c = sandbox.inspect(cmd, files, stdin)
        else:
            c = subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SymbolError(f"{cmd[0]} failed: {e}") from e
    if c.returncode != 0:
        raise SymbolError(f"{' '.join(cmd[:3])} ... failed: {c.stderr.strip()[:300]}")
    return c.stdout


_READELF = re.compile(r"\s*\d+:\s+[0-9a-fA-F]+\s+\S+\s+(\w+)\s+(\w+)\s+\S+\s+(\S+)\s+(\S+)")


def read_symbols(path: Path, dynamic: bool = False) -> list[Symbol]:
    """Every global and weak symbol of an object, archive or shared library (dynamic: the exported table), with nm's
    letters (readelf: nm loads the LTO plugin and is ten times slower)."""
    path = path.resolve()
    out = _run(["readelf", "-W", "--dyn-syms" if dynamic else "--syms", str(path)], files=(path,))
    symbols = []
    for line in out.splitlines():
        m = _READELF.match(line)
        if not m or m.group(1) in ("FILE", "SECTION"):
            continue
        kind, bind, index, name = m.groups()
        name = name.split("@", 1)[0]
        if bind == "LOCAL" or not name:
            continue
        if index == "UND":
            symbols.append(Symbol(name, "w" if bind == "WEAK" else "U"))
        else:
            symbols.append(Symbol(name, {"WEAK": "W", "UNIQUE": "u"}.get(bind, "T")))
    return symbols


_cache: dict[tuple[str, int, int, bool], tuple[frozenset[str], frozenset[str]]] = {}
_cache_lock = threading.Lock()


def defined_and_used(path: Path, dynamic: bool = False) -> tuple[frozenset[str], frozenset[str]]:
    """(global definitions, undefined uses) of a link input; cached while the file is unchanged (the harness and
    its libraries are built once per tree)."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size, dynamic)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    symbols = read_symbols(path, dynamic)
    value = (
        frozenset(s.name for s in symbols if s.global_definition),
        frozenset(s.name for s in symbols if s.undefined),
    )
    with _cache_lock:
        _cache[key] = value
    return value


def demangle(names: list[str]) -> dict[str, str]:
    if not names:
        return {}
    out = _run(["c++filt"], stdin="\n".join(names) + "\n").splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


_SYSCALL = re.compile(r"\t(syscall|sysenter|int\s+\$0x80)\b")


def system_calls(path: Path) -> list[str]:
    """The functions of an object that contain a system call instruction (objdump -d)."""
    found, function = [], ""
    path = path.resolve()
    for line in _run(["objdump", "-d", "-C", "--no-show-raw-insn", str(path)], files=(path,)).splitlines():
        m = re.match(r"[0-9a-f]+ <(.+)>:$", line)
        if m:
            function = m.group(1)
        elif _SYSCALL.search(line) and function not in found:
            found.append(function)
    return found


def data_in_code(path: Path) -> list[str]:
    """Data symbols (type OBJECT, local ones too) that an object places in an executable section."""
    executable, found = set(), []
    path = path.resolve()
    for line in _run(["readelf", "-W", "--sections", "--syms", str(path)], files=(path,)).splitlines():
        if re.match(r"\s*\[\s*\d+\]", line):
            number, rest = line.split("]", 1)
            fields = rest.split()
            if len(fields) == 10 and "X" in fields[6]:
                executable.add(number.strip(" ["))
        else:
            m = _READELF.match(line)
            if m and m.group(1) in ("OBJECT", "TLS") and m.group(3) in executable:
                found.append(m.group(4))
    return found


# ---- names -----------------------------------------------------------------------------------------------------------

# Prefixes of the names the demangler gives special symbols, kept in the qualified name.
_SPECIAL = tuple(
    f"{words} "
    for words in "typeinfo name for|typeinfo for|vtable for|VTT for|construction vtable for|guard variable for|"
    "TLS init function for|TLS wrapper function for|virtual thunk to|non-virtual thunk to|covariant return thunk to|"
    "reference temporary #0 for".split("|")
)
_OPERATORS = sorted(
    "() [] <=> <<= >>= << >> -> ->* <= >= == != && || ++ -- += -= *= /= %= &= |= ^= "
    "+ - * / % ^ & | ~ ! = < > ,".split(),
    key=len,
    reverse=True,
)


def _operator(text: str, i: int) -> int:
    """The end of an operator name that starts at text[i] ('operator...'), or i when there is none."""
    j = i + len("operator")
    if not text.startswith("operator", i) or (j < len(text) and (text[j].isalnum() or text[j] == "_")):
        return i
    for word in (" new[]", " delete[]", " new", " delete", '"" '):
        if text.startswith(word, j):
            return j + len(word)
    for op in _OPERATORS:
        if text.startswith(op, j):
            return j + len(op)
    k = j  # conversion operator: 'operator int', 'operator float const*' (up to the parameter list)
    while k < len(text) and text[k] != "(":
        k += 1
    return k


@functools.lru_cache(maxsize=None)
def qualified_name(demangled: str) -> str:
    """The demangled name without its parameter list, return type and clone suffix: 'std::__throw_bad_alloc()' ->
    'std::__throw_bad_alloc', 'void f<int>(int)' -> 'f<int>', 'typeinfo for std::exception' unchanged."""
    text = re.sub(r" \[clone [^\]]*\]", "", demangled).replace("(anonymous namespace)", "{anonymous}")
    prefix = ""
    for special in _SPECIAL:
        if text.startswith(special):
            prefix, text = special, text[len(special) :]
            break
    depth, start, i, end = 0, 0, 0, len(text)
    while i < len(text):
        k = _operator(text, i) if (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else i
        if k > i:
            i = k
            continue
        c = text[i]
        if c in "<({[":
            if c == "(" and depth == 0 and text[start:i].strip():
                end = i  # the parameter list ('(' right after a return type, as in 'decltype (...)', is not)
                break
            depth += 1
        elif c in ">)}]":
            depth = max(0, depth - 1)
        elif c == " " and depth == 0 and not text.startswith(" <", i) and not text.startswith(" [abi:", i):
            start = i + 1  # what came before was a return type
        i += 1
    return prefix + text[start:end].strip()


def matches(patterns: tuple[str, ...], name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


# ---- where the objects are -------------------------------------------------------------------------------------------


def link_inputs(tree: Path, executable: Path) -> list[Path]:
    """Every file the build graph links into `executable` (explicit and implicit inputs of its link step)."""
    cache = tree / "CMakeCache.txt"
    m = re.search(
        r"^CMAKE_MAKE_PROGRAM:[A-Z]+=(.*)$", cache.read_text(errors="replace") if cache.is_file() else "", re.M
    )
    out = _run([m.group(1) if m else "ninja", "-C", str(tree), "-t", "query", str(executable.relative_to(tree))])
    inputs, section = [], ""
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            section = line.strip().split(":", 1)[0]
        elif line.startswith("    ") and section == "input":
            entry = line.strip()
            if entry.startswith("||"):
                continue  # order-only: built first, not linked
            name = entry.lstrip("| ").strip()
            path = Path(name) if name.startswith("/") else tree / name
            if path.suffix in (".o", ".a", ".obj") or ".so" in path.name:
                inputs.append(path)
    return inputs


def lab_programs(tree: Path, lab: Lab, modes: list[str]) -> list[ProgramInputs]:
    """The inputs of the lab's programs in `modes`, from <tree>/grader/targets/labNN.json and the build graph."""
    path = tree / "grader" / "targets" / f"lab{lab.number}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        exes, objects, baselines = data["workers"], data["objects"], data["baselines"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SymbolError(
            f"{path} does not list the objects of the lab's programs ({e}); configure the tree again"
        ) from e
    programs = []
    for mode in modes:
        if mode not in exes or not objects.get(mode):
            raise SymbolError(f"{path}: no {mode} program or objects")
        programs.append(program_inputs(tree, mode, Path(exes[mode]), objects[mode], baselines.get(mode, [])))
    return programs


def program_inputs(tree: Path, mode: str, exe: Path, objects: list[str], baselines: list[str]) -> ProgramInputs:
    student = tuple(Path(p).resolve() for p in objects)
    base = tuple(Path(p).resolve() for p in baselines)
    missing = [p for p in (exe, *student, *base) if not p.is_file()]
    if missing:
        raise SymbolError(f"not built: {', '.join(str(p) for p in missing[:3])}")
    others = tuple(
        p for p in dict.fromkeys(p.resolve() for p in link_inputs(tree, exe)) if p not in student and p not in base
    )
    if not others:
        raise SymbolError(f"the build graph of {tree} lists no link input of {exe.name}")
    return ProgramInputs(mode, exe, student, base, others)


# ---- the rules -------------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Violation:
    rule: str  # undefined, baseline, harness, defined, code or data
    symbol: str  # demangled
    file: str  # the lab file the object was compiled from

    def message(self) -> str:
        name = _readable(self.symbol)
        what = {
            "undefined": f"uses '{name}', which a lab file may not use",
            "baseline": f"calls '{name}', the grader's baseline for this lab",
            "harness": f"uses '{name}', which belongs to the grader's harness or runtime",
            "defined": f"defines '{name}', which the grader's harness, runtime or a library already has (yours "
            "would replace it)",
            "code": f"'{name}' contains a system call instruction",
            "data": f"'{name}' is data placed among the code",
        }[self.rule]
        return f"{self.file}: {what}"


def _readable(name: str) -> str:
    return name.replace(
        "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string"
    ).replace("std::__cxx11::", "std::")


def _source_name(obj: Path, lab: Lab) -> str:
    """The lab file an object was compiled from (objects are named <file stem>.cu.o / .cpp.o)."""
    stem = obj.name.split(".", 1)[0]
    return next((f for f in lab.files if f.split(".", 1)[0] == stem), lab.files[0])


def check_program(p: ProgramInputs, rules: SymbolRules, lab: Lab) -> list[Violation]:
    """Every violation of the symbol rules by the student's objects of one program."""
    student = {obj: read_symbols(obj) for obj in p.student}
    names = sorted({s.name for symbols in student.values() for s in symbols})
    pretty = demangle(names)
    own = {s.name for symbols in student.values() for s in symbols if s.global_definition}
    baseline_defs: set[str] = set()
    for obj in p.baselines:
        baseline_defs |= defined_and_used(obj)[0]
    other_defs: set[str] = set()
    other_uses: set[str] = set()
    harness: set[str] = set()  # defined by the objects and static libraries: harness, runtime, GoogleTest
    for path in p.others:
        shared = ".so" in path.name
        defs, uses = defined_and_used(path, dynamic=shared)
        other_defs |= defs
        other_uses |= uses
        harness |= set() if shared else defs
    exported = defined_and_used(p.executable, dynamic=True)[0]
    allowed = rules.allowed(p.mode)
    launchers = set(lab.launchers)
    found: list[Violation] = []
    for obj, symbols in student.items():
        file = _source_name(obj, lab)
        for s in symbols:
            demangled = pretty.get(s.name, s.name)
            name = qualified_name(demangled)
            if s.undefined:
                if s.name in own:
                    continue  # another file of the same submission defines it
                if s.name in baseline_defs:
                    found.append(Violation("baseline", demangled, file))
                elif not matches(allowed, name):
                    found.append(Violation("harness" if s.name in harness else "undefined", demangled, file))
            elif s.global_definition:
                if s.weak and matches(rules.shared_weak, name):
                    continue  # the same template or inline function from a header that both include
                if s.kind == "u" and matches(rules.shared_unique, name):
                    continue  # the same inline variable from a standard header
                used_elsewhere = s.name in other_uses and name not in launchers
                if s.name in other_defs or s.name in baseline_defs or s.name in exported or used_elsewhere:
                    found.append(Violation("defined", demangled, file))
        found += [Violation("code", f, file) for f in system_calls(obj)]
        data = data_in_code(obj)
        found += [Violation("data", name, file) for name in demangle(data).values()]
    return list(dict.fromkeys(found))


def check_lab(tree: Path, lab: Lab, modes: list[str], rules: SymbolRules) -> list[Violation]:
    """The symbol rules on every program of `lab` in `modes` (raises SymbolError when they cannot be checked)."""
    found: list[Violation] = []
    for program in lab_programs(tree, lab, modes):
        found += [v for v in check_program(program, rules, lab) if v not in found]
    return found


def report(violations: list[Violation], limit: int = 5) -> str:
    """The student's message: the first violations, then what to do."""
    shown = [v.message() for v in violations[:limit]]
    more = f" (and {len(violations) - limit} more)" if len(violations) > limit else ""
    return "; ".join(shown) + more + f". {ADVICE[0].upper()}{ADVICE[1:]}."


def check_build(tree: object, lab: Lab, modes: list[str], rules: SymbolRules) -> tuple[str, str] | None:
    """The verdict of the symbol rules on a built lab: ('forbidden', message), ('not-graded', why), or None when the
    objects keep to the rules. `tree` is the grading tree (build_tree.BuildTree: its `dir` is a CMake tree); only a test
    double of a tree, which has no CMake tree, is not checked."""
    where = getattr(tree, "dir", None)
    if not isinstance(tree, BuildTree) and not (where and (Path(where) / "CMakeCache.txt").is_file()):
        return None
    try:
        found = check_lab(Path(where), lab, modes, rules)
    except (SymbolError, OSError) as e:
        return "not-graded", f"the compiled lab file could not be checked ({e}); re-run the grader"
    return ("forbidden", report(found)) if found else None
