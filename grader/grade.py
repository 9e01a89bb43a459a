#!/usr/bin/env python3
"""Instructor batch grader of the course.

    python3 grader/grade.py SUBMISSIONS_DIR --out OUT_DIR [--jobs N] [--labs 01,03] [--backend auto|cpu|gpu]

With no SUBMISSIONS_DIR, or with a samples spec instead (grader/samples/samples.toml), it generates the bundled
sample submissions from the course's own sources into OUT_DIR/.samples, grades them (OUT_DIR: build/grades by
default) and checks the expected verdicts the spec states. Documentation: docs/grader.md.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from course_grader.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
