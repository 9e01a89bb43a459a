#!/usr/bin/env python3
"""How long the labs' CPU-backend tests take, from the output of a ctest run (the self-test, e.g. CI's
`cmake --workflow --preset selftest`): the figures of issue 12's speed goals, recorded in
grader/calibration/runs/ and quoted in docs/cpu-backend.md.

  python3 grader/tools/cpu_suite_times.py CTEST_LOG [--json OUT] [--machine TEXT]

For each lab NN it sums the reference solution's tests in fast mode (solutionNN.cpu.*) and in check mode
(solutionNN.check.*), one process per test as ctest runs them, and takes the time of each correct variant and
catalogue entry (course.NN_name.variant.X, course.NN_name.catalogue.X: the lab's whole check-mode suite in one
process). Check against fast mode is compared on the tests both modes run under the same name (the same sizes).
Prints a table; --json writes the numbers. Exit status 0, or 1 when the log has no lab test or a goal is missed:
a lab's suite over 60 s, a test over 30 s, check mode over 3 times fast mode.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"Test +#\d+: (?P<name>\S.*?) \.{2,}.*?(?P<secs>\d+\.\d+) sec\s*$")
SOLUTION = re.compile(r"^solution(?P<lab>\d\d)\.(?P<mode>cpu|check)\.(?P<test>.+)$")
ENTRY = re.compile(r"^course\.(?P<lab>\d\d)_[a-z0-9_]+\.(?P<kind>variant|catalogue)\.(?P<name>[A-Za-z0-9_]+)$")
SUITE_GOAL, TEST_GOAL, RATIO_GOAL = 60.0, 30.0, 3.0


def parse(text: str) -> dict[str, float]:
    """{test name: seconds} of every test ctest reported (passed, failed or skipped)."""
    times = {}
    for line in text.splitlines():
        m = LINE.search(line)
        if m:
            times[m["name"]] = float(m["secs"])
    return times


def labs(times: dict[str, float]) -> dict[str, dict]:
    out: dict[str, dict] = {}

    def lab(number):
        return out.setdefault(number, {"fast": {}, "check": {}, "variant": {}, "catalogue": {}})

    for name, secs in times.items():
        m = SOLUTION.match(name)
        if m:
            lab(m["lab"])["fast" if m["mode"] == "cpu" else "check"][m["test"]] = secs
            continue
        m = ENTRY.match(name)
        if m:
            lab(m["lab"])[m["kind"]][m["name"]] = secs
    result = {}
    for number, t in sorted(out.items()):
        common = sorted(set(t["fast"]) & set(t["check"]))
        fast_common = sum(t["fast"][n] for n in common)
        check_common = sum(t["check"][n] for n in common)
        entries = {
            **{f"variant {k}": v for k, v in t["variant"].items()},
            **{f"catalogue {k}": v for k, v in t["catalogue"].items()},
        }
        every = list(t["fast"].values()) + list(t["check"].values()) + list(entries.values())
        result[number] = {
            "reference_fast_seconds": round(sum(t["fast"].values()), 2),
            "reference_fast_tests": len(t["fast"]),
            "reference_check_seconds": round(sum(t["check"].values()), 2),
            "reference_check_tests": len(t["check"]),
            "reference_suite_seconds": round(sum(t["fast"].values()) + sum(t["check"].values()), 2),
            "same_tests": len(common),
            "check_over_fast_same_tests": round(check_common / fast_common, 2) if fast_common else None,
            "entries": entries,
            "slowest_entry_seconds": max(entries.values(), default=0.0),
            "slowest_test_seconds": max(every, default=0.0),
        }
    return result


def missed(result: dict[str, dict]) -> list[str]:
    problems = []
    for number, r in result.items():
        for what, secs in [("the reference's CPU suite", r["reference_suite_seconds"])] + [
            (entry, secs) for entry, secs in r["entries"].items()
        ]:
            if secs > SUITE_GOAL:
                problems.append(f"lab {number}: {what} took {secs:.1f} s (goal: {SUITE_GOAL:.0f} s)")
        if r["slowest_test_seconds"] > TEST_GOAL:
            problems.append(f"lab {number}: a test took {r['slowest_test_seconds']:.1f} s (goal: {TEST_GOAL:.0f} s)")
        ratio = r["check_over_fast_same_tests"]
        if ratio is not None and ratio > RATIO_GOAL:
            problems.append(f"lab {number}: check mode took {ratio:.2f} times fast mode (goal: {RATIO_GOAL:.0f})")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the output of a ctest run")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument("--machine", default="", help="where the run was made, for the record")
    args = parser.parse_args(argv)
    try:
        text = args.log.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        print(f"cpu_suite_times: cannot read {args.log}: {e.strerror}", file=sys.stderr)
        return 1
    result = labs(parse(text))
    if not result:
        print(f"cpu_suite_times: {args.log} has no lab test (solutionNN.cpu.*, course.NN_name.*)", file=sys.stderr)
        return 1
    print(
        "| lab | reference: fast (tests) | check (tests) | check / fast, same tests | slowest variant or entry |"
        " slowest test |"
    )
    print("|---|---|---|---|---|---|")
    for number, r in result.items():
        ratio = r["check_over_fast_same_tests"]
        print(
            f"| {number} | {r['reference_fast_seconds']:.1f} s ({r['reference_fast_tests']}) |"
            f" {r['reference_check_seconds']:.1f} s ({r['reference_check_tests']}) |"
            f" {'-' if ratio is None else f'{ratio:.2f}'} ({r['same_tests']}) | {r['slowest_entry_seconds']:.2f} s |"
            f" {r['slowest_test_seconds']:.2f} s |"
        )
    problems = missed(result)
    for p in problems:
        print(f"cpu_suite_times: goal missed: {p}")
    if args.json:
        record = {
            "machine": args.machine,
            "log": str(args.log),
            "goals": {"suite_seconds": SUITE_GOAL, "test_seconds": TEST_GOAL, "check_over_fast": RATIO_GOAL},
            "labs": result,
        }
        args.json.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
