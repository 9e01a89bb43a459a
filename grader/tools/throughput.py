#!/usr/bin/env python3
"""How many submissions per hour the grader grades on this machine, for a class that behaves like a real one.

Generates a class of --students six-lab submissions from grader/tools/class_mix.toml (the course's own sources,
through course_grader/samples.py): each student x lab gets one behaviour (correct, slow, wrong, crashing, hanging,
not_compiling) in the proportions of --mix, spread over the class by a seeded shuffle. Grades it with the real grader
(grade.py, any backend) after a warm-up run that configures the build trees, checks every verdict against the spec,
and writes a JSON record: the machine (CPU model, cores, memory, GPU model), the load while it ran (other users'
work counts: the 2-core CI machines are shared), the backend and workers, the class and its mix, the wall time,
submissions per hour (per GPU-hour on a GPU), the seconds per hang and per behaviour, how busy each GPU was
(<work>/timeline.json, pipeline.py) and the ratios measured on a GPU (to compare the timing of two runs).

    python3 grader/tools/throughput.py --students 8 [--jobs N] [--backend cpu] [--label jobs1]
    python3 grader/tools/throughput.py --students 30 --mix correct=60,slow=15,wrong=10,crashing=5,hanging=5
    python3 grader/tools/throughput.py --each --backend cpu       # one student per behaviour: checks the spec

The record goes to grader/calibration/runs/<machine>-<date>-throughput[-label].json (--record to choose);
the class, the outputs and the build trees to --out (default build/throughput; the trees are kept for the next run).
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))

from course_grader import answer_times, config, expected, gpus, pipeline, record, samples  # noqa: E402
from course_grader.manifest import Lab  # noqa: E402

SPEC = ROOT / "grader" / "tools" / "class_mix.toml"
RUNS = ROOT / "grader" / "calibration" / "runs"
BEHAVIOURS = ("correct", "slow", "wrong", "crashing", "hanging", "not_compiling")
# Assumed, not measured on a real class: most labs work, one in four is slow or wrong, a few crash, hang or do not
# compile. Percentages of all student x lab cells.
DEFAULT_MIX = "correct=55,slow=15,wrong=12,crashing=6,hanging=6,not_compiling=6"


class ThroughputError(Exception):
    pass


# ---- the class ------------------------------------------------------------------------------------------------------


def parse_mix(text: str) -> dict[str, float]:
    """'correct=55,slow=15,...' -> {behaviour: fraction}, fractions summing to 1."""
    mix: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name not in BEHAVIOURS:
            raise ThroughputError(f"--mix: unknown behaviour '{name}' (known: {', '.join(BEHAVIOURS)})")
        try:
            mix[name] = float(value)
        except ValueError:
            raise ThroughputError(f"--mix: '{part}' is not behaviour=number") from None
        if mix[name] < 0:
            raise ThroughputError(f"--mix: '{part}' is negative")
    total = sum(mix.values())
    if total <= 0:
        raise ThroughputError("--mix: nothing to generate")
    return {name: value / total for name, value in mix.items() if value > 0}


def behaviours(spec: Path, labs: tuple[Lab, ...]) -> dict[tuple[str, str], samples.Sample]:
    """{(lab number, behaviour): the sample that gives it}: a lab's own `labNN-<behaviour>` entry, else the
    `all-<behaviour>` entry with the lab's number and file."""
    table, common = {}, {}
    for s in samples.load(spec):
        prefix, _, behaviour = s.name.partition("-")
        if behaviour not in BEHAVIOURS or (prefix != "all" and prefix != f"lab{s.lab}"):
            raise ThroughputError(f"{s.where}: expected the name labNN-<behaviour> or all-<behaviour>")
        (common if prefix == "all" else table)[(s.lab, behaviour)] = s
    for lab in labs:
        for (_, behaviour), s in common.items():
            if (lab.number, behaviour) not in table:
                path = f"{lab.folder}/{lab.files[0]}"
                table[(lab.number, behaviour)] = dataclasses.replace(s, lab=lab.number, path=path)
    return table


def assign(students: list[str], labs: tuple[Lab, ...], mix: dict[str, float], seed: int) -> dict:
    """{(student, lab number): behaviour}: the counts of the mix over all cells (largest remainders), shuffled."""
    cells = [(s, lab.number) for s in students for lab in labs]
    exact = {b: f * len(cells) for b, f in mix.items()}
    counts = {b: int(x) for b, x in exact.items()}
    for b in sorted(exact, key=lambda b: (counts[b] - exact[b], BEHAVIOURS.index(b)))[
        : len(cells) - sum(counts.values())
    ]:
        counts[b] += 1
    drawn = [b for b in BEHAVIOURS for _ in range(counts.get(b, 0))]
    random.Random(seed).shuffle(drawn)
    return dict(zip(cells, drawn))


def write_class(dest: Path, cells: dict, table: dict, labs: tuple[Lab, ...]) -> dict:
    """The class's folders under `dest` (made afresh); returns its expected verdicts (expected.check's form)."""
    chosen = []
    for (student, number), behaviour in sorted(cells.items()):
        if (number, behaviour) not in table:
            raise ThroughputError(f"{SPEC}: no sample gives lab {number} the behaviour '{behaviour}'")
        chosen.append(dataclasses.replace(table[(number, behaviour)], name=student))
    shutil.rmtree(dest, ignore_errors=True)
    samples.generate(tuple(chosen), dest, labs)
    return samples.expectations(tuple(chosen))


# ---- the machine ----------------------------------------------------------------------------------------------------


def _first(path: str, pattern: str) -> str:
    try:
        m = re.search(pattern, Path(path).read_text(errors="replace"), re.M)
    except OSError:
        return ""
    return m.group(1).strip() if m else ""


def gpu_query(ids: tuple[str, ...], field: str) -> list[str]:
    """One nvidia-smi field (name, uuid) of each GPU: throughput differs between machines of one model by 10 % or
    more, so a record names the very GPU it ran on."""
    values = []
    for gpu in ids:
        c = subprocess.run(
            ["nvidia-smi", f"--id={gpu}", f"--query-gpu={field}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        )
        values.append(c.stdout.strip() or "unknown")
    return values


def machine(backend: str, gpu_ids: tuple[str, ...]) -> dict:
    mem_kb = _first("/proc/meminfo", r"^MemTotal:\s*(\d+)")
    return {
        "host": platform.node(),
        "cpu": _first("/proc/cpuinfo", r"^model name\s*:\s*(.*)$") or platform.processor(),
        "cores": pipeline.cores(),
        "memory_gib": round(int(mem_kb) / 2**20, 1) if mem_kb else None,
        "gpus": gpu_query(gpu_ids, "name") if backend == "gpu" else [],
        "gpu_uuids": gpu_query(gpu_ids, "uuid") if backend == "gpu" else [],
        "python": platform.python_version(),
    }


def short_name(m: dict) -> str:
    """'h100', 'h200' (from the GPU's model), or 'cpu2' (cores) for a CPU backend run."""
    for name in m["gpus"]:
        found = re.search(r"\b([A-Z]\d{2,3})\b", name)
        return found.group(1).lower() if found else "gpu"
    return f"cpu{m['cores']}"


def _busy_jiffies() -> int:
    """The busy CPU time of the whole machine so far (all cores, all users), in clock ticks, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
    return sum(fields) - fields[3] - fields[4]  # everything but idle and iowait


class Load(threading.Thread):
    """Samples the 1-minute load average while the class is graded."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples, self.stop = [os.getloadavg()[0]], threading.Event()

    def run(self) -> None:
        while not self.stop.wait(10):
            self.samples.append(os.getloadavg()[0])


# ---- grading --------------------------------------------------------------------------------------------------------


def grade(folder: Path, out: Path, work: Path, args: argparse.Namespace, jobs: int) -> float:
    cmd = [sys.executable, str(ROOT / "grader" / "grade.py"), str(folder), "--out", str(out), "--work", str(work)]
    cmd += ["--backend", args.backend, "--jobs", str(jobs), "--no-plots"]
    cmd += ["--test-timeout", str(args.test_timeout)] if args.test_timeout else []
    cmd += ["--no-sandbox"] if args.no_sandbox else []
    start = time.monotonic()
    c = subprocess.run(cmd)
    if c.returncode != 0:
        raise ThroughputError(f"grade.py ended with exit status {c.returncode}: {' '.join(cmd)}")
    return time.monotonic() - start


def per_behaviour(results, cells: dict) -> dict:
    by: dict[str, list[float]] = {}
    for r in results:
        by.setdefault(cells[(r.student, r.lab)], []).append(r.seconds)
    return {
        b: {"labs": len(v), "mean_seconds": round(statistics.mean(v), 2), "max_seconds": round(max(v), 2)}
        for b, v in sorted(by.items(), key=lambda kv: BEHAVIOURS.index(kv[0]))
    }


def ratios(results, cells: dict) -> dict:
    """{labNN: {behaviour: [ratios]}} of the labs whose performance was measured (GPU runs)."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in sorted(results, key=lambda r: (r.lab, r.student)):
        if r.ratio is not None:
            out.setdefault(f"lab{r.lab}", {}).setdefault(cells[(r.student, r.lab)], []).append(round(r.ratio, 4))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=8, help="six-lab submissions in the class (default 8)")
    p.add_argument("--mix", default=DEFAULT_MIX, help=f"behaviour=weight,... (default {DEFAULT_MIX})")
    p.add_argument("--seed", type=int, default=1, help="which student gets which behaviour (default 1)")
    p.add_argument(
        "--each",
        action="store_true",
        help="instead: one student per behaviour of the mix, with it in every lab (checks class_mix.toml)",
    )
    p.add_argument("--backend", choices=["auto", "cpu", "gpu"], default="auto")
    p.add_argument("--jobs", type=int, default=0, help="grade.py --jobs (default: grade.py's)")
    p.add_argument("--test-timeout", type=float, default=0, help="grade.py --test-timeout (default: course.toml)")
    p.add_argument("--no-sandbox", action="store_true", help="grade.py --no-sandbox (where bwrap cannot run)")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "throughput", help="class, outputs and build trees")
    p.add_argument("--label", default="", help="appended to the record's name, e.g. jobs1")
    p.add_argument("--record", type=Path, default=None, help="where to write the record (default: under runs/)")
    args = p.parse_args(argv)
    try:
        return run(args)
    except (ThroughputError, samples.SampleError) as e:
        print(f"throughput.py: {e}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    course = config.load()
    labs = course.existing_labs()
    gpu_ids = gpus.detect_gpus() if args.backend != "cpu" else ()
    backend = "gpu" if gpu_ids else "cpu"
    if args.backend == "gpu" and not gpu_ids:
        raise ThroughputError("--backend gpu, but nvidia-smi lists no GPU")
    args.backend = backend
    jobs = args.jobs or pipeline.default_jobs(len(gpu_ids), pipeline.cores())
    mix = parse_mix(args.mix)
    table = behaviours(SPEC, labs)
    if args.each:
        students = [b for b in BEHAVIOURS if b in mix]
        cells = {(b, lab.number): b for b in students for lab in labs}
    else:
        students = [f"s{i:03d}" for i in range(1, args.students + 1)]
        cells = assign(students, labs, mix, args.seed)
    out = args.out.resolve()
    wanted = write_class(out / "class", cells, table, labs)
    warm = {("warmup", lab.number): "correct" for lab in labs}
    write_class(out / "warmup-class", warm, table, labs)
    work = out / "work"
    print(f"throughput.py: warm-up (configures {jobs} build tree(s) in {work})", file=sys.stderr)
    warmup_seconds = grade(out / "warmup-class", out / "warmup", work, args, jobs)

    load = Load()
    busy0 = _busy_jiffies()
    load.start()
    print(
        f"throughput.py: grading {len(students)} students x {len(labs)} labs on the {backend} backend", file=sys.stderr
    )
    wall = grade(out / "class", out / "grades", work, args, jobs)
    load.stop.set()
    load.samples.append(os.getloadavg()[0])
    busy1 = _busy_jiffies()

    results = record.load(out / "grades").results
    mismatches = expected.check(results, wanted, backend)
    timeline = json.loads((work / "timeline.json").read_text())
    m = machine(backend, gpu_ids)
    counts: dict[str, int] = {}
    for b in cells.values():
        counts[b] = counts.get(b, 0) + 1
    hangs = [r.seconds for r in results if cells[(r.student, r.lab)] == "hanging"]
    per_hour = len(students) / wall * 3600
    rec = {
        "date": datetime.date.today().isoformat(),
        "what": "throughput: a generated class graded by grade.py (grader/tools/throughput.py)",
        "machine": m,
        "load": {
            "loadavg_1min": {
                "before": round(load.samples[0], 2),
                "mean": round(statistics.mean(load.samples), 2),
                "max": round(max(load.samples), 2),
            },
            # all users together; the grader's own share cannot be told apart: a killed test's sandboxed worker is
            # orphaned, so its CPU time is not counted to the grader's processes (getrusage)
            "machine_busy_cores": round((busy1 - busy0) / os.sysconf("SC_CLK_TCK") / wall, 2),
        },
        "backend": backend,
        "jobs": jobs,
        "build_jobs": pipeline.build_jobs(jobs, len(gpu_ids), pipeline.cores()),
        "test_seconds": args.test_timeout or course.limits.test_seconds,
        "sandbox": not args.no_sandbox,
        "class": {
            "students": len(students),
            "labs": [lab.number for lab in labs],
            "seed": args.seed,
            "each": args.each,
        },
        "mix": {b: counts.get(b, 0) for b in BEHAVIOURS},
        "warmup_seconds": round(warmup_seconds, 1),
        "wall_seconds": round(wall, 1),
        "submissions_per_hour": round(per_hour, 1),
        "submissions_per_gpu_hour": round(per_hour / len(gpu_ids), 1) if gpu_ids else None,
        "seconds_per_submission": round(wall / len(students), 1),
        "seconds_per_hang": {"mean": round(statistics.mean(hangs), 1), "max": round(max(hangs), 1)} if hangs else None,
        "per_behaviour": per_behaviour(results, cells),
        "gpu_busy_fraction": {g: round(s / wall, 3) for g, s in timeline["gpu_busy_seconds"].items()},
        "verdicts": {v: sum(r.verdict == v for r in results) for v in sorted({r.verdict for r in results})},
        "unexpected_verdicts": mismatches,
        "ratios": ratios(results, cells),
        # the longest wait for a launcher call's answer, by kind of run (labs stopped at a deadline left out)
        "longest_answer": answer_times.longest(results),
    }
    path = (
        args.record or RUNS / f"{short_name(m)}-{rec['date']}-throughput{'-' + args.label if args.label else ''}.json"
    )
    path.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    print(
        f"throughput.py: {len(students)} submissions in {wall:.0f} s: {per_hour:.1f} per hour"
        + (f", {rec['submissions_per_gpu_hour']} per GPU-hour" if gpu_ids else "")
        + (f"; {len(mismatches)} unexpected verdict(s)" if mismatches else "; every verdict as expected")
        + f". Record: {path}",
        file=sys.stderr,
    )
    for line in mismatches:
        print(f"  {line}", file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
