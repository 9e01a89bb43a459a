"""Anti-cheat checks on the student's source (before building) and on the built executable (after linking).

The rule on what a lab file may call or define is symbol-level, on the compiled objects (symbols.py). This source scan
only rejects the clear cases early, with a friendlier message, and must never reject honest code: an include of a
CUDA library or of the device-algorithm libraries (whose device code no symbol table shows: Thrust, CUB, CUTLASS),
their identifiers and namespaces, and includes that could pull in another file (only the lab's interface header may
be included with quotes, no path, no computed '#include MACRO'). Comments and string/character literals are removed
first (with C++ raw strings and line splices handled); digraphs ('%:include') and '#import' count as includes.
Link level: the NEEDED entries of the executable (readelf -d, else ldd) must not name a forbidden library, and the
build tree must not compile anything from solutions/ into the lab's targets.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from . import sandbox
from .config import AntiCheat
from .manifest import Lab

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Identifiers of the CUDA libraries' APIs (a student could declare a library function without its header; the symbol
# rules reject the call too, this names the library): the prefix, then a capital, digit or '_' (cublasSgemm,
# CURAND_STATUS_SUCCESS, curand_init, nppiAdd_32f_C1R, Npp32f), so that a variable named 'npp' or 'curandom' passes.
_LIBRARY_IDENT = re.compile(
    r"(?:cublas|cusparse|cusolver|curand|cufft|cudnn|nvrtc|nvJitLink|nvjitlink)[A-Z0-9_]"
    r"|(?:CUBLAS|CUSPARSE|CUSOLVER|CURAND|CUFFT|CUDNN|NVRTC)_|npp[isc]?[A-Z]|Npp[0-9A-Z]"
)
# Namespaces of device-algorithm libraries: 'thrust::', 'cub::' ...
LIBRARY_NAMESPACES = ("thrust", "cub", "cute", "cutlass", "nvcuda")


def strip_code(text: str, comments_only: bool = False) -> str:
    """Replaces comments and string/char literals by spaces (newlines kept), after joining spliced lines;
    comments_only: the literals stay (an include's path is a string literal)."""
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
        elif (
            c == "R"
            and text.startswith('R"', i)
            and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_") or text[i - 1] in "uU8L")
        ):
            m = re.match(r'R"([^ ()\\\t\n]{0,16})\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i + m.end())
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(text[i:end] if comments_only else '""' + re.sub(r"[^\n]", " ", text[i:end])[2:])
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
            out.append(text[i : min(j + 1, n)] if comments_only else c + " " * max(0, min(j, n) - i - 1) + c)
            i = min(j + 1, n)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _includes(text: str) -> list[tuple[int, str, str]]:
    """(line, delimiter, path) of every #include (also #include_next, #import and the digraph %:), read with the
    comments removed ('#/**/include' is an include) and the literals kept (a quoted path is one)."""
    found = []
    for number, line in enumerate(strip_code(text, comments_only=True).splitlines(), 1):
        m = re.match(r"\s*(?:#|%:)\s*(?:include(?:_next)?|import)\b\s*(.*)", line)
        if m:
            rest = m.group(1).strip()
            inc = re.match(r'(<)([^>]*)>|(")([^"]*)"', rest)
            if inc:
                found.append((number, inc.group(1) or inc.group(3), inc.group(2) if inc.group(1) else inc.group(4)))
            else:
                found.append((number, "", rest))
    return found


def line_directives(text: str) -> list[int]:
    """The lines of `text` that hold a line directive (counted with line splices joined): '#line N "file"', the GNU
    form '# N "file"', either through the digraph %: or across a line splice. Such a directive makes the compiler
    place the errors after it in any file it names, so an error in a file with one proves nothing about where it came
    from (diagnostics.backend_gap). A directive cannot come out of a macro, so reading the text finds them all."""
    found = []
    for number, line in enumerate(strip_code(text).splitlines(), 1):
        if re.match(r"\s*(?:#|%:)\s*(?:line\b|[0-9])", line):
            found.append(number)
    return found


def scan_source(name: str, text: str, lab: Lab, rules: AntiCheat) -> list[str]:
    """Clear cases found in one lab file, as 'file:line: message' (empty: on to the build and the symbol rules)."""
    allow = set(lab.allow)
    own = lab.interface
    problems: list[str] = []

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
                problems.append(
                    f'{where}: \'#include "{path}"\': only the lab\'s interface header "{own}" may be '
                    f"included with quotes"
                )
            continue
        for bad in rules.forbidden_includes:
            if path.startswith(bad) and bad not in allow:
                problems.append(
                    f"{where}: '#include <{path}>' is a library this course does not allow (write the "
                    f"kernel yourself)"
                )
                break

    for number, line in enumerate(strip_code(text).splitlines(), 1):
        if re.match(r"\s*(?:#|%:)\s*(?:include|import)", line):
            continue  # checked above, by path
        for m in _IDENT.finditer(line):
            word = m.group(0)
            if word in allow:
                continue
            if _LIBRARY_IDENT.match(word):
                problems.append(f"{name}:{number}: '{word}' belongs to a CUDA library; write the kernel yourself")
            elif word in LIBRARY_NAMESPACES and line[m.end() :].lstrip().startswith("::"):
                problems.append(f"{name}:{number}: '{word}::' is a library namespace; write the kernel yourself")
    return problems


def needed_libraries(executable: Path) -> list[str]:
    """The shared libraries an executable depends on (its NEEDED entries, read by readelf in the sandbox; never by
    ldd, which may run the program)."""
    executable = executable.resolve()
    out = sandbox.inspect(["readelf", "-d", str(executable)], (executable,), timeout=60).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


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
        out = subprocess.run(
            ["ninja", "-C", str(build_tree), "-t", "deps"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=120,
        ).stdout
        hits += sorted({line.strip() for line in out.splitlines() if needle in line})[:5]
    return hits
