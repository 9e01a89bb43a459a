"""Running untrusted programs: timeouts kill the process group, children included."""
import os
import sys
import time
import unittest

from helpers import TempDirTest

from course_grader import runner

ENV = {"PATH": "/usr/bin:/bin"}


class Run(TempDirTest):
    def test_timeout_kills_the_whole_group(self):
        pidfile = self.tmp / "child.pid"
        start = time.monotonic()
        c = runner.run(
            ["/bin/sh", "-c", f"sleep 300 & echo $! > {pidfile}; while :; do :; done"],
            cwd=self.tmp,
            timeout=1.0,
            env=ENV,
        )
        self.assertTrue(c.timed_out)
        self.assertLess(time.monotonic() - start, 30)
        child = int(pidfile.read_text())
        time.sleep(0.2)
        with open(f"/proc/{child}/stat") if os.path.exists(f"/proc/{child}/stat") else open(os.devnull) as f:
            state = f.read().split()
        self.assertTrue(not state or state[2] == "Z", f"child {child} still running: {state}")

    def test_child_that_ignores_sigterm_is_killed(self):
        c = runner.run(
            [
                sys.executable,
                "-c",
                "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" "time.sleep(300)",
            ],
            cwd=self.tmp,
            timeout=1.0,
            env=ENV,
        )
        self.assertTrue(c.timed_out)

    def test_output_tail_and_exit(self):
        c = runner.run(["/bin/sh", "-c", "echo hello; exit 3"], cwd=self.tmp, timeout=10, env=ENV)
        self.assertEqual((c.returncode, c.timed_out), (3, False))
        self.assertIn("hello", c.output_tail)


if __name__ == "__main__":
    unittest.main()
