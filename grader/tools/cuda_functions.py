#!/usr/bin/env python3
"""Writes the names of the functions a CUDA toolkit declares for kernels and their launchers, one per line: the list the
grader reads (grader/course_grader/cuda_functions.txt) to tell a CUDA function the CPU backend lacks (`'__vadd4' was
not declared` in a build against the backend: a gap of the backend, so `not-graded`) from a name nobody declares (a
typo, a helper the student did not write: the student's `build-error`).

Read: the device function, intrinsic, atomic and math headers (crt/, sm_*_intrinsics.h, *_atomic_functions.h, ...)
and the runtime API (cuda_runtime_api.h, cuda_runtime.h). A name is the identifier before the first '(' of a line
that declares a function (it names one of the headers' declaration macros, or `extern`, `static` or `inline`); not
the toolkit's internals (names that start with __nv, __cuda, __internal, __builtin, a capital letter, or _ or __
and a capital letter).

  python3 grader/tools/cuda_functions.py /usr/local/cuda/include > grader/course_grader/cuda_functions.txt
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from cuda_headers import write_list

HEADERS = (
    "crt/device_functions.h",
    "crt/device_double_functions.h",
    "crt/math_functions.h",
    "crt/common_functions.h",
    "crt/sm_70_rt.h",
    "crt/sm_80_rt.h",
    "crt/sm_90_rt.h",
    "device_atomic_functions.h",
    "sm_20_atomic_functions.h",
    "sm_20_intrinsics.h",
    "sm_30_intrinsics.h",
    "sm_32_atomic_functions.h",
    "sm_32_intrinsics.h",
    "sm_35_atomic_functions.h",
    "sm_35_intrinsics.h",
    "sm_60_atomic_functions.h",
    "sm_61_intrinsics.h",
    "vector_functions.h",
    "cuda_runtime_api.h",
    "cuda_runtime.h",
)

# A declaration line: a declaration macro of the headers (__DEVICE_FUNCTIONS_DECL__, __SM_32_INTRINSICS_DECL__,
# _CRTIMP, __host__, ...) or a storage class first.
_DECLARES = re.compile(
    r"^\s*(?:extern|static|inline|template\b.*>|_CRTIMP|__[A-Z0-9_]*DECL[A-Z0-9_]*__|__host__|"
    r"__device__|__forceinline__|__CUDA_[A-Z_]+__|__VECTOR_FUNCTIONS_DECL__)\b"
)
_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")
_INTERNAL = re.compile(
    r"^(?:__nv|__cuda|__internal|__builtin|__attribute|__declspec|__host|__device|__global|"
    r"__forceinline|__noinline|__inline|__launch_bounds|__align|_[A-Z]|__[A-Z]|[A-Z])"
)
_KEYWORDS = {
    "if",
    "for",
    "while",
    "return",
    "sizeof",
    "decltype",
    "operator",
    "defined",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "alignof",
    "noexcept",
    "throw",
    "switch",
    "extern",
    "static",
    "inline",
}


def declared_functions(include: Path) -> list[str]:
    names: set[str] = set()
    for rel in HEADERS:
        path = include / rel
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            if not _DECLARES.match(line) or "#" in line.split("(", 1)[0]:
                continue
            head = line.split("(", 1)[0] + "("
            m = _NAME.findall(head)
            if not m:
                continue
            name = m[-1]
            if name in _KEYWORDS or _INTERNAL.match(name):
                continue
            names.add(name)
    return sorted(names)


def main() -> int:
    return write_list("cuda_functions.py", "The functions of {} for kernels and their launchers", declared_functions)


if __name__ == "__main__":
    sys.exit(main())
