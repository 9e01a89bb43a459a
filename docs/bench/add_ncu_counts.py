#!/usr/bin/env python3
"""Add Nsight Compute's bank-conflict counts to the bank_conflicts figure's JSON.

  python3 docs/bench/add_ncu_counts.py DATA_JSON SIZE NCU_OUTPUT [NCU_OUTPUT ...]

NCU_OUTPUT is what `ncu --csv --print-units base --metrics <load>,<store> --log-file FILE bench_gemm --figure
bank_conflicts --profile SIZE` wrote (docs/bench/run_all.sh runs it): one row per kernel and metric; the first file
that holds counts is used (the log file, else the captured standard output). Each series of
DATA_JSON whose kernel was profiled gains "ncu": {"kernel", "load_conflicts", "store_conflicts"}, and the file gains
"ncu_bank_conflicts": {"size", "metrics", "counted", "tool"}; when the output holds no counts (no permission to read the GPU's
counters, say), "ncu_bank_conflicts" says why and the figure leaves the counts out. Exit 0 either way.
"""

import csv
import json
import sys

LOAD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
STORE = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"

# The kernel each series of bench_gemm --figure bank_conflicts launches (series name -> kernel name).
KERNELS = {
    "unpadded (lab 04 baseline)": "unpadded_gemm_kernel",
    "padded (lab 04)": "padded_gemm_kernel",
    "both tiles padded (lab 04 variant)": "bench_padded_gemm_both_tiles_kernel",
    "tiled 32, row-walking warps (lab 03)": "tiled_gemm_kernel<32>",
}


def kernel_base(name):
    """'void tiled_gemm_kernel<32>(const float *, ...)' -> 'tiled_gemm_kernel<32>'."""
    name = name.split("(", 1)[0].strip()
    return name[5:] if name.startswith("void ") else name


def read_counts(path):
    """{kernel: {metric: value}} from ncu's CSV, first launch of each kernel only."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if '"Kernel Name"' in line and '"Metric Name"' in line), None)
    if start is None:
        return {}, "\n".join(lines[-15:])
    counts, first_id = {}, {}
    for row in csv.DictReader(lines[start:]):
        kernel, metric = kernel_base(row.get("Kernel Name") or ""), row.get("Metric Name") or ""
        if metric not in (LOAD, STORE):
            continue
        launch = row.get("ID") or ""
        if first_id.setdefault(kernel, launch) != launch:
            continue
        try:
            value = int(float((row.get("Metric Value") or "").replace(",", "")))
        except ValueError:
            continue
        counts.setdefault(kernel, {})[metric] = value
    return counts, ""


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    json_path, size = argv[1], int(argv[2])
    with open(json_path, encoding="utf-8") as f:
        data = json.load(f)
    counts, tail = {}, ""
    for path in argv[3:]:
        try:
            counts, tail = read_counts(path)
        except OSError as e:
            counts, tail = {}, str(e)
        if counts:
            break
    matched = 0
    for series in data["series"]:
        kernel = KERNELS.get(series["name"])
        if kernel in counts and LOAD in counts[kernel] and STORE in counts[kernel]:
            series["ncu"] = {"kernel": kernel, "load_conflicts": counts[kernel][LOAD],
                             "store_conflicts": counts[kernel][STORE]}
            matched += 1
    summary = {"size": size, "metrics": [LOAD, STORE], "counted": matched,
               "tool": "ncu --clock-control none, first launch of each kernel at SIZE^3"}
    if not matched:
        summary["error"] = "no counts in the ncu output: " + (tail or "no rows for the lab 04 kernels")
    data["ncu_bank_conflicts"] = summary
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    for series in data["series"]:
        if "ncu" in series:
            print(f"{series['name']:40s} load conflicts {series['ncu']['load_conflicts']:>15,d}   "
                  f"store conflicts {series['ncu']['store_conflicts']:>13,d}   ({size}^3)")
    if not matched:
        print("ncu: " + summary["error"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
