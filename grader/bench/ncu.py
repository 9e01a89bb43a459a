"""Nsight Compute's shared-memory bank-conflict counts for a figure (figures.toml: ncu_size), added to its JSON.

For each program whose series name a kernel ([[bench.series]] kernel = "..."), ncu runs the program once on the
series' case at ncu_size (every swept size set to it) with one timed run, no warm-up and no L2 flush, and counts the
load and store bank conflicts of every kernel launch (clocks left alone, as in the course's timings; the times the
program prints under ncu are meaningless). The first launch of each kernel is kept. Each profiled series gains
"ncu": {"kernel", "load_conflicts", "store_conflicts"}, and the figure "ncu_bank_conflicts": {"size", "metrics",
"counted", "tool"}, with "error" when nothing was counted (no ncu, or no permission to read the GPU's counters):
docs/figures/make_figures.py then draws the figure without the counts.
"""
from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

from sweeps import Figure, RunKey

LOAD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
STORE = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
TOOL = "ncu --clock-control none, the first launch of each kernel, every swept size set to SIZE"


def kernel_base(name: str) -> str:
    """'void tiled_gemm_kernel<32>(const float *, ...)' -> 'tiled_gemm_kernel<32>'."""
    name = name.split("(", 1)[0].strip()
    return name[5:] if name.startswith("void ") else name


def read_counts(text: str) -> dict[str, dict[str, int]]:
    """{kernel: {metric: value}} from ncu's CSV output, the first launch of each kernel only."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if '"Kernel Name"' in line and '"Metric Name"' in line), None)
    if start is None:
        return {}
    counts: dict[str, dict[str, int]] = {}
    first_id: dict[str, str] = {}
    for row in csv.DictReader(lines[start:]):
        kernel, metric = kernel_base(row.get("Kernel Name") or ""), row.get("Metric Name") or ""
        if metric not in (LOAD, STORE) or first_id.setdefault(kernel, row.get("ID") or "") != (row.get("ID") or ""):
            continue
        try:
            counts.setdefault(kernel, {})[metric] = int(float((row.get("Metric Value") or "").replace(",", "")))
        except ValueError:
            continue
    return counts


def _profile(program: str, key: RunKey, size: int, log: Path, timeout: float) -> tuple[dict, str]:
    """(counts, why none) of one program run under ncu; an older ncu that rejects an option gets the fewest."""
    run = [program, *key.arguments((size,)), "--runs", "1", "--warmup", "0", "--no-l2-flush"]
    tail = ""
    for options in (["--clock-control", "none", "--print-units", "base", "--log-file", str(log)], []):
        log.unlink(missing_ok=True)
        try:
            done = subprocess.run(
                ["ncu", "--csv", "--metrics", f"{LOAD},{STORE}", *options, *run],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return {}, f"ncu: {e}"
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        counts = read_counts(text) or read_counts(done.stdout)
        if counts:
            return counts, ""
        tail = "\n".join((text + done.stdout + done.stderr).splitlines()[-8:])
    return {}, f"no counts in ncu's output (exit status {done.returncode}):\n{tail}"


def add_counts(
    data: dict, figure: Figure, programs: dict[str, dict[str, str]], work: Path, timeout: float = 300.0
) -> str:
    """Adds the counts to `data` (the figure's JSON, merge.merge()); returns a line for the summary."""
    size = figure.ncu_size
    summary = {"size": size, "metrics": [LOAD, STORE], "counted": 0, "tool": TOOL}
    wanted: dict[RunKey, list] = {}
    for table in figure.tables:
        for s in table.sweep.series:
            if s.kernel:
                wanted.setdefault(table.run_key(s.subject), []).append(s)
    errors = []
    if shutil.which("ncu") is None:
        errors.append("ncu (Nsight Compute) is not on PATH")
    for key, series in wanted.items() if not errors else ():
        counts, why = _profile(programs[key.lab][key.subject], key, size, work / f"ncu_{key.label()}.csv", timeout)
        if why:
            errors.append(f"{key.label()}: {why}")
        for s in series:
            c = counts.get(s.kernel, {})
            if LOAD in c and STORE in c:
                target = next(x for x in data["series"] if x["name"] == s.name)
                target["ncu"] = {"kernel": s.kernel, "load_conflicts": c[LOAD], "store_conflicts": c[STORE]}
                summary["counted"] += 1
            elif not why:
                errors.append(f"{key.label()}: ncu counted no launch of {s.kernel} (kernels: {', '.join(counts)})")
    if errors:
        summary["error"] = "; ".join(errors)
    data["ncu_bank_conflicts"] = summary
    lines = [
        f"{x['name']}: {x['ncu']['load_conflicts']:,} load and {x['ncu']['store_conflicts']:,} store bank "
        f"conflicts at {size}"
        for x in data["series"]
        if "ncu" in x
    ]
    return "\n".join(lines + ([f"ncu: {summary['error']}"] if errors else []))
