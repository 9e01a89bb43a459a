#!/usr/bin/env python3
"""Measure the course's figures: run the bench programs over the sweeps that the labs' [[bench]] tables declare, and
merge their records into one JSON per figure, in the schema docs/figures/make_figures.py draws (merge.py).

  python3 grader/bench/run_bench.py --build BUILD --out DIR [--figure NAME]...

BUILD is a CMake build tree with the bench programs built: `cmake --build BUILD --target course_bench` (on a GPU
machine), or course_bench_cpu with --backend cpu (the CPU backend: the code path, not the speed). The programs are
listed in BUILD/grader/bench/programs.json. Writes DIR/<figure>.json for each figure made (copy them to docs/data/),
and under --work (default BUILD/grader/bench/work) the records and the log of every run. Each figure's table is
printed. Runs one program at a time (they time the GPU). Exit status: 0; 1 when a run or a figure failed (the other
figures are still written); 2 for a bad command line, manifest or plan, or a program that is not built.

A quick run (the smoke test, a check of a change): --subject LAB:SUBJECT keeps only those series, --values V,V,...
replaces every table's values, --size KEY=V adds a fixed size, --runs N and --warmup N change the timing; --plan
prints the runs and exits. --ncu off skips the Nsight Compute counts (figures.toml, ncu_size).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import merge
import ncu
import sweeps
from sweeps import ROOT, manifest


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, required=True, help="a CMake build tree with the bench programs")
    parser.add_argument("--out", type=Path, required=True, help="folder for the figures' JSON (docs/data layout)")
    parser.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--work", type=Path, help="folder for each run's records and log")
    parser.add_argument("--figure", action="append", default=[], help="only this figure (repeatable)")
    parser.add_argument("--subject", action="append", default=[], help="only this LAB:SUBJECT, e.g. 01:solution")
    parser.add_argument("--values", help="V,V,...: every table's values")
    parser.add_argument("--size", action="append", default=[], help="KEY=V: a fixed size for every table")
    parser.add_argument("--runs", type=int, help="timed runs per launcher (default: the graded 25)")
    parser.add_argument("--warmup", type=int, help="warm-up runs per launcher (default: the graded 3)")
    parser.add_argument("--ncu", choices=("auto", "off"), default="auto", help="Nsight Compute counts (GPU only)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take")
    parser.add_argument("--plan", action="store_true", help="print the runs and exit")
    args = parser.parse_args(argv)
    try:
        args.values = tuple(int(v) for v in args.values.split(",")) if args.values else ()
        args.size = {k: int(v) for k, v in (item.split("=", 1) for item in args.size)}
    except ValueError:
        parser.error("--values takes V,V,... and --size KEY=V, with integer values")
    return args


def table_text(data: dict) -> str:
    """One row per x, one column per series (its value in the figure's metric)."""
    lines = [f"{data['figure']}: {data['title']}, {data['gpu']} ({data['metric']})"]
    lines += [f"  [{i + 1}] {s['name']} ({s['source']})" for i, s in enumerate(data["series"])]
    lines.append(f"{'x':>14}" + "".join(f"{'[' + str(i + 1) + ']':>11}" for i in range(len(data["series"]))))
    values = [{p["x"]: p["value"] for p in s["points"]} for s in data["series"]]
    for x in sorted({x for v in values for x in v}):
        lines.append(f"{x:>14g}" + "".join(f"{v[x]:>11.1f}" if x in v else f"{'':>11}" for v in values))
    return "\n".join(lines)


def run_all(runs: dict, programs: dict, args: argparse.Namespace, work: Path) -> tuple[dict, list[str]]:
    """Runs every sweep, one program at a time: (RunKey -> its records, failures)."""
    timing = [
        *(["--runs", str(args.runs)] if args.runs else []),
        *(["--warmup", str(args.warmup)] if args.warmup is not None else []),
    ]
    results, failures = {}, []
    for i, (key, values) in enumerate(runs.items()):
        program = programs[key.lab][key.subject]
        records, log = work / "records" / f"{key.label()}.json", work / "logs" / f"{key.label()}.log"
        records.unlink(missing_ok=True)
        cmd = [program, *key.arguments(values), *timing, "--out", str(records)]
        start = time.monotonic()
        with open(log, "w", encoding="utf-8") as out:
            out.write(" ".join(cmd) + "\n\n")
            out.flush()
            try:
                rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = f"timeout after {args.timeout:.0f} s"
        verdict = "ok" if rc == 0 else f"FAILED ({rc}; {log})"
        print(
            f"[{i + 1}/{len(runs)}] lab {key.lab} {key.subject:<16} {key.case} {','.join(key.vary)} = "
            f"{','.join(map(str, values))}: {time.monotonic() - start:.1f} s, {verdict}",
            flush=True,
        )
        if records.is_file():
            results[key] = json.loads(records.read_text(encoding="utf-8"))
        if rc != 0:
            last = (log.read_text(encoding="utf-8", errors="replace").strip().splitlines() or [""])[-1]
            failures.append(f"{key.label()}: exit status {rc} ({last}); its log: {log}")
        if rc == 2:  # a bad command line or no GPU to time on: every other run would fail the same way
            failures.append(f"stopped after {key.label()}: exit status 2")
            break
    return results, failures


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        figures, runs = sweeps.plan(
            manifest.load_labs(ROOT),
            figures=tuple(args.figure),
            subjects=tuple(args.subject),
            values=args.values,
            size=args.size,
        )
    except (manifest.ManifestError, sweeps.PlanError) as e:
        print(f"run_bench: {e}", file=sys.stderr)
        return 2
    index = args.build / "grader" / "bench" / "programs.json"
    programs = json.loads(index.read_text(encoding="utf-8")).get(args.backend, {}) if index.is_file() else {}
    target = "course_bench" if args.backend == "gpu" else "course_bench_cpu"
    for key, values in runs.items():
        program = programs.get(key.lab, {}).get(key.subject)
        if args.plan:
            print(f"{program or '?'} {' '.join(key.arguments(values))}")
        elif program is None or not Path(program).is_file():
            print(
                f"run_bench: the {args.backend} bench program of lab {key.lab} {key.subject} is not built "
                f"({program or index}): cmake --build {args.build} --target {target}",
                file=sys.stderr,
            )
            return 2
    if args.plan:
        return 0

    work = args.work or args.build / "grader" / "bench" / "work"
    for folder in (args.out, work / "records", work / "logs"):
        folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results, failures = run_all(runs, programs, args, work)
    for figure in figures:
        try:
            data = merge.merge(figure, results)
        except merge.MergeError as e:
            failures.append(f"{figure.name}: not written: {e}")
            print(f"\n{figure.name}: NOT WRITTEN: {e}", flush=True)
            continue
        counted = ""
        if figure.ncu_size and args.backend == "gpu" and args.ncu == "auto":
            counted = ncu.add_counts(data, figure, programs, work / "logs")
        path = args.out / f"{figure.name}.json"
        path.write_text(merge.dumps(data), encoding="utf-8")
        print(f"\n{table_text(data)}\n{counted + chr(10) if counted else ''}wrote {path}", flush=True)
    print(
        f"\nrun_bench: {len(runs)} runs, {len(figures)} figures in {time.monotonic() - started:.0f} s; "
        f"failed: {len(failures)}"
    )
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
