"""Readable messages from untrusted text: compiler output, GoogleTest failure messages, a crashed program's output.
Everything here only shapes what a student reads; no verdict or score ever depends on it."""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from .gtest import TestCase


# Where a student reads the grader's folders: the worker's student folder stands for the course's labs/ (the staged
# file is labs/NN_name/<file> in the student's own copy of the course); the others are dropped.
STUDENT_FOLDER_AS = "labs/"


def shorten(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut at the last space before the limit, with '…' in place of the rest
    (a word is never cut unless it alone is longer than half the limit)."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" \n|;,:") + "…"


def relative_paths(text: str, roots: dict[Path, str]) -> str:
    """`text` with each folder of `roots` (as given and resolved) followed by '/' replaced by what it maps to: the
    grader's absolute paths become paths relative to the course repository ('grader/labs/01_matadd/test.cpp:70',
    'labs/01_matadd/matadd.cu:12'). The longest folder first, so that a folder inside another maps by its own rule."""
    prefixes: dict[str, str] = {}
    for root, replacement in roots.items():
        for form in (str(root), str(Path(root).resolve())):
            prefixes.setdefault(form.rstrip("/") + "/", replacement)
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = text.replace(prefix, prefixes[prefix])
    return text


def unique_lines(lines: list[str]) -> list[str]:
    """`lines` without repeats, in their order (the same compiler error from two programs' builds is shown once)."""
    return list(dict.fromkeys(lines))


def compiler_messages(text: str, student_dir: Path) -> str:
    """The compiler's error lines, each once, with the student's folder shown as the course's labs/ so that they read
    'labs/01_matadd/matadd.cu:12: error: ...'; and the linker's lines that name a symbol (an undefined reference, a
    multiple definition), which carry no 'error'."""
    text = relative_paths(text, {student_dir: STUDENT_FOLDER_AS})
    lines = [
        line
        for line in text.splitlines()
        if (re.search(r"\b(error|Error)\b", line) or re.search(r"undefined reference to|multiple definition of", line))
        and "ninja: build stopped" not in line
    ]
    lines = [line for line in lines if not line.startswith(("FAILED:", "ninja:"))] or lines
    return shorten("\n".join(unique_lines(lines)[:8]), 1500)


# The CPU backend's headers refuse a CUDA feature they do not provide with a compile error that holds this marker
# (common/cpu/include/course_cpu/unsupported.h): a static_assert of one of their templates, or an #error of a header
# the backend lacks. The text after it says what is not supported.
GAP_MARKER = "course-cpu-unsupported: "
_ERROR_LINE = re.compile(r"^(?P<file>[^\s:][^:]*):\d+:(?:\d+:)? (?:fatal )?error: (?P<text>.*)$")


def backend_gap(text: str, headers: Path) -> str:
    """What the CPU backend does not support, from a build's compiler output: the text after the marker in the
    first error the compiler places in a file under `headers` (the backend's include folder), e.g.
    "cooperative_groups::grid_group::sync() (a grid-wide barrier ...)"; '' if there is none. The marker in an error
    of any other file (a student's own #error) does not count: only the backend's headers speak for the backend."""
    roots = {str(headers).rstrip("/") + "/", str(Path(headers).resolve()).rstrip("/") + "/"}
    for line in text.splitlines():
        m = _ERROR_LINE.match(line.strip())
        if not m or GAP_MARKER not in m.group("text"):
            continue
        if not any(os.path.normpath(m.group("file")).startswith(root) for root in roots):
            continue
        return m.group("text").split(GAP_MARKER, 1)[1].strip().rstrip('"').strip()
    return ""


# The compiler's own report of an #include it cannot find (g++, then clang), at the start of an error line: an #error
# prints "error: #error ...", never this.
_MISSING_HEADER = re.compile(
    r"^[^\s:][^:]*:\d+:(?:\d+:)? fatal error: (?:'(?P<clang>[^']+)' file not found|(?P<gcc>[^:\s]+): No such file or "
    r"directory)$"
)


@functools.cache
def cuda_headers() -> frozenset[str]:
    """The public headers of the CUDA toolkit (cuda_headers.txt, made by grader/tools/cuda_headers.py)."""
    text = (Path(__file__).with_name("cuda_headers.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def missing_cuda_header(text: str) -> str:
    """A CUDA toolkit header that the CPU backend does not provide, from a build's compiler output: "<cuda/ptx>" when
    the compiler could not find an #include of a name in the toolkit's list (nvcc would have found it: the backend's
    gap, so not-graded); '' for any other missing file (a typo, a file not submitted: the student's build-error)."""
    for line in text.splitlines():
        m = _MISSING_HEADER.match(line.rstrip())  # not lstrip: the source lines the compiler quotes are indented
        if m:
            name = m.group("clang") or m.group("gcc")
            if name in cuda_headers():
                return f"the header <{name}>"
    return ""


# The compiler's own report of a name used but declared nowhere (g++: in a function, then in a template; clang), at the
# start of an error line, in ASCII or (g++ in a UTF-8 locale) typographic quotes: an #error prints "error: #error
# ...", never this.
_QUOTED = r"['\u2018](?P<{}>[A-Za-z_]\w*)['\u2019]"
_UNDECLARED = re.compile(
    r"^[^\s:][^:]*:\d+:(?:\d+:)? error: (?:"
    + _QUOTED.format("gcc")
    + " was not declared in this scope|there are no arguments to "
    + _QUOTED.format("template")
    + " that depend on a template parameter|use of undeclared identifier "
    + _QUOTED.format("clang")
    + ")"
)


@functools.cache
def cuda_functions() -> frozenset[str]:
    """The functions a CUDA toolkit declares for kernels and launchers (cuda_functions.txt, made by
    grader/tools/cuda_functions.py)."""
    text = (Path(__file__).with_name("cuda_functions.txt")).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def missing_cuda_function(text: str) -> str:
    """A CUDA function that the CPU backend does not provide, from a build's compiler output: "__vadd4()" when the
    compiler found no declaration of a name in the toolkit's list (nvcc declares it: the backend's gap, so
    not-graded); '' for any other undeclared name (a typo, a helper not written: the student's build-error)."""
    for line in text.splitlines():
        m = _UNDECLARED.match(line.rstrip())  # not lstrip: the source lines the compiler quotes are indented
        if m:
            name = m.group("gcc") or m.group("template") or m.group("clang")
            if name in cuda_functions():
                return f"{name}() (a CUDA function it does not provide)"
    return ""


# The finding of the CPU backend's check mode for a use of a feature it does not support at run time
# (common/cpu/src/cuda_barrier.cpp: a block pipeline of part of the block), as the harness writes it into a failed
# test's message.
_RUNTIME_GAP = re.compile(r"\[unsupported\] \S+:\d+: (the CPU backend does not support [^;\n]*)")


def runtime_gap(failed: list[TestCase]) -> str:
    """What the CPU backend could not run, when every failed test met such a use (its finding `unsupported`): the
    first finding's sentence, e.g. "the CPU backend does not support this use of the cuda::pipeline at line 12 (...)";
    '' when some test failed for another reason (a wrong result with no such finding is the student's)."""
    found = []
    for case in failed:
        m = next((m for text in case.failures if (m := _RUNTIME_GAP.search(text))), None)
        if m is None:
            return ""
        found.append(m.group(1).strip())
    return found[0] if found else ""


def findings(failed: list[TestCase]) -> str:
    """The CPU backend's diagnoses ('[race] tiled_gemm.cu:28: ...') over all failed tests: 'race at
    tiled_gemm.cu:28, ...' (from the JSON report's failure messages, which the harness writes)."""
    seen: dict[str, None] = {}
    for case in failed:
        for text in case.failures:
            for category, where in re.findall(r"\[([a-z][a-z-]*)\] (?:\S*/)?([^\s/:]+:\d+):", text):
                seen.setdefault(f"{category} at {where}")
    return ", ".join(list(seen)[:6])


def first_lines(text: str, n: int = 3, limit: int = 500) -> str:
    return shorten(" | ".join(line.strip() for line in text.strip().splitlines()[:n]), limit)


def first_failure(case: TestCase) -> str:
    return first_lines(case.failures[0]) if case.failures else ""


def program_output(output_tail: str) -> str:
    """The CPU backend's or CUDA's own diagnosis lines from a crashed program's output."""
    keep = [
        line.strip()
        for line in output_tail.splitlines()
        if line.startswith("[course-cpu]") or "cudaError" in line or "illegal" in line.lower()
    ]
    return shorten("program output: " + " ".join(unique_lines(keep)[:3]), 600) if keep else ""
