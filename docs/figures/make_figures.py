#!/usr/bin/env python3
"""Draw the course's figures from the bench's JSON: docs/data/NAME.json -> docs/figures/NAME.png.

  python3 docs/figures/make_figures.py [--data docs/data] [--out docs/figures]

The JSON comes from the bench (grader/bench/run_all.sh on a GPU machine: the perf cases swept over each lab.toml's
[[bench]] tables); the fields are described in grader/bench/merge.py. Each figure is titled with the GPU, CUDA
version and date of its own JSON. Figures the script knows (matadd, gemm_sizes, tile_size, bank_conflicts,
stencil_radius, reduction) get their own layout; any other JSON gets a plain plot of its series. Needs matplotlib;
nothing in the build runs this.
"""

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"


def import_matplotlib():
    """matplotlib with the Agg backend; re-runs this script with the system Python (Debian's python3-matplotlib)
    when the current Python lacks it."""
    try:
        import matplotlib
    except ImportError:
        if (
            os.environ.get("MAKE_FIGURES_REEXEC") != "1"
            and os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True).returncode == 0
        ):
            os.environ["MAKE_FIGURES_REEXEC"] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        sys.exit("matplotlib not found: sudo apt-get install python3-matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---- data --------------------------------------------------------------------------------------------------------


def points(series):
    """(xs, values) of a series, by x."""
    pts = sorted((p["x"], p["value"]) for p in series["points"] if p.get("value") is not None)
    return [x for x, _ in pts], [v for _, v in pts]


def baseline_of(data):
    """The series with role 'baseline' (the grader's in-run baseline), or None."""
    return next((s for s in data["series"] if s["role"] == "baseline"), None)


def ratio_to(series, base):
    """(xs, series / base) at the x both have: a speed-up when the metric is a throughput."""
    base_at = dict(zip(*points(base)))
    xs, values = points(series)
    pairs = [(x, v / base_at[x]) for x, v in zip(xs, values) if base_at.get(x)]
    return [x for x, _ in pairs], [r for _, r in pairs]


def series_named(data, prefix):
    return next((s for s in data["series"] if s["name"].startswith(prefix)), None)


# ---- style -------------------------------------------------------------------------------------------------------

ROLE_STYLE = {
    "solution": dict(linestyle="-", marker="o"),
    "variant": dict(linestyle="--", marker="s"),
    "baseline": dict(linestyle=":", marker="v"),
    "yardstick": dict(linestyle="-.", marker="", color="black"),
}


def style(series, index):
    s = dict(ROLE_STYLE.get(series["role"], {}))
    s.setdefault("color", f"C{index}")
    return s


def title(fig, data):
    fig.suptitle(f"{data['title']}\n{data['gpu']}, CUDA {data['cuda']}, {data['date'][:10]}", fontsize=11)


def size_axis(ax, xs, label, fmt=lambda x: f"{x:g}"):
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([fmt(x) for x in xs])
    ax.minorticks_off()
    ax.set_xlabel(label)


def pow2_label(x):
    return f"$2^{{{int(round(math.log2(x)))}}}$"


def log_y(ax):
    """A log y axis labelled at 1, 2 and 5 times each power of ten, in plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))


def lines(ax, data, only=None):
    for i, s in enumerate(data["series"]):
        if only and not only(s):
            continue
        xs, ys = points(s)
        ax.plot(xs, ys, label=s["name"], **style(s, i))
    ax.grid(True, which="major", alpha=0.3)


def all_x(data):
    return sorted({p["x"] for s in data["series"] for p in s["points"]})


# ---- one function per figure -------------------------------------------------------------------------------------


def fig_matadd(plt, data):
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    lines(ax, data)
    size_axis(ax, all_x(data), "elements (rows x 4096)", pow2_label)
    ax.set_ylabel("GB/s (matAdd: 3 x 4 bytes per element; copy: 2 x 4)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    title(fig, data)
    return fig


def fig_gemm_sizes(plt, data):
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    lines(ax, data)
    size_axis(ax, all_x(data), "M = N = K", lambda x: f"{x:.0f}")
    log_y(ax)
    ax.set_ylabel("GFLOP/s (FP32, log scale)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    title(fig, data)
    return fig


def fig_ratio_pair(plt, data, xlabel, xfmt, ylabel, ratio_label, logy=False):
    """Left: the metric of every series; right: each non-baseline series over the in-run baseline."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    lines(left, data)
    xs = all_x(data)
    size_axis(left, xs, xlabel, xfmt)
    left.set_ylabel(ylabel)
    if logy:
        log_y(left)
    else:
        left.set_ylim(bottom=0)
    left.legend(fontsize=8)
    base = baseline_of(data)
    if base is not None:
        for i, s in enumerate(data["series"]):
            if s is base or s["role"] == "yardstick":
                continue
            rx, ry = ratio_to(s, base)
            right.plot(rx, ry, label=s["name"], **style(s, i))
        right.axhline(1.0, color="grey", linewidth=0.8)
        right.set_ylabel(f"{ratio_label} (x, same run)")
        right.set_title(f"over: {base['name']}", fontsize=9)
        right.grid(True, alpha=0.3)
        right.set_ylim(bottom=0)
        size_axis(right, xs, xlabel, xfmt)
        right.legend(fontsize=8)
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_tile_size(plt, data):
    return fig_ratio_pair(plt, data, "M = N = K", lambda x: f"{x:.0f}", "GFLOP/s (FP32)", "speed-up")


def fig_stencil_radius(plt, data):
    return fig_ratio_pair(
        plt,
        data,
        f"radius R (n = {data['notes'].get('n', '2^26')})",
        lambda x: f"{x:.0f}",
        "GB/s (one read + one write per element)",
        "speed-up",
    )


def fig_bank_conflicts(plt, data):
    ncu = [s for s in data["series"] if "ncu" in s]
    if not ncu:  # no Nsight Compute counts: show the speed-up over the unpadded baseline instead
        return fig_ratio_pair(plt, data, "M = N = K", lambda x: f"{x:.0f}", "GFLOP/s (FP32)", "speed-up")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    lines(left, data)
    size_axis(left, all_x(data), "M = N = K", lambda x: f"{x:.0f}")
    left.set_ylabel("GFLOP/s (FP32)")
    left.set_ylim(bottom=0)
    left.legend(fontsize=8)
    names = [s["name"] for s in ncu]
    load = [max(s["ncu"]["load_conflicts"], 1) for s in ncu]
    store = [max(s["ncu"]["store_conflicts"], 1) for s in ncu]
    ys = range(len(ncu))
    right.barh([y + 0.2 for y in ys], load, height=0.4, label="shared loads", color="C3")
    right.barh([y - 0.2 for y in ys], store, height=0.4, label="shared stores", color="C0")
    for y, v in zip(ys, load):
        right.text(v, y + 0.2, f" {v:,}", va="center", fontsize=7)
    right.set_yticks(list(ys))
    right.set_yticklabels(names, fontsize=8)
    right.invert_yaxis()
    right.set_xscale("log")
    right.set_xlim(right=max(load + store) * 30)
    size = data.get("ncu_bank_conflicts", {}).get("size", "?")
    right.set_xlabel(f"bank conflicts, one launch at {size}^3 (Nsight Compute, log scale)")
    right.legend(fontsize=8, loc="lower right")
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_reduction(plt, data):
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1.1, 1]})
    graded = float(data["notes"].get("graded_block_size", 256))
    kernels = [s for s in data["series"] if s["role"] != "yardstick"]
    copy = next((s for s in data["series"] if s["role"] == "yardstick"), None)
    at = [dict(zip(*points(s))).get(graded, 0.0) for s in kernels]
    colors = [f"C{data['series'].index(s)}" for s in kernels]
    bars = left.barh(range(len(kernels)), at, color=colors)
    for bar, v in zip(bars, at):
        left.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {v:.0f}", va="center", fontsize=8)
    left.set_yticks(range(len(kernels)))
    left.set_yticklabels([s["name"] for s in kernels], fontsize=8)
    left.invert_yaxis()
    if copy is not None:
        c = dict(zip(*points(copy))).get(graded)
        if c:
            left.axvline(c, color="black", linestyle="-.", linewidth=1)
            left.text(c, len(kernels) - 0.4, " copy\n (read + written)", fontsize=7, va="bottom")
    left.set_xlim(right=max(at + [dict(zip(*points(copy))).get(graded, 0) if copy else 0]) * 1.25)
    left.set_xlabel(f"GB/s of input read, block size {graded:.0f}")
    lines(right, data)
    size_axis(right, all_x(data), "block size (threads)", lambda x: f"{x:.0f}")
    right.set_ylabel("GB/s (input read; copy: read + written)")
    right.set_ylim(bottom=0)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)  # below: the lines fill the box
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_generic(plt, data):
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    lines(ax, data)
    ax.set_xlabel(data.get("x_label", "x"))
    ax.set_ylabel(data.get("metric", ""))
    ax.legend(fontsize=8)
    title(fig, data)
    return fig


FIGURES = {
    "matadd": fig_matadd,
    "gemm_sizes": fig_gemm_sizes,
    "tile_size": fig_tile_size,
    "bank_conflicts": fig_bank_conflicts,
    "stencil_radius": fig_stencil_radius,
    "reduction": fig_reduction,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Draw docs/figures/NAME.png from docs/data/NAME.json.")
    parser.add_argument("--data", type=Path, default=ROOT / "docs" / "data", help="folder of the bench's JSON")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures", help="folder for the PNGs")
    args = parser.parse_args(argv)
    plt = import_matplotlib()
    files = sorted(args.data.glob("*.json"))
    if not files:
        sys.exit(f"make_figures: no JSON in {args.data} (run grader/bench/run_all.sh on a GPU machine)")
    args.out.mkdir(parents=True, exist_ok=True)
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        draw = FIGURES.get(data.get("figure"), fig_generic)
        fig = draw(plt, data)
        target = args.out / (path.stem + ".png")  # NAME.json -> NAME.png: docs/tools/check_figures.py pairs them
        fig.savefig(target, dpi=120, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        print(f"make_figures: {path} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
