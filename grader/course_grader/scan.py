"""Anti-cheat checks on the student's source (before building) and on the built executable (after linking).

Source level: comments and string/character literals are removed (with C++ raw strings and line splices handled),
then every identifier and every #include is compared with the lists in grader/course.toml. Preprocessor tricks
that could assemble a forbidden name (token pasting '##', a computed '#include MACRO', digraph '%:') are rejected
too. Quoted includes may only name the lab's interface header (its manifest's `interface`, no path), so a submission
cannot pull in a reference solution or any other file by path.
Link level: the NEEDED entries of the executable (readelf -d, else ldd) must not name a forbidden library, and the
build tree must not compile anything from solutions/ into the lab's targets.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from .config import AntiCheat
from .manifest import Lab

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Identifier prefixes of the CUDA libraries (a student could declare a library function without its header).
LIBRARY_PREFIXES = ("cublas", "CUBLAS_", "cusparse", "CUSPARSE_", "cusolver", "CUSOLVER_", "curand", "CURAND_",
                    "cufft", "CUFFT_", "cudnn", "CUDNN_", "nvrtc", "NVRTC_", "npp", "nvjitlink")
# Namespaces of device-algorithm libraries: 'thrust::', 'cub::' ...
LIBRARY_NAMESPACES = ("thrust", "cub", "cute", "cutlass", "nvcuda")


def baseline_functions(labs: tuple[Lab, ...]) -> set[str]:
    """Names of the baselines the perf tests time against (each lab's manifest `baselines`, linked into the same
    program): calling one instead of writing the kernel would pass correctness, so they are forbidden in every lab
    file."""
    names: set[str] = set()
    for path in sorted({lab.dir / name for lab in labs for name in lab.baselines}):
        text = strip_code(path.read_text(errors="replace"))
        names.update(re.findall(r"^\s*(?:template\s*<[^>]*>\s*)?(?:__global__\s+)?void\s+([A-Za-z_]\w*)\s*\(",
                                text, re.M))
    return names


def strip_code(text: str) -> str:
    """Replaces comments and string/char literals by spaces (newlines kept), after joining spliced lines."""
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" ")
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]) or " ")
            i = j
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
                                                              or text[i - 1] in "uU8L"):
            m = re.match(r'R"([^ ()\\\t\n]{0,16})\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i + m.end())
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append('""' + re.sub(r"[^\n]", " ", text[i:end])[2:])
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * max(0, min(j, n) - i - 1) + c)
            i = min(j + 1, n)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _includes(text: str) -> list[tuple[int, str, str]]:
    """(line, delimiter, path) of every #include in the raw text (literals must be read before stripping)."""
    found = []
    for number, line in enumerate(text.replace("\\\n", "").splitlines(), 1):
        m = re.match(r"\s*#\s*include(?:_next)?\s*(.*)", line)
        if m:
            rest = m.group(1).strip()
            inc = re.match(r'(<)([^>]*)>|(")([^"]*)"', rest)
            if inc:
                found.append((number, inc.group(1) or inc.group(3), inc.group(2) if inc.group(1) else inc.group(4)))
            else:
                found.append((number, "", rest))
    return found


def scan_source(name: str, text: str, lab: Lab, rules: AntiCheat, baselines: set[str] = frozenset()) -> list[str]:
    """Problems found in one lab file, as 'file:line: message' (empty: accepted)."""
    allow = set(lab.allow)
    own = lab.interface
    problems: list[str] = []
    stripped = strip_code(text)
    code_lines = stripped.splitlines()

    for number, delim, path in _includes(text):
        where = f"{name}:{number}"
        if not delim:
            problems.append(f"{where}: '#include {path}' must name a file in <> or \"\"")
            continue
        if path in allow:
            continue
        if path.startswith("/") or ".." in path.split("/"):
            problems.append(f"{where}: '#include {delim}{path}' uses a path; only the lab's headers may be included")
            continue
        if delim == '"':
            if path != own:
                problems.append(f"{where}: '#include \"{path}\"': only the lab's interface header \"{own}\" may be "
                                f"included with quotes")
            continue
        for bad in rules.forbidden_includes:
            if path.startswith(bad) and bad not in allow:
                problems.append(f"{where}: '#include <{path}>' is not allowed in this course (write the kernel "
                                f"yourself)")
                break

    for number, line in enumerate(code_lines, 1):
        where = f"{name}:{number}"
        if "##" in line:
            problems.append(f"{where}: token pasting '##' is not allowed")
        if "%:" in line or "??=" in line:
            problems.append(f"{where}: digraphs and trigraphs are not allowed")
        if re.match(r"\s*#\s*include", line):
            continue  # checked above, by path
        for m in _IDENT.finditer(line):
            word = m.group(0)
            if word in allow:
                continue
            if word in rules.forbidden_identifiers:
                problems.append(f"{where}: '{word}' is not allowed in this course")
            elif word.startswith(LIBRARY_PREFIXES):
                problems.append(f"{where}: '{word}' belongs to a CUDA library; write the kernel yourself")
            elif word in LIBRARY_NAMESPACES and line[m.end():].lstrip().startswith("::"):
                problems.append(f"{where}: '{word}::' is a library namespace; write the kernel yourself")
            elif word in baselines:
                problems.append(f"{where}: '{word}' is the grader's baseline; write your own kernel")
            elif word in rules.forbidden_calls:
                before = line[: m.start()].rstrip()
                after = line[m.end():].lstrip()
                if after.startswith("(") and not before.endswith((".", "->")) and not re.search(r"\b(?:int|void|bool|auto|float|double|char|long)\s*$", before):
                    problems.append(f"{where}: calling '{word}()' is not allowed in this course")
    return problems


def needed_libraries(executable: Path) -> list[str]:
    """The shared libraries an executable depends on (NEEDED entries)."""
    if shutil.which("readelf"):
        out = subprocess.run(["readelf", "-d", str(executable)], capture_output=True, text=True, errors="replace",
                             timeout=60).stdout
        return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    out = subprocess.run(["ldd", str(executable)], capture_output=True, text=True, errors="replace", timeout=60).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def forbidden_links(libraries: list[str], rules: AntiCheat) -> list[str]:
    bad = []
    for lib in libraries:
        base = lib.rsplit("/", 1)[-1]
        if any(base.startswith(prefix) for prefix in rules.forbidden_libraries):
            bad.append(base)
    return bad


# Build statements that compile nothing: CMake's re-configure rule and the phony list of its inputs (the configure
# step reads the solutions to write the catalogue's mutants; that is not a build of them).
_NOT_COMPILING = {"phony", "RERUN_CMAKE"}


def _build_statements(ninja_text: str):
    """(rule, statement text) of every 'build outputs: rule inputs' statement of a build.ninja."""
    text = re.sub(r"(?<!\$)\$\n\s*", " ", ninja_text)  # '$' + newline continues a statement
    for line in text.splitlines():
        if line.startswith("build "):
            m = re.search(r"(?<!\$): (\S+)", line)
            if m:
                yield m.group(1), line


def solution_inputs(build_tree: Path, solutions_dir: Path) -> list[str]:
    """Files under solutions/ that the build tree compiles or includes (must be none in a grading tree)."""
    hits = []
    needle = str(solutions_dir.resolve()) + "/"
    ninja_file = build_tree / "build.ninja"
    if ninja_file.is_file():
        for rule, statement in _build_statements(ninja_file.read_text(errors="replace")):
            if rule not in _NOT_COMPILING and needle in statement:
                hits.append(f"build.ninja: a {rule} step reads {needle}")
                break
    if shutil.which("ninja"):
        out = subprocess.run(["ninja", "-C", str(build_tree), "-t", "deps"], capture_output=True, text=True,
                             errors="replace", timeout=120).stdout
        hits += sorted({line.strip() for line in out.splitlines() if needle in line})[:5]
    return hits
