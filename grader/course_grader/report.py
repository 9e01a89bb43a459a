"""Outputs: class.csv, results/<student>/results.json (Gradescope format: results_json.py), summary.md, class.json (the
results as data: record.py), plots (optional). Each of the first three records how student code was isolated
(sandbox.Policy.note: "bubblewrap", or OFF with --no-sandbox). Every file is written whole or not at all (a temporary
file renamed over it)."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from . import record, results_json
from .config import Visibility
from .diagnostics import shorten
from .intake import Submission
from .manifest import Lab
from .verdicts import PROBLEM_VERDICTS, VERDICTS, LabResult

CSV_FIELDS = ["student", "lab", "correctness", "ratio", "score", "max_score", "verdict", "message", "sandbox"]


def write_atomic(path: Path, text: str) -> None:
    """`path` holds `text` afterwards; a reader (or a crash) sees the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _ratio(r: LabResult) -> str:
    return "" if r.ratio is None else f"{r.ratio:.3f}"


def write_csv(results: list[LabResult], path: Path, isolation: str = "") -> None:
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow(CSV_FIELDS)
    for r in results:
        w.writerow(
            [
                r.student,
                f"lab{r.lab}",
                r.correctness,
                _ratio(r),
                f"{r.score:g}",
                f"{r.max_score:g}",
                r.verdict,
                r.message.replace("\n", " | "),
                isolation,
            ]
        )
    write_atomic(path, f.getvalue())


def write_student_results(
    results: list[LabResult],
    subs: list[Submission],
    out: Path,
    isolation: str = "",
    visibility: dict | None = None,
    assignment: str = "",
) -> None:
    """OUT/results/<student>/results.json for every student of `results`."""
    by_student: dict[str, list[LabResult]] = defaultdict(list)
    for r in results:
        by_student[r.student].append(r)
    notes = {s.student: s.notes for s in subs}
    extra = {k: v for k, v in (("sandbox", isolation), ("assignment", assignment)) if v}
    for student, rs in by_student.items():
        d = out / "results" / student
        d.mkdir(parents=True, exist_ok=True)
        data = results_json.student_results(rs, notes.get(student, []), Visibility(**(visibility or {})), extra=extra)
        write_atomic(d / "results.json", json.dumps(data, indent=2) + "\n")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_summary(
    results: list[LabResult],
    subs: list[Submission],
    labs: tuple[Lab, ...],
    ignored: list[str],
    backend: str,
    out: Path,
    plots: list[str],
    isolation: str = "",
    assignment: str = "",
    due: str = "",
) -> None:
    top = sum(lab.max_points for lab in labs)
    lines = [
        "# Grading summary",
        "",
        f"{len(subs)} submissions, labs {', '.join(l.number for l in labs) or 'none'}, backend: {backend}"
        + ("" if backend == "gpu" else " (performance not graded: no GPU)"),
        "",
    ]
    if assignment:
        lines += [f"Assignment **{assignment}**" + (f", due {due}" if due else "") + f", out of {top:g} points", ""]
    if isolation:
        lines += [f"Sandbox for student code: {'**' + isolation + '**' if 'OFF' in isolation else isolation}", ""]
    if ignored:
        lines += ["Entries of the submissions folder that are not submissions:", ""]
        lines += [f"- {_md(n)}" for n in ignored] + [""]
    lines += [
        "## Per lab",
        "",
        "| lab | submitted | correctness passed | " + " | ".join(VERDICTS) + " | mean score | median |",
        "|---|---|---|" + "---|" * len(VERDICTS) + "---|---|",
    ]
    for lab in labs:
        rs = [r for r in results if r.lab == lab.number]
        if not rs:
            continue
        c = Counter(r.verdict for r in rs)
        scores = [r.score for r in rs]
        lines.append(
            f"| lab{lab.number} | {len(rs) - c['missing']} | {sum(r.correctness == 'pass' for r in rs)} | "
            + " | ".join(str(c[v]) for v in VERDICTS)
            + f" | {statistics.mean(scores):.2f} / {lab.max_points:g} | {statistics.median(scores):g} |"
        )
    lines += ["", "Verdicts: " + "; ".join(f"**{k}**: {v}" for k, v in VERDICTS.items()), ""]
    lines += ["## Score distribution (total over the graded labs)", ""]
    totals: dict[str, float] = defaultdict(float)
    for r in results:
        totals[r.student] += r.score
    top = top or 1
    buckets = Counter(min(9, int(10 * t / top)) for t in totals.values())
    lines += ["| total | students |", "|---|---|"]
    for b in range(9, -1, -1):
        lo, hi = b * top / 10, (b + 1) * top / 10
        lines.append(f"| {lo:g}–{hi:g} | {buckets[b]} {'█' * buckets[b]} |")
    lines += ["", "## Problem submissions", ""]
    problems = [r for r in results if r.verdict in PROBLEM_VERDICTS]
    if problems:
        lines += ["| student | lab | verdict | message |", "|---|---|---|---|"]
        lines += [f"| {r.student} | lab{r.lab} | {r.verdict} | {_md(shorten(r.message, 300))} |" for r in problems]
    else:
        lines.append("None.")
    empty = sorted({s.student for s in subs} - {r.student for r in results if r.verdict != "missing"})
    if empty:
        lines += ["", "Submissions with none of the graded labs: " + ", ".join(empty)]
    if plots:
        lines += ["", "## Plots", ""] + [f"![{Path(p).stem}]({p})" for p in plots]
    write_atomic(out / "summary.md", "\n".join(lines) + "\n")


_PLOT_SCRIPT = r"""
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
spec = json.load(open(sys.argv[1]))
for lab in spec:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(lab["ratios"], bins=20, color="#4878a8")
    ax.axvline(lab["threshold"], color="#c03030", linestyle="--", label="threshold %.2f" % lab["threshold"])
    ax.axvline(lab["baseline"], color="#808080", linestyle=":", label="baseline %.2f" % lab["baseline"])
    ax.set_xlabel(lab["metric"] or "ratio"); ax.set_ylabel("submissions"); ax.set_title("lab" + lab["lab"])
    ax.legend(); fig.tight_layout(); fig.savefig(lab["path"], dpi=110); plt.close(fig)
"""


def _python_with_matplotlib() -> str | None:
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe):
            try:
                if subprocess.run([exe, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode == 0:
                    return exe
            except (OSError, subprocess.TimeoutExpired):
                pass
    return None


def write_plots(results: list[LabResult], labs: tuple[Lab, ...], out: Path) -> tuple[list[str], str]:
    """Per lab, a histogram of the measured ratios with the threshold marked. Never raises: (plots, message)."""
    spec = []
    for lab in labs:
        rs = [r for r in results if r.lab == lab.number and r.ratio is not None and r.threshold is not None]
        if rs:
            spec.append(
                {
                    "lab": lab.number,
                    "ratios": [r.ratio for r in rs],
                    "threshold": rs[0].threshold,
                    "baseline": lab.perf_baseline,
                    "metric": "",
                    "path": str(out / "plots" / f"lab{lab.number}.png"),
                }
            )
    if not spec:
        return [], "no plots: no performance ratios were measured (no GPU)"
    python = _python_with_matplotlib()
    if python is None:
        return [], "no plots: matplotlib is not installed (apt install python3-matplotlib)"
    try:
        (out / "plots").mkdir(exist_ok=True)
        spec_file = out / "plots" / "spec.json"
        spec_file.write_text(json.dumps(spec))
        c = subprocess.run([python, "-c", _PLOT_SCRIPT, str(spec_file)], capture_output=True, text=True, timeout=300)
        spec_file.unlink(missing_ok=True)
        if c.returncode != 0:
            last = (c.stderr.strip().splitlines() or ["unknown error"])[-1]
            return [], f"no plots: matplotlib failed: {last}"
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], f"no plots: {e}"
    return [f"plots/lab{s['lab']}.png" for s in spec], ""


def write_all(
    results,
    subs,
    labs,
    ignored,
    backend,
    out: Path,
    plots: bool = True,
    isolation: str = "",
    visibility: dict | None = None,
    assignment: str = "",
    due: str = "",
) -> str:
    """Every output of a class run into `out` (results/ is written afresh). Returns a message about the plots."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "results", ignore_errors=True)
    write_csv(results, out / "class.csv", isolation)
    write_student_results(results, subs, out, isolation, visibility, assignment)
    made, message = write_plots(results, labs, out) if plots else ([], "")
    write_summary(results, subs, labs, ignored, backend, out, made, isolation, assignment, due)
    rec = record.Record(
        backend, [lab.number for lab in labs], results, subs, ignored, isolation, visibility, assignment, due
    )
    write_atomic(out / record.NAME, record.to_json(rec))
    return message
