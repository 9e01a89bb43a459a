#!/usr/bin/env python3
"""Draw the course's figures from the bench's JSON: docs/data/NAME.json -> docs/figures/NAME.png.

  python3 docs/figures/make_figures.py [--data docs/data] [--out docs/figures]

The JSON comes from the bench (grader/bench/run_all.sh on a GPU machine: the perf cases swept over each lab.toml's
[[bench]] tables); the fields are described in grader/bench/merge.py. Each figure is titled with the GPU, CUDA
version and date of its own JSON. Figures the script knows (matadd, gemm_sizes, tile_size, bank_conflicts,
stencil_radius, reduction, double_buffering) get their own layout; any other JSON gets a plain plot of its series. A
series with role "ceiling" (the library a user would call instead) gets a panel of every other series as a fraction
of it. Needs matplotlib; nothing in the build runs this.
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


def ceiling_of(data):
    """The series with role 'ceiling' (the library a user would call instead, timed in the same run), or None."""
    return next((s for s in data["series"] if s["role"] == "ceiling"), None)


# ---- style -------------------------------------------------------------------------------------------------------

ROLE_STYLE = {
    "solution": dict(linestyle="-", marker="o"),
    "variant": dict(linestyle="--", marker="s"),
    "baseline": dict(linestyle=":", marker="v"),
    "yardstick": dict(linestyle="-.", marker="", color="grey"),
    "ceiling": dict(linestyle="-.", marker="", color="black", linewidth=1.6),
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


def fraction_panel(ax, data, xlabel, xfmt, logy=False):
    """Every other series over the ceiling (the library a user would call instead) at each x, from the same run."""
    ceiling = ceiling_of(data)
    for i, s in enumerate(data["series"]):
        if s is ceiling:
            continue
        rx, ry = ratio_to(s, ceiling)
        ax.plot(rx, ry, label=s["name"], **style(s, i))
    ax.axhline(1.0, label=ceiling["name"], **ROLE_STYLE["ceiling"])
    ax.set_ylabel(f"fraction of {ceiling['name']} (same run)")
    ax.set_title(f"against the ceiling: {ceiling['name']}", fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    if logy:
        from matplotlib.ticker import FuncFormatter

        log_y(ax)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    else:
        ax.set_ylim(bottom=0)
    size_axis(ax, all_x(data), xlabel, xfmt)


# ---- one function per figure -------------------------------------------------------------------------------------


def fig_matadd(plt, data):
    fig, (ax, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    lines(ax, data)
    size_axis(ax, all_x(data), "elements (rows x 4096)", pow2_label)
    ax.set_ylabel("GB/s (matAdd: 3 x 4 bytes per element; copy: 2 x 4)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    if ceiling_of(data) is not None:
        fraction_panel(right, data, "elements (rows x 4096)", pow2_label)
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_gemm_sizes(plt, data):
    fig, (ax, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    lines(ax, data)
    size_axis(ax, all_x(data), "M = N = K", lambda x: f"{x:.0f}")
    log_y(ax)
    ax.set_ylabel("GFLOP/s (FP32, log scale)")
    if ceiling_of(data) is not None:
        fraction_panel(right, data, "M = N = K", lambda x: f"{x:.0f}", logy=True)
    right.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_ratio_pair(plt, data, xlabel, xfmt, ylabel, ratio_label, logy=False):
    """Left: the metric of every series; middle: each non-baseline series over the in-run baseline; right (when the
    figure has one): each series as a fraction of the ceiling."""
    ceiling = ceiling_of(data)
    fig, axes = plt.subplots(1, 3 if ceiling else 2, figsize=(17 if ceiling else 12, 4.8))
    left, right = axes[0], axes[1]
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
            if s is base or s["role"] in ("yardstick", "ceiling"):
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
    if ceiling:
        fraction_panel(axes[2], data, xlabel, xfmt)
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
    ceiling = ceiling_of(data)
    fig, axes = plt.subplots(1, 3 if ceiling else 2, figsize=(18 if ceiling else 12, 4.8))
    left, right = axes[0], axes[-1]
    lines(left, data, only=lambda s: s is not ceiling)  # the ceiling is many times faster: its own panel
    if ceiling:
        fraction_panel(axes[1], data, "M = N = K", lambda x: f"{x:.0f}")
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
    kernels = [s for s in data["series"] if s["role"] not in ("yardstick", "ceiling")]
    copy = next((s for s in data["series"] if s["role"] == "yardstick"), None)
    ceiling = ceiling_of(data)
    at = [dict(zip(*points(s))).get(graded, 0.0) for s in kernels]
    colors = [f"C{data['series'].index(s)}" for s in kernels]
    bars = left.barh(range(len(kernels)), at, color=colors)
    top = dict(zip(*points(ceiling))).get(graded) if ceiling else None
    for bar, v in zip(bars, at):
        label = f" {v:.0f}" + (f" ({v / top:.2f} of {ceiling['name'].split()[0]})" if top else "")
        left.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, label, va="center", fontsize=8)
    if top:
        left.axvline(top, color="black", linestyle="-.", linewidth=1.6)
        left.text(top, -0.6, f" {ceiling['name']}", fontsize=7, va="bottom")
    left.set_yticks(range(len(kernels)))
    left.set_yticklabels([s["name"] for s in kernels], fontsize=8)
    left.invert_yaxis()
    if copy is not None:
        c = dict(zip(*points(copy))).get(graded)
        if c:
            left.axvline(c, color="grey", linestyle="-.", linewidth=1)
            left.text(c, len(kernels) - 0.4, " copy\n (read + written)", fontsize=7, va="bottom")
    left.set_xlim(right=max(at + [dict(zip(*points(copy))).get(graded, 0) if copy else 0, top or 0]) * 1.35)
    left.set_xlabel(f"GB/s of input read, block size {graded:.0f}")
    lines(right, data)
    size_axis(right, all_x(data), "block size (threads)", lambda x: f"{x:.0f}")
    right.set_ylabel("GB/s (input read; copy: read + written)")
    right.set_ylim(bottom=0)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)  # below: the lines fill the box
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_panels_by_prefix(plt, data, xlabel, xfmt, ylabel, logy=False):
    """One panel per prefix of the series' names ("same weight: constant memory" is in panel "same weight"), on one y
    axis; a series named without a prefix (the copy) is drawn in every panel, and a name's rest keeps its colour in
    all of them (constant_weights, histogram)."""
    panels, kinds = [], []
    for s in data["series"]:
        if ": " in s["name"]:
            prefix, kind = s["name"].split(": ", 1)
            panels += [prefix] if prefix not in panels else []
            kinds += [kind] if kind not in kinds else []
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.8), sharey=True, squeeze=False)
    xs = all_x(data)
    for ax, panel in zip(axes[0], panels):
        for s in data["series"]:
            prefix, _, kind = s["name"].rpartition(": ")
            if prefix not in ("", panel):
                continue
            px, py = points(s)
            look = dict(ROLE_STYLE.get(s["role"], {}))
            if prefix:
                look["color"] = f"C{kinds.index(kind)}"
            ax.plot(px, py, label=kind, **look)
        ax.set_title(panel, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        size_axis(ax, xs, xlabel, xfmt)
        ax.legend(fontsize=8)
    if logy:
        from matplotlib.ticker import FuncFormatter

        log_y(axes[0][0])
        axes[0][0].yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))  # rates below 1 GB/s too
    else:
        axes[0][0].set_ylim(bottom=0)
    axes[0][0].set_ylabel(ylabel)
    title(fig, data)
    fig.tight_layout()
    return fig


def bank_wavefronts(width_bytes, stride):
    """The model the bank_width figure tests: a warp-wide load of width_bytes per lane, lane l at element l * stride,
    takes as many wavefronts as the most distinct 4-byte words that fall in one of the 32 banks."""
    words = max(width_bytes // 4, 1)
    banks = [set() for _ in range(32)]
    for lane in range(32):
        for c in range(words):
            word = lane * stride * words + c
            banks[word % 32].add(word)
    return max(len(b) for b in banks)


def fig_bank_width(plt, data):
    """Left: GB/s of shared memory loaded against the stride (powers of two joined, odd strides apart); right: the
    time of one warp-wide load over a 4-byte load's at stride 1, next to the 32-bank model (bank_wavefronts)."""
    import re

    xs = all_x(data)
    at = {x: i for i, x in enumerate(xs)}  # one column per stride: 32 and 33 side by side
    ref = next((s for s in data["series"] if s["name"].startswith("4-byte")), data["series"][0])
    ref_ms = next((p["ms"] for p in ref["points"] if p["x"] == 1), None)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, s in enumerate(data["series"]):
        color = f"C{i}"
        pts = sorted((p["x"], p["value"], p["ms"]) for p in s["points"])
        even = [p for p in pts if p[0] & (p[0] - 1) == 0]  # 1, 2, 4, ... 32: joined
        odd = [p for p in pts if p[0] & (p[0] - 1)]  # 3, 33: markers only
        left.plot([at[x] for x, _, _ in even], [v for _, v, _ in even], "-o", color=color, label=s["name"])
        left.plot([at[x] for x, _, _ in odd], [v for _, v, _ in odd], "o", color=color, mfc="none", markersize=8)
        if ref_ms:
            right.plot(
                [at[x] for x, _, _ in even], [ms / ref_ms for _, _, ms in even], "-o", color=color, label=s["name"]
            )
            right.plot(
                [at[x] for x, _, _ in odd],
                [ms / ref_ms for _, _, ms in odd],
                "o",
                color=color,
                mfc="none",
                markersize=8,
            )
        width = re.match(r"(\d+)-byte", s["name"])
        if width and ref_ms:
            model = [bank_wavefronts(int(width.group(1)), x) for x in xs]
            right.plot(
                range(len(xs)),
                model,
                "_",
                color=color,
                markersize=16,
                markeredgewidth=2,
                alpha=0.45,
                label="model: the most words in one bank" if i == 0 else None,
            )
    for ax in (left, right):
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.set_xlabel(data.get("x_label") or "stride")
        ax.grid(True, which="major", alpha=0.3)
    log_y(left)
    left.set_ylim(top=max(p["value"] for s in data["series"] for p in s["points"]) * 1.5)
    left.set_ylabel("GB/s of shared memory loaded (log scale)")
    left.set_title("hollow: odd strides", fontsize=9)
    left.legend(fontsize=8)
    from matplotlib.ticker import FixedLocator, NullLocator

    right.set_yscale("log", base=2)
    right.yaxis.set_major_locator(FixedLocator([1, 2, 4, 8, 16, 32]))
    right.yaxis.set_minor_locator(NullLocator())
    right.yaxis.set_major_formatter(plt.FuncFormatter(lambda y, _: f"{y:g}"))
    right.set_ylabel("time of one warp-wide load\n/ a 4-byte load's at stride 1 (wavefronts)")
    counts = [s for s in data["series"] if "ncu" in s]
    if counts:
        size = data.get("ncu_bank_conflicts", {}).get("size", "?")
        text = "\n".join(f"{s['name'].split(' (')[0]}: {s['ncu']['load_conflicts']:,}" for s in counts)
        right.text(
            0.02,
            0.98,
            f"Nsight Compute, load conflicts\nof one launch at stride {size}:\n{text}",
            transform=right.transAxes,
            va="top",
            fontsize=7,
            bbox=dict(facecolor="white", alpha=0.8),
        )
    right.legend(fontsize=7, loc="center right")
    title(fig, data)
    fig.tight_layout()
    return fig


def note_at(series, x, key):
    """The note `key` of a series' point at x (a fact the bench recorded beside the time), or None."""
    point = next((p for p in series["points"] if p["x"] == x), None)
    return (point or {}).get("notes", {}).get(key)


def fig_occupancy_launch_bounds(plt, data):
    """Left: GFLOP/s of each __launch_bounds__ instance against size; right: what each instance costs, from the
    notes at the largest size: registers per thread, local (spill) bytes per thread, blocks per SM."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1.2, 1]})
    lines(left, data)
    xs = all_x(data)
    size_axis(left, xs, "M = N = K", lambda x: f"{x:.0f}")
    left.set_ylabel("GFLOP/s (FP32)")
    left.set_ylim(bottom=0)
    left.legend(fontsize=8)
    noted = [s for s in data["series"] if note_at(s, xs[-1], "registers") is not None]
    keys = [
        ("registers", "registers / thread"),
        ("local_bytes", "local (spill) bytes / thread"),
        ("blocks_per_sm", "blocks / SM (x 10)"),
    ]
    width = 0.8 / len(keys)
    for i, (key, label) in enumerate(keys):
        values = [note_at(s, xs[-1], key) * (10 if key == "blocks_per_sm" else 1) for s in noted]
        bars = right.bar(
            [j + (i - 1) * width for j in range(len(noted))], values, width=width, label=label, color=f"C{i + 6}"
        )
        for bar, v in zip(bars, values):
            right.text(
                bar.get_x() + bar.get_width() / 2,
                bar.get_height(),
                f"{v / (10 if i == 2 else 1):.0f}",
                ha="center",
                va="bottom",
                fontsize=7,
            )
    right.set_xticks(range(len(noted)))
    right.set_xticklabels([s["name"].replace("__launch_bounds__", "bounds") for s in noted], fontsize=8)
    right.set_title("cudaFuncGetAttributes and the occupancy API", fontsize=9)
    right.legend(fontsize=8)
    title(fig, data)
    fig.tight_layout()
    return fig


def fig_occupancy_shared(plt, data):
    """Top: GB/s against the dynamic shared memory per block; bottom: blocks per SM from the occupancy API. A line
    marks the 48 KiB default limit, above which a launch needs the opt-in."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.5, 7.5), sharex=True, gridspec_kw={"height_ratios": [1.4, 1]})
    lines(top, data)
    top.set_ylabel("GB/s (read + written)")
    top.set_ylim(bottom=0)
    top.legend(fontsize=8)
    for i, s in enumerate(data["series"]):
        xs = [p["x"] for p in s["points"] if "blocks_per_sm" in p.get("notes", {})]
        if xs and s["role"] != "ceiling":
            bottom.step(
                xs,
                [note_at(s, x, "blocks_per_sm") for x in xs],
                where="mid",
                label=s["name"],
                **{k: v for k, v in style(s, i).items() if k != "marker"},
            )
    bottom.set_ylabel("blocks / SM (occupancy API)")
    bottom.set_ylim(bottom=0)
    bottom.grid(True, alpha=0.3)
    bottom.set_xlabel(data.get("x_label", "KiB"))
    for ax in (top, bottom):
        ax.axvline(48, color="grey", linestyle=":", linewidth=1)
    bottom.text(48, bottom.get_ylim()[1] * 0.9, " 48 KiB: above, opt-in needed", fontsize=7, va="top")
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
    "bank_width": fig_bank_width,
    "matadd": fig_matadd,
    "gemm_sizes": fig_gemm_sizes,
    "tile_size": fig_tile_size,
    "bank_conflicts": fig_bank_conflicts,
    "stencil_radius": fig_stencil_radius,
    "reduction": fig_reduction,
    "double_buffering": lambda plt, data: fig_ratio_pair(
        plt, data, "M = N = K", lambda x: f"{x:.0f}", "GFLOP/s (FP32)", "speed-up"
    ),
    "constant_weights": lambda plt, data: fig_panels_by_prefix(
        plt, data, "radius R", lambda x: f"{x:.0f}", "GB/s (one read + one write per output)"
    ),
    "occupancy_launch_bounds": fig_occupancy_launch_bounds,
    "occupancy_shared": fig_occupancy_shared,
    "histogram": lambda plt, data: fig_panels_by_prefix(
        plt, data, "bins", lambda x: f"{x:.0f}", "GB/s of values read (copy: read + written)", logy=True
    ),
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
