"""The sandbox (course_grader.sandbox, runner.run_sandboxed / run_gtest): real attacks, compiled with g++, fail in it.

Each attack first runs without the sandbox (a control: it works there), then in the test sandbox, where it must fail.
Needs bwrap and g++ (skipped without them); the GoogleTest case needs libgtest-dev.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from helpers import COURSE, LAB01

from course_grader import build_tree, runner, sandbox

CASES = Path(__file__).resolve().parent / "sandbox_cases"
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "COURSE_SEED": "seed-passed-on-purpose"}
OFF = sandbox.Policy(False)


def _compile(out: Path, source: str, *libs: str) -> Path | None:
    c = subprocess.run(["g++", "-O0", "-o", str(out), str(CASES / source), *libs], capture_output=True, text=True)
    return out if c.returncode == 0 else None


class Attacks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("bwrap") or not shutil.which("g++"):
            raise unittest.SkipTest("needs bwrap and g++")
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._tmp.name)
        cls.tmp.chmod(0o755)  # the sandbox's user (nobody, when the tests run as root) reads the programs here
        try:
            cls.policy = sandbox.setup(False, (cls.tmp,))
        except sandbox.SandboxError as e:
            cls._tmp.cleanup()
            raise unittest.SkipTest(str(e))
        cls.attack = _compile(cls.tmp / "attack", "attack.cpp")
        cls.forged = _compile(cls.tmp / "forged", "forged_report.cpp", "-lgtest", "-lgtest_main", "-pthread")
        if cls.attack is None:
            cls._tmp.cleanup()
            raise unittest.SkipTest("attack.cpp does not compile here")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def setUp(self):
        self.run_dir = Path(tempfile.mkdtemp(dir=self.tmp))
        self.run_dir.chmod(0o755)

    def run_attack(self, mode: str, arg: str = "", policy=None, limits=None, env=ENV) -> str:
        """The attack's output, run in the test sandbox (or under `policy`, e.g. OFF)."""
        work = self.run_dir / f"{mode}-{'off' if policy is OFF else 'on'}"
        limits = limits or sandbox.run_limits(20, 1 << 20, gpu=False)
        box = sandbox.run_box(self.attack, work, env, limits)
        c = runner.run_sandboxed(
            [str(self.attack), mode, arg],
            box,
            cwd=work,
            timeout=20,
            log=work / "output.log",
            policy=policy or self.policy,
        )
        self.assertFalse(c.timed_out)
        return c.output_tail

    def test_writing_outside_the_run_folder(self):
        outside = self.run_dir / "outside"
        outside.mkdir()
        outside.chmod(0o777)  # writable by anyone on the host: only the sandbox stands in the way
        self.assertIn("write: done", self.run_attack("write", str(outside / "control"), OFF))
        self.assertTrue((outside / "control").exists())
        for target in (outside / "pwned", self.attack.parent / "pwned", Path("/tmp") / f"pwned-{os.getpid()}"):
            out = self.run_attack("write", str(target))
            self.assertFalse(target.exists(), f"{target}: {out}")
        # its own run folder is writable, but private: nothing stays on the host
        work = self.run_dir / "write-on"
        self.assertIn("write: done", self.run_attack("write", "mine"))
        self.assertIn("write: done", self.run_attack("write", str(sandbox.RUN_FOLDER / "mine")))
        self.assertFalse((work / "mine").exists())

    def test_shell_command_through_system(self):
        target = Path("/tmp") / f"pwned-system-{os.getpid()}"
        self.assertIn("system: 0", self.run_attack("system", str(target), OFF))
        self.assertTrue(target.exists())
        target.unlink()
        self.run_attack("system", str(target))
        self.assertFalse(target.exists())

    def test_setsid_child_dies_with_the_sandbox(self):
        self.run_dir.chmod(0o777)
        start = time.monotonic()
        self.assertIn("setsid: parent exits", self.run_attack("setsid", str(self.run_dir / "late-off"), OFF))
        out = self.run_attack("setsid", str(self.run_dir / "late"))
        self.assertIn("setsid: parent exits", out)
        self.assertLess(time.monotonic() - start, 5)  # each run ends with its first process
        time.sleep(1.5)
        # without the sandbox the child outlived the process group and wrote; in it, it died with the sandbox
        self.assertTrue((self.run_dir / "late-off").exists())
        self.assertIn("late child", (self.run_dir / "setsid-off" / "output.log").read_text())
        self.assertNotIn("late child", (self.run_dir / "setsid-on" / "output.log").read_text())
        self.assertFalse((self.run_dir / "late").exists())

    def test_no_network(self):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = str(server.getsockname()[1])
        try:
            self.assertIn("connect: connected", self.run_attack("connect", port, OFF))
            self.assertIn("connect: Connection refused", self.run_attack("connect", port))
        finally:
            server.close()

    def test_environment_is_the_allowlist_only(self):
        os.environ["COURSE_GRADER_SECRET"] = "grader-secret"
        try:
            out = self.run_attack("env")
        finally:
            del os.environ["COURSE_GRADER_SECRET"]
        names = {line.split("=", 1)[0][5:] for line in out.splitlines() if line.startswith("env: ")}
        self.assertNotIn("grader-secret", out)
        # exactly what the grader passed; COURSE_SEED among it on purpose (the harness needs it until the
        # judge/worker split: docs/grader.md, Isolation)
        self.assertEqual(names - {"PWD"}, set(ENV))  # (bwrap sets PWD to the run folder)

    def test_a_run_cannot_tell_its_folder(self):
        """A perf run (host folder perf-N) and a correctness run (host folder gpu) look the same from inside: the
        run folder, HOME, TMPDIR and the sandbox's own command line (/proc/1/cmdline) name neither."""
        env = dict(ENV, HOME="", TMPDIR="")
        seen = []
        for name in ("gpu", "perf-1-Perf.Timed"):
            work = self.run_dir / name
            box = sandbox.run_box(
                self.attack,
                work,
                dict(env, HOME=str(work), TMPDIR=str(work)),
                sandbox.run_limits(20, 1 << 20, gpu=False),
            )
            c = runner.run_sandboxed(
                [str(self.attack), "where"], box, cwd=work, timeout=20, log=work / "output.log", policy=self.policy
            )
            self.assertIn("where: cwd=/run/course home=/run/course tmpdir=/run/course", c.output_tail)
            self.assertNotIn(name, c.output_tail)
            seen.append(c.output_tail)
        self.assertEqual(seen[0], seen[1])
        # without the sandbox the run folder is the host folder, HOME and TMPDIR included
        work = self.run_dir / "off"
        box = sandbox.run_box(
            self.attack, work, dict(env, HOME=str(work), TMPDIR=str(work)), sandbox.run_limits(20, 1 << 20, gpu=False)
        )
        c = runner.run_sandboxed([str(self.attack), "where"], box, cwd=work, timeout=20, log=work / "log", policy=OFF)
        self.assertIn(f"where: cwd={work} home={work} tmpdir={work}", c.output_tail)

    def test_library_folders_outside_the_system(self):
        """A test sandbox reads the prefix a program loads its libraries from (a carried Boost.Context), never the
        system again, a relative or missing folder, the program's own folder or one that holds a private path."""
        lib = self.run_dir / "prefix" / "lib"
        lib.mkdir(parents=True)
        rpath = f"{lib}:/usr/lib:$ORIGIN/x:{self.run_dir / 'gone'}:{self.run_dir}"
        exe = _compile(self.run_dir / "linked", "attack.cpp", f"-Wl,-rpath,{rpath}")
        self.assertIsNotNone(exe)
        self.assertEqual(sandbox.library_roots(exe), (lib.resolve(),))
        self.assertEqual(sandbox.library_roots(exe, (lib / "private",)), ())
        self.assertEqual(sandbox.library_roots(exe, (lib.parent,)), ())
        self.assertEqual(sandbox.library_roots(self.attack), ())  # no RUNPATH

    def test_limits_on_processes_and_memory(self):
        small = sandbox.Limits(memory_bytes=512 << 20, processes=32, file_bytes=1 << 20, cpu_seconds=20)
        forks = int(self.run_attack("fork", limits=small).split("fork: ")[1].split()[0])
        self.assertLess(forks, 32)
        self.assertIn("memory: refused", self.run_attack("memory", limits=small))

    def test_capabilities_are_dropped(self):
        """As root, bwrap would keep capabilities inside its user namespace: enough to remount a read-only bind
        read-write. --cap-drop ALL: the remount fails."""
        work = self.run_dir / "mount"
        folder = self.attack.parent
        box = sandbox.run_box(self.attack, work, ENV, sandbox.run_limits(20, None, False))
        script = f"mount -o remount,bind,rw {folder}; touch {folder}/remounted; grep CapEff /proc/self/status"
        c = runner.run_sandboxed(
            ["/bin/sh", "-c", script], box, cwd=work, timeout=20, log=work / "log", policy=self.policy
        )
        self.assertFalse((folder / "remounted").exists(), c.output_tail)
        self.assertIn("CapEff:\t0000000000000000", c.output_tail)

    def test_bwrap_failure_is_the_graders_problem(self):
        work = self.run_dir / "broken"
        box = sandbox.run_box(
            self.attack, work, ENV, sandbox.run_limits(20, None, False), read_only=(self.run_dir / "does-not-exist",)
        )
        with self.assertRaises(sandbox.SandboxError):
            runner.run_sandboxed(
                [str(self.attack), "env"], box, cwd=work, timeout=20, log=work / "log", policy=self.policy
            )

    def test_static_destructor_cannot_rewrite_the_report(self):
        if self.forged is None:
            self.skipTest("no GoogleTest to link")
        for policy in (self.policy, OFF):  # the report pipe protects with or without the sandbox
            sandbox.use(policy)
            honest = runner.run_gtest(
                self.forged,
                "*",
                workdir=self.run_dir / "honest",
                timeout=20,
                env=ENV,
                max_output_bytes=1 << 20,
                policy=policy,
            )
            self.assertTrue(honest.ok, honest.problem)
            self.assertEqual([(c.full_name, c.status) for c in honest.cases], [("Lab.Works", "failed")])
            forged = runner.run_gtest(
                self.forged,
                "*",
                workdir=self.run_dir / "forged",
                timeout=20,
                env={**ENV, "FORGE": "1"},
                max_output_bytes=1 << 20,
                policy=policy,
            )
            self.assertFalse(forged.ok)
            self.assertTrue(forged.completed.tampered)
            self.assertIn("not trusted", forged.problem)
        sandbox.use(None)


class Reports(unittest.TestCase):
    DOC = b'{"tests": 1, "testsuites": [{"name": "A", "testsuite": [{"name": "b", "result": "COMPLETED"}]}]}'

    def test_one_document_and_nothing_else(self):
        self.assertEqual(runner.split_report(self.DOC + b"\n"), (self.DOC.decode(), False))
        self.assertEqual(runner.split_report(b""), (None, False))
        self.assertEqual(runner.split_report(self.DOC[:40]), (None, False))  # cut short: a crash
        self.assertEqual(runner.split_report(self.DOC + b"{}"), (None, True))  # a destructor wrote after it
        self.assertEqual(runner.split_report(b"{}" + self.DOC), (None, True))  # an initializer wrote before it

    def test_gtest_report_wrapped_by_a_forger_is_tampered(self):
        """An initializer writes a prefix and a destructor a suffix, so that GoogleTest's report becomes a value
        inside a forged one: GoogleTest's report has no place for an object there."""
        case = b'{"name": "b", "result": "COMPLETED"'
        for prefix, suffix in (
            (b'{"testsuites": [], "name": ', b"}"),
            (b'{"testsuites": [', b"]}"),
            (b'{"testsuites": [{"name": "A", "testsuite": [' + case + b', "x": ', b"}]}]}"),
            (b'{"testsuites": [{"name": "A", "testsuite": [' + case + b', "failures": [', b"]}]}]}"),
        ):
            self.assertEqual(runner.split_report(prefix + self.DOC + suffix), (None, True), prefix)


class BuildSandbox(unittest.TestCase):
    """The build sandbox writes its tree, reads the course but not its solutions, variants or git history."""

    def test_reads_and_writes(self):
        if not shutil.which("bwrap"):
            self.skipTest("needs bwrap")
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            work.chmod(0o755)
            try:
                policy = sandbox.setup(False, (COURSE.repo_root, work))
            except sandbox.SandboxError as e:
                self.skipTest(str(e))
            tree = build_tree.BuildTree(COURSE, work, 0, "cpu", (LAB01,), 1)
            tree.dir.mkdir()
            (tree.student_dir / LAB01.folder).mkdir(parents=True)
            sandbox.give_to_sandbox(tree.dir, policy)
            sandbox.give_to_sandbox(tree.ccache, policy)
            repo = COURSE.repo_root.resolve()
            script = (
                f"touch {tree.dir}/built && echo tree-ok; "
                f"touch {tree.student_dir}/x 2>/dev/null || echo student-ro; "
                f"cat $(find {repo}/solutions {repo}/grader/labs/*/variants {repo}/grader/idioms "
                f"{repo}/grader/adversarial {repo}/grader/samples {repo}/grader/bench/cases -type f) 2>/dev/null "
                "| wc -c; "
                f"ls -a {repo}/.git | wc -l; head -c 10 {repo}/CMakeLists.txt"
            )
            c = runner.run_sandboxed(
                ["/bin/sh", "-c", script], tree._box(), cwd=work, timeout=30, log=work / "log", policy=policy
            )
            self.assertEqual(c.returncode, 0, c.output_tail)
            lines = c.output_tail.split("\n")
            # solutions and variants cannot be read (names kept); .git is an empty folder (. and ..)
            self.assertEqual(lines[:4], ["tree-ok", "student-ro", "0", "2"], c.output_tail)
            self.assertTrue((tree.dir / "built").exists())
            self.assertFalse((tree.student_dir / "x").exists())


if __name__ == "__main__":
    unittest.main()


class GiveToSandbox(unittest.TestCase):
    def test_a_file_removed_during_the_walk_is_skipped(self):
        # A compiler cache shared by two grading workers: the other's build removes its stats.lock while this walk
        # runs (seen in CI: FileNotFoundError stopped the whole class's grading).
        from unittest import mock

        with tempfile.TemporaryDirectory() as d:
            cache = Path(d) / "ccache"
            (cache / "7").mkdir(parents=True)
            (cache / "7" / "stats.lock").write_text("")
            (cache / "7" / "stats").write_text("")
            owned = []

            def lchown(p, uid, gid):
                if p.endswith("stats.lock"):
                    raise FileNotFoundError(p)
                owned.append(os.path.basename(p))

            policy = sandbox.Policy(True, "bwrap", uid=65534)
            with mock.patch.object(sandbox.os, "geteuid", return_value=0), mock.patch.object(
                sandbox.os, "lchown", lchown
            ):
                sandbox.give_to_sandbox(cache, policy)
            self.assertIn("stats", owned)
            self.assertIn("7", owned)
