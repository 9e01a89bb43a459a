"""Tests of the bench driver, no GPU needed (ctest: course.bench.driver and course.bench.smoke, label selftest).

  python3 -m unittest discover -s grader/bench -p test_bench.py            the [[bench]] checks, the plan, the merge
  COURSE_BENCH_PROGRAMS=BUILD/grader/bench/programs.json python3 -m unittest discover -s grader/bench \\
      -p test_bench.py -k Smoke                                            + lab 01's CPU-backend program, end to end

The smoke test runs run_bench.py on the CPU-backend program of lab 01's solution (bench_lab01_solution_cpu, built by
default) at two tiny sizes and checks the figure JSON it writes: the schema make_figures.py reads and the series the
manifest declares for that program.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import merge
import ncu
import sweeps
from sweeps import ROOT, manifest

SERIES_KEYS = {"name", "source", "role", "points"}
POINT_KEYS = {"x", "value", "ms", "min_ms", "max_ms"}
LAB01 = ROOT / "grader" / "labs" / "01_matadd"


class BenchManifest(unittest.TestCase):
    """course_grader.manifest checks the [[bench]] tables: unknown keys and wrong values name the file and key."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.lab = self.tmp / "01_matadd"
        shutil.copytree(LAB01, self.lab)
        self.text = (LAB01 / "lab.toml").read_text(encoding="utf-8")
        self.gpus = manifest.load_gpus(ROOT / "grader" / "course.toml")

    def load(self, old: str, new: str) -> manifest.Lab:
        self.assertIn(old, self.text)
        (self.lab / "lab.toml").write_text(self.text.replace(old, new, 1), encoding="utf-8")
        return manifest.load_lab(self.lab / "lab.toml", self.gpus)

    def rejects(self, old: str, new: str, *words: str):
        with self.assertRaises(manifest.ManifestError) as caught:
            self.load(old, new)
        for word in (str(self.lab / "lab.toml"), *words):
            self.assertIn(word, str(caught.exception))

    def test_committed_tables_load(self):
        lab = self.load("[lab]", "[lab]")
        sweep = lab.bench[0]
        self.assertEqual(
            (sweep.figure, sweep.case, sweep.vary, sweep.x),
            ("matadd", "MatAddPerf.BandwidthVsCopy", ("rows",), ("rows", "cols")),
        )
        self.assertEqual(sweep.size, {"cols": 4096})
        self.assertEqual([s.subject for s in sweep.series], ["solution", "solution", "scalar_256", "scalar_16x16"])
        self.assertIsNone(sweep.series[1].source)

    def test_unknown_keys(self):
        self.rejects('figure = "matadd"', 'figure = "matadd"\ntitel = "x"', "unknown key 'bench[0].titel'")
        self.rejects('role = "ceiling"', 'role = "ceiling"\ncolour = "red"', "'bench[0].series[0].colour'")

    def test_wrong_values(self):
        self.rejects(
            'case = "MatAddPerf.BandwidthVsCopy"',
            'case = "MatAddPerf.Bandwidth"',
            "not a [[perf]] test of this lab",
            "MatAddPerf.BandwidthVsCopy",
        )
        self.rejects('vary = ["rows"]', 'vary = ["rowz"]', "size 'rowz'")
        self.rejects('x = ["rows", "cols"]', 'x = ["rows", "colz"]', "size 'colz'")
        self.rejects('subject = "scalar_256"', 'subject = "scalar_512"', "subject 'scalar_512'", "scalar_256")
        self.rejects('role = "ceiling"', 'role = "ruler"', "role 'ruler'")
        self.rejects("values = [16, 32,", "values = [16, 16,", "'values' distinct positive integers")
        self.rejects('launcher = "matadd"', "launcher = 3", "'bench[0].series[1].launcher' must be")


class Plan(unittest.TestCase):
    def test_every_figure_has_its_sweeps_and_runs_are_shared(self):
        figures, runs = sweeps.plan(manifest.load_labs(ROOT))
        self.assertEqual([f.name for f in figures], list(sweeps.load_figures()))
        tiled = [k for k in runs if k.lab == "03" and k.case == "TiledGemmPerf.SpeedupVsNaive"]
        self.assertEqual(len(tiled), 1, "lab 03's tiled GEMM is timed once for its three figures")
        self.assertEqual(runs[tiled[0]], (256, 512, 1024, 2048, 4096))
        args = next(k for k in runs if k.lab == "01" and k.subject == "solution").arguments((16, 32))
        self.assertEqual(args, ["--case", "MatAddPerf.BandwidthVsCopy", "--size", "cols=4096", "--vary", "rows=16,32"])

    def test_selection_and_overrides(self):
        figures, runs = sweeps.plan(
            manifest.load_labs(ROOT), figures=("matadd",), subjects=("01:solution",), values=(16, 32), size={"cols": 64}
        )
        self.assertEqual(
            [s.name for s in figures[0].tables[0].sweep.series], ["device-to-device copy", "reference (float4)"]
        )
        self.assertEqual(list(runs.values()), [(16, 32)])
        with self.assertRaisesRegex(sweeps.PlanError, "no figure 'matadd2'"):
            sweeps.plan(manifest.load_labs(ROOT), figures=("matadd2",))

    def test_figures_toml_is_checked(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "figures.toml"
            path.write_text('[matadd]\ntitle = "t"\ncolour = "red"\n', encoding="utf-8")
            with self.assertRaisesRegex(sweeps.PlanError, "unknown key 'matadd.colour'"):
                sweeps.load_figures(path)
            path.write_text('[matadd]\ntitle = "t"\n', encoding="utf-8")
            with self.assertRaisesRegex(sweeps.PlanError, "bench.0..figure 'gemm_sizes' is not a figure of"):
                sweeps.plan(manifest.load_labs(ROOT), figures_toml=path)
            path.write_text(sweeps.FIGURES.read_text(encoding="utf-8") + '[extra]\ntitle = "t"\n', encoding="utf-8")
            with self.assertRaisesRegex(sweeps.PlanError, "figure 'extra' has no .*bench.* table"):
                sweeps.plan(manifest.load_labs(ROOT), figures_toml=path)


def fake_run(key: sweeps.RunKey, values: tuple[int, ...], launchers: list[str], unit: str = "GB/s") -> dict:
    """What a bench program writes, with made-up numbers."""
    records = []
    for v in values:
        sizes = {**dict(key.size), **{k: v for k in key.vary}}
        records.append(
            {
                "sizes": sizes,
                "ratios": {},
                "checks": [{"name": "c", "ok": True, "message": ""}],
                "launchers": [
                    {"name": n, "rate": 10.0 * (i + 1) * v, "rate_unit": unit, "ms": 2.0, "min_ms": 1.0, "max_ms": 3.0}
                    for i, n in enumerate(launchers)
                ],
            }
        )
    return {
        "lab": key.lab,
        "subject": key.subject,
        "sources": f"lab{key.lab}/{key.subject}.cu",
        "backend": "gpu",
        "program": "bench",
        "date": "2026-01-02T03:04:05Z",
        "timing": {"warmup": 3, "runs": 25, "l2_flush": True},
        "device": {"name": "GPU", "arch": "sm_90", "sm_count": 132, "l2_bytes": 1, "cuda": "13.0", "driver": "13.0"},
        "records": records,
    }


class Merge(unittest.TestCase):
    def setUp(self):
        figures, self.runs = sweeps.plan(manifest.load_labs(ROOT), figures=("reduction",))
        self.figure = figures[0]
        self.results = {}
        for key, values in self.runs.items():
            names = [s.launcher for t in self.figure.tables for s in t.sweep.series if t.run_key(s.subject) == key]
            self.results[key] = fake_run(key, values, names)

    def test_the_schema_make_figures_reads(self):
        data = merge.merge(self.figure, self.results)
        self.assertEqual(list(data)[: len(merge.HEADER)], list(merge.HEADER))
        self.assertEqual([s["name"][:2] for s in data["series"]], ["de", "0:", "CU", "1:", "2:", "3:", "4:", "sc"])
        for s in data["series"]:
            self.assertLessEqual(SERIES_KEYS, set(s))
            self.assertEqual([p["x"] for p in s["points"]], [64, 128, 256, 512, 1024])
            self.assertEqual(set(s["points"][0]), POINT_KEYS)
        self.assertEqual(data["notes"], {"graded_block_size": "256", "n": "67108864"})
        self.assertEqual((data["x_label"], data["metric"], data["gpu"]), ("block size", "GB/s", "GPU"))
        self.assertEqual(json.loads(merge.dumps(data)), data)

    def test_a_failed_check_stops_the_figure(self):
        key = next(iter(self.results))
        self.results[key]["records"][2]["checks"][0] = {"name": "reduction", "ok": False, "message": "off by one"}
        with self.assertRaisesRegex(merge.MergeError, "check 'reduction' failed.*never shows a wrong kernel"):
            merge.merge(self.figure, self.results)

    def test_missing_launcher_run_and_mixed_units(self):
        broken = copy.deepcopy(self.results)
        key = next(iter(broken))
        for record in broken[key]["records"]:
            record["launchers"][0]["name"] = "renamed"
        with self.assertRaisesRegex(merge.MergeError, "times no launcher 'device-to-device copy'.*'renamed'"):
            merge.merge(self.figure, broken)
        del broken[key]
        with self.assertRaisesRegex(merge.MergeError, "no records"):
            merge.merge(self.figure, broken)
        mixed = copy.deepcopy(self.results)
        mixed[key]["records"][0]["launchers"][0]["rate_unit"] = "GFLOP/s"
        with self.assertRaisesRegex(merge.MergeError, "different units"):
            merge.merge(self.figure, mixed)

    def test_notes_reach_their_points_and_the_docs(self):
        """A record's notes and its launcher's (which win) become the point's "notes", which the docs quote with
        data/NAME:"SERIES"@X.notes.KEY (docs/tools/measured_numbers.py); a point with no notes has none."""
        key = next(iter(self.results))
        record = self.results[key]["records"][1]
        record["notes"] = {"shared_per_sm_bytes": 233472, "blocks_per_sm": 0, "error": "cudaErrorInvalidValue"}
        record["launchers"][0]["notes"] = {"blocks_per_sm": 2, "registers": 127}
        data = merge.merge(self.figure, self.results)
        data = json.loads(merge.dumps(data))
        series = next(s for s in data["series"] if s["launcher"] == record["launchers"][0]["name"])
        x = record["sizes"][self.figure.tables[0].sweep.x[0]]
        point = next(p for p in series["points"] if p["x"] == x)
        self.assertEqual(
            point["notes"],
            {"shared_per_sm_bytes": 233472, "blocks_per_sm": 2, "error": "cudaErrorInvalidValue", "registers": 127},
        )
        self.assertNotIn("notes", series["points"][0])
        sys.path.insert(0, str(ROOT / "docs" / "tools"))
        import measured_numbers

        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "docs" / "data").mkdir(parents=True)
            (Path(tmp) / "docs" / "data" / "fig.json").write_text(json.dumps(data), encoding="utf-8")
            numbers = measured_numbers.Data(tmp)
            ref = (
                f'data/fig:"{series["name"]}"@{x}.notes.registers / data/fig:"{series["name"]}"@{x}.notes.blocks_per_sm'
            )
            self.assertEqual(measured_numbers.evaluate(ref, numbers), 127 / 2)


FAKE_NCU = """#!/bin/sh
# Writes what ncu --csv writes for two launches of each kernel (the first ones count), to --log-file.
while [ "$1" != "--log-file" ]; do shift; done
cat > "$2" <<'CSV'
==PROF== Connected to process
"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","unpadded_gemm_kernel","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","1,879,325,851"
"0","unpadded_gemm_kernel","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","944884"
"1","void padded_gemm_kernel(float *)","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","737341"
"1","void padded_gemm_kernel(float *)","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","2583092"
"2","tiled_gemm_kernel<32>","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","185470"
"2","tiled_gemm_kernel<32>","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","2636032"
"3","unpadded_gemm_kernel","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","5"
CSV
"""


class NcuCounts(unittest.TestCase):
    """ncu.py adds Nsight Compute's counts to the series that name a kernel (a stand-in ncu writes the CSV)."""

    def test_counts_reach_their_series(self):
        figures, runs = sweeps.plan(manifest.load_labs(ROOT), figures=("bank_conflicts",))
        figure = figures[0]
        results = {}
        for key, values in runs.items():
            names = [s.launcher for t in figure.tables for s in t.sweep.series if t.run_key(s.subject) == key]
            results[key] = fake_run(key, values, names, "GFLOP/s")
        data = merge.merge(figure, results)
        with tempfile.TemporaryDirectory() as tmp:
            fake = Path(tmp) / "ncu"
            fake.write_text(FAKE_NCU, encoding="utf-8")
            fake.chmod(0o755)
            programs = {k.lab: {s.subject: "/bin/true" for s in runs if s.lab == k.lab} for k in runs}
            path = os.environ["PATH"]
            os.environ["PATH"] = f"{tmp}:{path}"
            try:
                summary = ncu.add_counts(data, figure, programs, Path(tmp))
            finally:
                os.environ["PATH"] = path
        counted = {s["name"]: s["ncu"] for s in data["series"] if "ncu" in s}
        self.assertEqual(len(counted), 4, summary)
        self.assertEqual(counted["unpadded (lab 04 baseline)"]["load_conflicts"], 1879325851)
        self.assertEqual(counted["both tiles padded (lab 04 variant)"]["kernel"], "padded_gemm_kernel")
        self.assertEqual(counted["tiled 32, row-walking warps (lab 03)"]["store_conflicts"], 2636032)
        self.assertEqual((data["ncu_bank_conflicts"]["size"], data["ncu_bank_conflicts"]["counted"]), (2048, 4))
        self.assertNotIn("error", data["ncu_bank_conflicts"])


@unittest.skipUnless(os.environ.get("COURSE_BENCH_PROGRAMS"), "COURSE_BENCH_PROGRAMS is not set (ctest sets it)")
class Smoke(unittest.TestCase):
    def test_cpu_program_through_the_driver(self):
        build = Path(os.environ["COURSE_BENCH_PROGRAMS"]).resolve().parents[2]
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "data"
            cmd = [
                sys.executable,
                str(Path(__file__).with_name("run_bench.py")),
                "--build",
                str(build),
                "--backend",
                "cpu",
                "--out",
                str(out),
                "--work",
                str(Path(tmp) / "work"),
                "--figure",
                "matadd",
                "--subject",
                "01:solution",
                "--values",
                "16,32",
                "--size",
                "cols=64",
                "--runs",
                "2",
                "--warmup",
                "1",
                "--ncu",
                "off",
            ]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            data = json.loads((out / "matadd.json").read_text(encoding="utf-8"))
        self.assertEqual(list(data)[: len(merge.HEADER)], list(merge.HEADER))
        self.assertEqual(
            (data["figure"], data["arch"], data["metric"], data["x_label"]), ("matadd", "cpu", "GB/s", "elements")
        )
        self.assertEqual((data["timing"]["runs"], data["timing"]["warmup"]), (2, 1))
        lab = next(lab for lab in manifest.load_labs(ROOT) if lab.number == "01")
        expected = [s for s in lab.bench[0].series if s.subject == "solution"]
        self.assertEqual([s["name"] for s in data["series"]], [s.name for s in expected])
        self.assertEqual([s["name"] for s in data["series"]], ["device-to-device copy", "reference (float4)"])
        self.assertEqual([s["source"] for s in data["series"]], ["cudaMemcpyAsync", "solutions/01_matadd/matadd.cu"])
        for s in data["series"]:
            self.assertLessEqual(SERIES_KEYS, set(s))
            self.assertEqual([p["x"] for p in s["points"]], [16 * 64, 32 * 64])
            for p in s["points"]:
                self.assertEqual(set(p), POINT_KEYS)
                self.assertGreater(p["value"], 0)
                self.assertLessEqual(p["min_ms"], p["ms"])
                self.assertLessEqual(p["ms"], p["max_ms"])


if __name__ == "__main__":
    unittest.main()
