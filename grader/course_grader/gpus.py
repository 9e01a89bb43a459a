"""The GPUs: which ones nvidia-smi lists, the device nodes a sandbox needs for one of them, compute-sanitizer (the
race and memory check where the tree has no CPU backend), and a health probe (grader/tools/gpu_health.cu, a tiny
known-good program compiled once with nvcc) that tells a GPU fault from a student's bug."""
from __future__ import annotations

import functools
import glob
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


CONTROL_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools")


@functools.lru_cache(maxsize=None)
def _uuid_and_bus(gpu: str) -> tuple[str, str] | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--id={gpu}", "--query-gpu=uuid,pci.bus_id", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = [p.strip() for p in out.stdout.strip().split(",")]
    return (parts[0], parts[1]) if out.returncode == 0 and len(parts) == 2 and parts[0].startswith("GPU-") else None


def _minor(bus_id: str) -> int | None:
    """The /dev/nvidiaN number of the GPU at PCI `bus_id` (nvidia-smi writes 8 hex digits of domain, the driver 4)."""
    info = Path("/proc/driver/nvidia/gpus") / bus_id.lower()[-12:] / "information"
    try:
        m = re.search(r"^Device Minor:\s*(\d+)", info.read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def gpu_devices(gpu: str) -> tuple[tuple[str, ...], str]:
    """(the device nodes a sandbox binds for GPU `gpu`, the CUDA_VISIBLE_DEVICES value that names it). Its own node
    only, named by UUID (CUDA numbers the GPUs it sees from 0); where its node is unknown, every GPU node and the
    index, as without a sandbox."""
    control = tuple(n for n in CONTROL_NODES if os.path.exists(n))
    found = _uuid_and_bus(gpu)
    minor = _minor(found[1]) if found else None
    if found and minor is not None and os.path.exists(f"/dev/nvidia{minor}"):
        return control + (f"/dev/nvidia{minor}",), found[0]
    return control + tuple(sorted(n for n in glob.glob("/dev/nvidia[0-9]*") if n[11:].isdigit())), gpu


# ---- compute-sanitizer: where a tree has no CPU backend (no check mode) ----------------------------------------------

SANITIZER_TOOLS = ("racecheck", "memcheck", "synccheck")
SANITIZER_ERROR_EXIT = 97  # compute-sanitizer's exit status when it found an error (--error-exitcode)
SANITIZER_SLOWDOWN = 3  # its time limit: this many times the course's test_seconds
_SUMMARY = {
    # "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    "racecheck": re.compile(
        r"========= RACECHECK SUMMARY: (\d+) hazards? displayed " r"\((\d+) errors?, (\d+) warnings?\)"
    ),
    # "========= ERROR SUMMARY: 1025 errors" (and not "ERROR SUMMARY: 925 errors were not printed. ...")
    "other": re.compile(r"========= ERROR SUMMARY: (\d+) errors?(?! were)\b"),
}


def sanitizer() -> str | None:
    """compute-sanitizer on PATH or in the CUDA toolkit's usual place."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    default = "/usr/local/cuda/bin/compute-sanitizer"
    return default if os.access(default, os.X_OK) else None


def sanitizer_prefix(path: str, tool: str) -> tuple[str, ...]:
    return (path, "--tool", tool, "--error-exitcode", str(SANITIZER_ERROR_EXIT), "--print-limit", "20")


def sanitizer_verdict(output: str, returncode: int | None, tool: str) -> tuple[str, str]:
    """("clean" | "errors" | "unknown", what to tell) from a run under `compute-sanitizer --tool tool`. Its exit
    status decides errors (the program cannot fake it); its one summary line gives the count. A second summary
    line was printed by the program: errors. No summary and no error status: unknown (the tool failed)."""
    pattern = _SUMMARY["racecheck" if tool == "racecheck" else "other"]
    found = pattern.findall(output)
    errors = int(found[0][1] if tool == "racecheck" else found[0]) if len(found) == 1 else None
    if len(found) > 1:
        return "errors", f"{tool}: the program printed a summary line of compute-sanitizer's itself"
    if returncode == SANITIZER_ERROR_EXIT or errors:
        what = "race hazard" if tool == "racecheck" else "error"
        count = f"{errors} {what}{'s' if errors != 1 else ''}" if errors else f"{what}s"
        return "errors", f"compute-sanitizer --tool {tool} reported {count}"
    if errors == 0:
        return "clean", ""
    return "unknown", f"compute-sanitizer --tool {tool} wrote no summary (exit status {returncode})"


def probe_env(home: Path, gpu: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/cuda/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TMPDIR": str(home),
        "CUDA_VISIBLE_DEVICES": gpu,
    }


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
                c = runner.run(
                    ["nvcc", "-o", str(exe), str(self.source)],
                    cwd=self.work,
                    timeout=300,
                    log=self.work / "gpu_health_build.log",
                )
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
            c = runner.run(
                [str(exe)],
                cwd=self.work,
                timeout=60,
                env=probe_env(self.work, gpu),
                log=self.work / f"gpu_health-{gpu}.log",
            )
            if c.returncode == 0:
                return True
            time.sleep(5 * (attempt + 1))
        return False
