"""Grading on Slurm without a cluster (course_grader/slurm.py, slurm_tasks.py): the shards, the submission (a fake
sbatch that records what it is given), a shard task (a fake one-machine grader) and the merge of fake shard records,
the failed-shard path included. The real cluster: grader/slurm/check_cluster.py (ctest course.grader.slurm)."""
import contextlib
import csv
import dataclasses
import io
import json
import os
import stat
import sys
import unittest
from pathlib import Path
from unittest import mock

from helpers import CORRECT, LAB01, LAB03, TempDirTest

from course_grader import cli, report, slurm, slurm_tasks
from course_grader.intake import Submission
from course_grader.verdicts import LabResult

FAKE_SBATCH = """#!/bin/sh
# records its arguments, answers with the next job id
n=$(cat "$FAKE_SLURM/next" 2>/dev/null || echo 100)
echo $((n + 1)) > "$FAKE_SLURM/next"
printf '%s\\n' "$*" >> "$FAKE_SLURM/sbatch.log"
echo "$n"
"""


def grade(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, err.getvalue()


class ShardsTest(unittest.TestCase):
    def test_split_is_sorted_balanced_and_stable(self):
        students = ["eve", "bob", "dan", "amy", "cat"]
        self.assertEqual(slurm.split(students, 2), [["amy", "bob", "cat"], ["dan", "eve"]])
        self.assertEqual(slurm.split(list(reversed(students)), 2), slurm.split(students, 2))
        self.assertEqual(slurm.split(students, 9), [[s] for s in sorted(students)])  # no empty shard
        self.assertEqual(slurm.split(students, 1), [sorted(students)])
        sizes = [len(s) for s in slurm.split([f"s{i:03}" for i in range(103)], 10)]
        self.assertEqual((sum(sizes), max(sizes) - min(sizes)), (103, 1))

    def test_resubmit_numbers(self):
        self.assertEqual(slurm.parse_shards("2,0,2", 3), [0, 2])
        for bad in ("3", "x", "", "-1"):
            with self.assertRaises(slurm.SlurmError):
                slurm.parse_shards(bad, 3)

    def test_every_one_machine_option_reaches_the_shards_or_is_handled(self):
        """A new grade.py option must be forwarded to the shard tasks (slurm.FORWARDED) or handled on purpose."""
        dests = set(vars(cli.parse_args([])))
        unknown = dests - set(slurm.FORWARDED) - slurm.HANDLED - slurm.OPTIONS
        self.assertEqual(unknown, set(), "add these options to slurm.FORWARDED (or slurm.HANDLED)")


class SubmitTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.subs = self.tmp / "input"
        for name in ("carol", "alice", "bob"):
            (self.subs / name / LAB01.folder).mkdir(parents=True)
            (self.subs / name / LAB01.folder / "matadd.cu").write_bytes(CORRECT)
        (self.subs / "dave.zip").write_bytes(b"not a zip")  # a corrupt archive is still a student
        (self.subs / "notes.txt").write_text("not a submission")
        self.out = self.tmp / "out"
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        for name, text in (("sbatch", FAKE_SBATCH), ("sinfo", "#!/bin/sh\necho 'course up'\n")):
            (bin_dir / name).write_text(text)
            (bin_dir / name).chmod(0o755)
        env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_SLURM": str(self.tmp)}
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)

    def sbatch_calls(self) -> list[str]:
        return (self.tmp / "sbatch.log").read_text().splitlines()

    def test_submit_writes_the_plan_and_submits_an_array_then_a_merge(self):
        rc, err = grade(
            [
                str(self.subs),
                "--out",
                str(self.out),
                "--slurm",
                "--shards",
                "2",
                "--labs",
                "01",
                "--backend",
                "cpu",
                "--seed",
                "s3cr3t-seed",
            ]
        )
        self.assertEqual(rc, 0, err)
        self.assertIn("submitted shard array 100", err)
        self.assertIn("squeue -j 100,101", err)
        plan = slurm.load_plan(self.out)
        self.assertEqual([s["students"] for s in plan["shards"]], [["alice", "bob"], ["carol", "dave"]])
        self.assertEqual(plan["shards"][1]["entries"], ["carol", "dave.zip"])
        self.assertEqual(plan["ignored"], ["notes.txt: not a folder or an archive (ignored)"])
        self.assertEqual(plan["options"][:2], ["--backend", "cpu"])
        self.assertEqual(plan["jobs"][0]["array"], "100")
        array, merge = self.sbatch_calls()
        self.assertIn("--array=0-1", array)
        self.assertTrue(array.endswith("shard.sbatch"))
        self.assertIn("--dependency=afterany:100", merge)
        self.assertNotIn("--gres", array)
        # the copies the shards grade, and the seed: in a file only the user reads, on no command line or script
        self.assertTrue((self.out / ".slurm/input/1/dave.zip").is_file())
        self.assertEqual((self.out / ".slurm/input/0/bob/01_matadd/matadd.cu").read_bytes(), CORRECT)
        seed = self.out / ".slurm" / "seed"
        self.assertEqual((seed.read_text(), stat.S_IMODE(seed.stat().st_mode)), ("s3cr3t-seed", 0o600))
        scripts = "".join(p.read_text() for p in (self.out / ".slurm").glob("*.sbatch"))
        for text in (scripts, "".join(self.sbatch_calls()), (self.out / ".slurm/plan.json").read_text(), err):
            self.assertNotIn("s3cr3t-seed", text)

    def test_gpu_backend_asks_for_a_gpu_per_task(self):
        rc, err = grade(
            [
                str(self.subs),
                "--out",
                str(self.out),
                "--slurm",
                "--labs",
                "01",
                "--backend",
                "gpu",
                "--partition",
                "gpu",
                "--slurm-args",
                "--time=1:00:00 --account=c42",
            ]
        )
        self.assertEqual(rc, 0, err)
        array, merge = self.sbatch_calls()
        self.assertIn("--array=0-3", array)  # 4 students, 4 shards by default
        self.assertIn("--gres gpu:1", array)
        self.assertNotIn("--gres", merge)
        for call in (array, merge):
            self.assertIn("--partition gpu", call)
            self.assertIn("--time=1:00:00 --account=c42", call)

    def test_resubmit_runs_one_shard_again_then_the_merge(self):
        grade([str(self.subs), "--out", str(self.out), "--slurm", "--shards", "2", "--labs", "01", "--backend", "cpu"])
        (self.out / "shards" / "1").mkdir(parents=True)
        (self.out / "shards" / "1" / "shard.json").write_text("{}")  # what the failed attempt left
        rc, err = grade(["--out", str(self.out), "--slurm-resubmit", "1"])
        self.assertEqual(rc, 0, err)
        array, merge = self.sbatch_calls()[2:]
        self.assertIn("--array=1 ", array)
        self.assertIn("--dependency=afterany:102", merge)
        self.assertFalse((self.out / "shards" / "1").exists())
        self.assertEqual([j["shards"] for j in slurm.load_plan(self.out)["jobs"]], [[0, 1], [1]])

    def test_a_run_that_has_not_ended_is_left_alone(self):
        grade([str(self.subs), "--out", str(self.out), "--slurm", "--labs", "01", "--backend", "cpu"])
        with mock.patch.object(slurm_tasks, "job_state", return_value=("PENDING", "0:0")) as state:
            for argv in (
                [str(self.subs), "--out", str(self.out), "--slurm"],
                ["--out", str(self.out), "--slurm-resubmit", "0"],
            ):
                rc, err = grade(argv)
                self.assertEqual((rc, "has not ended (merge job 101)" in err), (2, True), err)
        state.assert_called_with("101")
        self.assertEqual(len(self.sbatch_calls()), 2)

    def test_clear_messages(self):
        os.environ["PATH"] = str(self.tmp / "nothing")  # no Slurm here
        rc, err = grade([str(self.subs), "--out", str(self.out), "--slurm"])
        self.assertEqual(rc, 2)
        self.assertIn("sbatch is not on PATH: this machine is not a Slurm submit host", err)
        self.assertFalse(self.out.exists())
        rc, err = grade([str(self.subs), "--out", str(self.out), "--shards", "2"])
        self.assertEqual((rc, "go with --slurm" in err), (2, True))
        rc, err = grade(["--out", str(self.out), "--slurm-resubmit", "1"])
        self.assertEqual((rc, "no Slurm run in" in err), (2, True))


def result(student: str, lab: str, verdict: str = "correct", score: float = 6.0) -> LabResult:
    return LabResult(
        student,
        lab,
        verdict,
        f"{verdict} for {student}",
        correctness="pass",
        correctness_score=score,
        correctness_max=6.0,
        perf_max=4.0,
        seconds=1.5,
    )


class MergeTest(TempDirTest):
    """Two shards of three students, labs 01 and 03; the shard records are written as a shard task writes them."""

    def setUp(self):
        super().setUp()
        self.out = self.tmp / "out"
        (self.out / ".slurm").mkdir(parents=True)
        self.plan = {
            "out": str(self.out),
            "work": str(self.tmp / "work"),
            "options": [],
            "config": str(slurm.config.DEFAULT_CONFIG),
            "labs": ["01", "03"],
            "backend": "cpu",
            "plots": False,
            "ignored": ["notes.txt: not a folder or an archive (ignored)"],
            "shards": [
                {"students": ["amy", "bob"], "entries": ["amy", "bob.zip"]},
                {"students": ["cat"], "entries": ["cat"]},
            ],
            "jobs": [{"array": "41", "merge": "42", "shards": [0, 1]}],
        }
        self.results = [
            result("amy", "01"),
            result("amy", "03", "wrong", 0.0),
            result("bob", "01"),
            result("bob", "03", "missing", 0.0),
            result("cat", "01", "build-error", 0.0),
            result("cat", "03"),
        ]
        self.subs = [
            Submission("amy", "amy", notes=["ignored 1 file(s) that are not lab files"]),
            Submission("bob", "bob.zip"),
            Submission("cat", "cat"),
        ]
        self.labs = (LAB01, LAB03)

    def shard(self, k: int, students: list[str]) -> None:
        """What a shard task leaves when it has graded `students` (its one-machine grader faked)."""
        results = [r for r in self.results if r.student in students]
        subs = [s for s in self.subs if s.student in students]

        def fake_main(argv):
            self.assertIn("--seed", argv)
            report.write_all(results, subs, self.labs, [], "cpu", Path(argv[argv.index("--out") + 1]), plots=False)
            return 0

        (self.out / ".slurm" / "seed").write_text("seed")
        with mock.patch.object(slurm_tasks.cli, "main", fake_main), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(slurm_tasks.run_shard(self.plan, k), 0)

    def merge(self) -> str:
        err = io.StringIO()
        with mock.patch.object(slurm_tasks, "job_state", return_value=("", "")), contextlib.redirect_stderr(err):
            self.assertEqual(slurm_tasks.merge(self.plan), 0)
        return err.getvalue()

    def test_merged_outputs_are_what_one_machine_writes(self):
        self.shard(0, ["amy", "bob"])
        self.shard(1, ["cat"])
        self.merge()
        one = self.tmp / "one"
        report.write_all(self.results, self.subs, self.labs, self.plan["ignored"], "cpu", one, plots=False)
        for name in ("class.csv", "summary.md", "results/amy/results.json", "results/cat/results.json"):
            self.assertEqual((self.out / name).read_text(), (one / name).read_text(), name)
        self.assertEqual(json.loads((self.out / ".slurm" / "merge.json").read_text())["failed"], {})
        record = json.loads((self.out / "shards" / "0" / "shard.json").read_text())
        self.assertEqual(record["results"][0], dataclasses.asdict(self.results[0]))  # every field, timing included

    def test_a_failed_shard_leaves_its_students_not_graded_with_the_reason(self):
        self.shard(0, ["amy", "bob"])
        err = self.merge()  # shard 1 left nothing at all
        rows = list(csv.DictReader((self.out / "class.csv").read_text().splitlines()))
        self.assertEqual(
            [(r["student"], r["lab"]) for r in rows],
            [(s, f"lab{n}") for s in "amy bob cat".split() for n in ("01", "03")],
        )
        cat = [r for r in rows if r["student"] == "cat"]
        self.assertEqual({r["verdict"] for r in cat}, {"not-graded"})
        self.assertIn("shard 1 produced no results", cat[0]["message"])
        self.assertIn("shard 1", err)
        self.assertEqual(rows[0]["verdict"], "correct")
        merged = json.loads((self.out / ".slurm" / "merge.json").read_text())
        self.assertEqual(list(merged["failed"]), ["1"])
        self.assertIn("not-graded", (self.out / "results" / "cat" / "results.json").read_text())

    def test_the_reason_is_the_shards_own_error_or_the_state_slurm_gives(self):
        def failing_main(argv):
            print("grade.py: grading stopped: configuring the grading build tree failed", file=sys.stderr)
            return 2

        (self.out / ".slurm" / "seed").write_text("seed")
        with mock.patch.object(slurm_tasks.cli, "main", failing_main), contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(slurm_tasks.run_shard(self.plan, 1), 1)
        with mock.patch.object(slurm_tasks, "job_state", return_value=("FAILED", "1:0")):
            why = slurm_tasks.why_failed(self.plan, 1)
        self.assertEqual(
            why, "grading stopped: configuring the grading build tree failed (Slurm job 41_1: FAILED, " "exit code 1:0)"
        )
        status = self.out / "shards" / "1" / "status.json"
        status.write_text(json.dumps({"state": "running", "host": "node7"}))  # the node died mid-shard
        with mock.patch.object(slurm_tasks, "job_state", return_value=("NODE_FAIL", "0:0")) as state:
            why = slurm_tasks.why_failed(self.plan, 1)
        state.assert_called_once_with("41_1")
        self.assertEqual(why, "the task stopped while grading on node7 (Slurm job 41_1: NODE_FAIL, exit code 0:0)")

    def test_a_record_without_all_its_students_is_not_used(self):
        self.shard(0, ["amy", "bob"])
        record = self.out / "shards" / "0" / "shard.json"
        data = json.loads(record.read_text())
        data["results"] = data["results"][1:]
        record.write_text(json.dumps(data))
        self.assertIsNone(slurm_tasks.read_record(self.plan, 0, ("01", "03")))
        self.assertIn("does not hold its students", slurm_tasks.why_failed(self.plan, 0))


if __name__ == "__main__":
    unittest.main()
