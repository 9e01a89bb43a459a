"""Shared test helpers: the package on sys.path, temporary folders, a small course configuration."""
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

GRADER = Path(__file__).resolve().parents[1]
if str(GRADER) not in sys.path:
    sys.path.insert(0, str(GRADER))

from course_grader import config, samples  # noqa: E402

COURSE = config.load()
LAB01 = COURSE.lab("01")
LAB03 = COURSE.lab("03")
# The command-line tests grade with the sandbox where bubblewrap is installed (CI: ./setup.sh installs it) and
# without it elsewhere (the GPU machines have no apt): what they test is the intake and the outputs, not the sandbox,
# which test_sandbox.py tests and skips with the reason where it cannot run.
NO_SANDBOX_ARGS = () if shutil.which("bwrap") else ("--no-sandbox",)
CORRECT = samples.source("correct", COURSE.labs).encode()  # generated from grader/samples/samples.toml


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def files_outside(self, allowed: Path) -> list[Path]:
        """Files under self.tmp that are not under `allowed` and not part of the test's own input."""
        return [
            p
            for p in self.tmp.rglob("*")
            if p.is_file() and allowed not in p.parents and "input" not in p.relative_to(self.tmp).parts
        ]
