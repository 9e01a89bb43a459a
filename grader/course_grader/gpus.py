"""The GPUs: which ones nvidia-smi lists, and a health probe (grader/tools/gpu_health.cu, a tiny known-good program
compiled once with nvcc) that tells a GPU fault from a student's bug."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

from . import runner


def detect_gpus() -> tuple[str, ...]:
    """The indices of the usable GPUs ('0', '1', ...), honouring CUDA_VISIBLE_DEVICES; () without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return ()
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if out.returncode != 0:
        return ()
    ids = tuple(m.group(1) for m in re.finditer(r"^GPU (\d+):", out.stdout, re.M))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and ids:
        ids = tuple(v.strip() for v in visible.split(",") if v.strip())
    return ids


def probe_env(home: Path, gpu: str) -> dict[str, str]:
    return {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "TMPDIR": str(home),
            "CUDA_VISIBLE_DEVICES": gpu}


class HealthProbe:
    """Runs the known-good program on one GPU (three tries, with pauses). Thread-safe; compiles it on first use."""

    def __init__(self, repo_root: Path, work: Path):
        self.source = repo_root / "grader" / "tools" / "gpu_health.cu"
        self.work = work
        self.exe: Path | None = None
        self.unavailable = False  # nvcc could not build it: every GPU counts as healthy rather than stop grading
        self.lock = threading.Lock()

    def _build(self) -> Path | None:
        with self.lock:
            if self.exe is None and not self.unavailable:
                exe = self.work / "gpu_health"
                c = runner.run(["nvcc", "-o", str(exe), str(self.source)], cwd=self.work, timeout=300,
                               log=self.work / "gpu_health_build.log")
                if c.returncode == 0:
                    self.exe = exe
                else:
                    self.unavailable = True
            return self.exe

    def healthy(self, gpu: str) -> bool:
        exe = self._build()
        if exe is None:
            return True
        for attempt in range(3):
            c = runner.run([str(exe)], cwd=self.work, timeout=60, env=probe_env(self.work, gpu),
                           log=self.work / f"gpu_health-{gpu}.log")
            if c.returncode == 0:
                return True
            time.sleep(5 * (attempt + 1))
        return False
