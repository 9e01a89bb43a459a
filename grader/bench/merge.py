"""Merge the bench programs' records into one figure's JSON, docs/data/<figure>.json, in the schema that
docs/figures/make_figures.py draws:

  {"figure", "title", "subject", "gpu", "arch", "sm_count", "l2_bytes", "cuda", "driver", "date" (UTC, ISO 8601),
   "x_label", "metric" ("GB/s" | "GFLOP/s"), "timing": {"warmup", "runs", "l2_flush", "statistic", "harness"},
   "notes": {KEY: text},
   "series": [{"name", "source", "role", "lab", "subject", "case", "launcher",
               "points": [{"x", "value", "ms", "min_ms", "max_ms", "notes" (only when noted)}]}]}

(a figure with Nsight Compute counts also gets "ncu_bank_conflicts", and "ncu" in each profiled series: ncu.py).

A series is one timed launcher of one case in one program (a lab's solution or a variant). A point's value is its
rate, work / ms, in GB/s or GFLOP/s; ms is the time the graded ratios use (for a baseline, the mean of its medians
before and after the lab), min_ms and max_ms span all its timed runs; a point's notes are the facts the case noted
at that size (state.note, course/measure.h: registers, blocks per SM, an error), the record's and its launcher's
(which wins), quoted in the docs as data/NAME:"SERIES"@X.notes.KEY. A ratio figure divides a series by the series
with role "baseline" at the same x; the JSON keeps both, never only the ratio. A point whose result check failed
stops the figure: a figure never shows a wrong kernel.
"""
from __future__ import annotations

import json
import math

from sweeps import Figure, RunKey

HEADER = (
    "figure",
    "title",
    "subject",
    "gpu",
    "arch",
    "sm_count",
    "l2_bytes",
    "cuda",
    "driver",
    "date",
    "x_label",
    "metric",
    "timing",
    "notes",
)
HARNESS = "course::PerfState (grader/bench): baselines timed before and after the lab, each the median of its runs"


class MergeError(Exception):
    """The records cannot make the figure (missing, stopped, failed a check); the message says which."""


def _axis_name(key: str) -> str:
    return key.upper() if len(key) == 1 else key.replace("_", " ")


def x_label(figure: Figure) -> str:
    """The figure's x axis: figures.toml's, else the swept sizes ("M = N = K", "block size", "rows x cols")."""
    if figure.x_label:
        return figure.x_label
    sweep = figure.tables[0].sweep
    if tuple(sweep.x) != tuple(sweep.vary[:1]):
        return " x ".join(_axis_name(k) for k in sweep.x)
    return " = ".join(_axis_name(k) for k in sweep.vary)


def _record_at(run: dict, vary: tuple[str, ...], value: int, where: str) -> dict:
    for record in run["records"]:
        if all(record["sizes"].get(k) == value for k in vary):
            return record
    raise MergeError(f"{where}: no record at {', '.join(vary)} = {value} in {run.get('program', '?')}'s output")


def _point(record: dict, launcher: dict, x_keys: tuple[str, ...]) -> dict:
    point = {
        "x": math.prod(record["sizes"][k] for k in x_keys),
        "value": launcher["rate"],
        "ms": launcher["ms"],
        "min_ms": launcher["min_ms"],
        "max_ms": launcher["max_ms"],
    }
    notes = {**record.get("notes", {}), **launcher.get("notes", {})}
    if notes:
        point["notes"] = notes
    return point


def merge(figure: Figure, results: dict[RunKey, dict]) -> dict:
    """The figure's JSON from the runs' records (RunKey -> what the bench program wrote)."""
    series, units, sources, labs, runs_used = [], set(), [], [], []
    notes: dict[str, set[str]] = {}
    for table in figure.tables:
        sweep = table.sweep
        graded = table.graded
        for s in sweep.series:
            key = table.run_key(s.subject)
            where = f"figure '{figure.name}', series '{s.name}' (lab {table.lab.number} {s.subject}, {sweep.case})"
            run = results.get(key)
            if run is None:
                raise MergeError(f"{where}: no records (the run {key.label()} did not happen or wrote nothing)")
            if run.get("error"):
                raise MergeError(f"{where}: the run stopped: {run['error']}")
            runs_used.append(run)
            points = []
            for value in sweep.values:
                record = _record_at(run, sweep.vary, value, where)
                failed = [c for c in record["checks"] if not c["ok"]]
                if failed:
                    raise MergeError(
                        f"{where}: the result check '{failed[0]['name']}' failed at {record['sizes']} "
                        f"(a figure never shows a wrong kernel):\n{failed[0]['message']}"
                    )
                launcher = next((m for m in record["launchers"] if m["name"] == s.launcher), None)
                if launcher is None:
                    names = ", ".join(f"'{m['name']}'" for m in record["launchers"])
                    raise MergeError(f"{where}: the case times no launcher '{s.launcher}' (it times {names})")
                units.add(launcher["rate_unit"])
                points.append(_point(record, launcher, sweep.x))
                for k, v in record["sizes"].items():
                    if k not in sweep.vary:
                        notes.setdefault(k, set()).add(str(v))
            if sweep.vary[0] in graded:
                notes.setdefault(f"graded_{sweep.vary[0]}", set()).add(str(graded[sweep.vary[0]]))
            source = s.source or run["sources"]
            sources += [source] if source not in sources else []
            labs += [table.lab.number] if table.lab.number not in labs else []
            series.append(
                {
                    "name": s.name,
                    "source": source,
                    "role": s.role,
                    "lab": table.lab.number,
                    "subject": s.subject,
                    "case": sweep.case,
                    "launcher": s.launcher,
                    "points": points,
                }
            )
    if len(units) != 1:
        raise MergeError(f"figure '{figure.name}': its series are in different units ({', '.join(sorted(units))})")
    devices = {(r["device"]["name"], r["backend"]) for r in runs_used}
    if len(devices) != 1:
        raise MergeError(f"figure '{figure.name}': its records come from different devices: {sorted(devices)}")
    first = runs_used[0]
    timings = {json.dumps(r["timing"], sort_keys=True) for r in runs_used}
    if len(timings) != 1:
        raise MergeError(f"figure '{figure.name}': its runs were timed differently: {sorted(timings)}")
    device = first["device"]
    lab_text = ("lab " if len(labs) == 1 else "labs ") + ", ".join(labs)
    return {
        "figure": figure.name,
        "title": figure.title,
        "subject": f"{lab_text}: {', '.join(sources)}",
        "gpu": device["name"],
        "arch": device["arch"],
        "sm_count": device["sm_count"],
        "l2_bytes": device["l2_bytes"],
        "cuda": device["cuda"],
        "driver": device["driver"],
        "date": max(r["date"] for r in runs_used),
        "x_label": x_label(figure),
        "metric": units.pop(),
        "timing": {**first["timing"], "statistic": "median", "harness": HARNESS},
        # a size every sweep of the figure ran at (or was graded at) one value; figures.toml's notes on top
        "notes": {**{k: v.pop() for k, v in sorted(notes.items()) if len(v) == 1}, **figure.notes},
        "series": series,
    }


def dumps(data: dict) -> str:
    """The figure's JSON, one header key and one point per line (small diffs when a figure is measured again)."""
    out = ["{"]
    for key in HEADER:
        if key == "notes" and data["notes"]:
            lines = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in data["notes"].items()]
            out.append('  "notes": {\n' + ",\n".join(lines) + "\n  },")
        else:
            out.append(f"  {json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)},")
    for key in data:
        if key not in HEADER and key != "series":
            out.append(f"  {json.dumps(key)}: {json.dumps(data[key], ensure_ascii=False)},")
    series = []
    for s in data["series"]:
        head = ", ".join(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in s.items() if k != "points")
        points = ",\n                ".join(json.dumps(p) for p in s["points"])
        series.append(f'    {{{head},\n     "points": [{points}]}}')
    out.append('  "series": [\n' + ",\n".join(series) + "\n  ]")
    return "\n".join(out) + "\n}\n"
