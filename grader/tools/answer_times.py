#!/usr/bin/env python3
"""The longest waits for a launcher call's answer in one or more graded classes (their OUT/class.json), by kind of
run (check, cpu, gpu, sanitizer): the data behind the call deadlines in grader/course.toml [limits].

    python3 grader/tools/answer_times.py OUT [OUT ...] [--json FILE]

Labs stopped at a deadline are left out (their wait is the deadline). Prints one line per kind: the longest wait,
whose it was, and the deadline that course.toml sets for that kind of run.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))

from course_grader import answer_times, config, gpus, record  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outs", nargs="+", type=Path, help="output folders of grade.py (each holds class.json)")
    ap.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = ap.parse_args(argv)
    results = []
    for out in args.outs:
        try:
            results += record.load(out).results
        except record.RecordError as e:
            print(f"answer_times.py: {e}", file=sys.stderr)
            return 2
    table = answer_times.longest(results)
    if not table:
        print("answer_times.py: no launcher call was answered in these results (graded before the judges recorded it?)")
        return 1
    limits = config.load().limits
    for kind, row in table.items():
        print(
            f"{kind:<10} {row['seconds']:8.3f} s  ({row['student']}, lab {row['lab']}, {row['verdict']}); "
            f"deadline {limits.call_deadline(kind, gpus.SANITIZER_SLOWDOWN):g} s"
        )
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
