"""What the adversarial suite checks besides the verdicts (run.py grades, then calls these; test_adversarial.py feeds
them fabricated outputs): traces of escapes (canary files, connections), the seed in any output, the grader's outputs
whole, the test logs within their size limit. Each check returns readable problem lines; none means it holds."""
from __future__ import annotations

import csv
import json
import os
import socket
import threading
from pathlib import Path

from course_grader.verdicts import PROBLEM_VERDICTS

CANARY = "course-canary"  # every attack's trace file starts with this name (escapes.toml)
PORTS = range(39900, 39910)  # the TCP ports esc_h_socket tries on 127.0.0.1
ABSTRACT = b"\0course-adversarial"  # the abstract Unix socket it tries
SYSTEM_PLACES = ("/tmp", "/var/tmp", "/dev/shm", "/root")  # where an escape drops a trace (top level only)
RUN_FILES = ("output.log", "report.json")  # what the grader itself keeps in a run folder


def canary_places(out: Path, work: Path, submissions: Path) -> tuple[list[Path], list[Path]]:
    """(folders to look into at the top level, folders to search through): the system's temporary and home folders,
    every folder above the run folders up to /, and the output, work-runs and submissions folders."""
    top = [Path(p) for p in SYSTEM_PLACES] + [Path.home()]
    runs = work / "runs"
    top += [p for p in (runs / "student" / "lab" / "mode").parents]
    deep = [out, runs, work / "scratch", submissions]
    return list(dict.fromkeys(top)), list(dict.fromkeys(deep))


def canaries(top: list[Path], deep: list[Path]) -> list[str]:
    found = []
    for folder in top:
        try:
            found += [str(p) for p in folder.iterdir() if p.name.startswith(CANARY)]
        except OSError:
            continue
    for folder in deep:
        for root, dirs, files in os.walk(folder):
            found += [os.path.join(root, n) for n in dirs + files if n.startswith(CANARY)]
    return [f"an escape left a trace outside the sandbox: {p}" for p in sorted(set(found))]


def remove_canaries(top: list[Path], deep: list[Path]) -> None:
    """Traces of an earlier run (which failed because of them), so that this run starts clean."""
    for line in canaries(top, deep):
        path = Path(line.rsplit(": ", 1)[1])
        if path.is_file() or path.is_symlink():
            path.unlink(missing_ok=True)


class Listeners:
    """TCP listeners on 127.0.0.1 at PORTS (those free) and the abstract Unix socket ABSTRACT; every connection that
    arrives is recorded. Nothing may arrive: the sandbox has a network of its own."""

    def __init__(self) -> None:
        self.sockets: list[socket.socket] = []
        self.arrived: list[str] = []
        self.problems: list[str] = []
        for port in PORTS:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            self.sockets.append(s)
        if not self.sockets:
            self.problems.append(f"no port of {PORTS.start}-{PORTS.stop - 1} is free: the network cannot be checked")
        u = socket.socket(socket.AF_UNIX)
        try:
            u.bind(ABSTRACT)
            self.sockets.append(u)
        except OSError as e:
            u.close()
            self.problems.append(f"cannot listen on @{ABSTRACT[1:].decode()} ({e}): is another suite run going on?")
        for s in self.sockets:
            s.listen(16)
            s.settimeout(0.5)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _take(self, s: socket.socket) -> bool:
        """Accepts one waiting connection of `s` and records it with what it sent; False when none was waiting."""
        try:
            conn, _ = s.accept()
        except (socket.timeout, OSError):
            return False
        with conn:
            conn.settimeout(1)
            try:
                data = conn.recv(256)
            except OSError:
                data = b""
        self.arrived.append(f"{s.getsockname()!r}: {data.decode('utf-8', 'replace').strip()!r}")
        return True

    def _accept(self) -> None:
        while not self._stop.is_set():
            for s in self.sockets:
                self._take(s)

    def close(self) -> list[str]:
        """Stops listening; the problems: a connection arrived, or the network could not be checked."""
        self._stop.set()
        self._thread.join(timeout=10)
        for s in self.sockets:  # what is still waiting in a queue
            s.setblocking(False)
            while self._take(s):
                pass
            s.close()
        return self.problems + [
            f"a connection from the sandbox reached the grading machine at {a}" for a in self.arrived
        ]


def _files(folder: Path):
    for root, _, files in os.walk(folder):
        for name in files:
            yield Path(root) / name


def seed_leaks(seed: str, out: Path, runs: list[Path]) -> list[str]:
    """Files of the outputs (out, without its work folder's build trees) and of the suite's run folders (the kept
    reports and logs) that contain the seed."""
    needle = seed.encode()
    work = out / ".work"
    places = [p for p in out.iterdir() if p != work] if out.is_dir() else []
    leaks = []
    for place in places + runs:
        for path in _files(place) if place.is_dir() else [place]:
            try:
                if needle in path.read_bytes():
                    leaks.append(f"the seed appears in {path}")
            except OSError:
                continue
    return leaks


def outputs_problems(out: Path, expected: dict[tuple[str, str], dict], since: float) -> list[str]:
    """The grader's outputs are whole and from this run: class.csv has one row per expected student x lab, class.json
    and every student's results.json parse and hold the student's labs, summary.md counts the submissions and lists
    every problem submission."""
    problems = []
    for name in ("class.csv", "class.json", "summary.md"):
        path = out / name
        if not path.is_file() or path.stat().st_mtime < since:
            problems.append(f"{path} was not written by this run")
    if problems:
        return problems
    with open(out / "class.csv", newline="", encoding="utf-8") as f:
        rows = [(r.get("student"), r.get("lab")) for r in csv.DictReader(f)]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    try:
        verdicts = {
            (r["student"], r["lab"]): r["verdict"] for r in json.loads((out / "class.json").read_text())["results"]
        }
    except (ValueError, KeyError, TypeError) as e:
        return [f"{out / 'class.json'} does not parse: {e}"]
    students = sorted({student for student, _ in expected})
    if f"\n{len(students)} submissions," not in summary:
        problems.append(f"summary.md does not count {len(students)} submissions")
    for student, lab in sorted(expected):
        if rows.count((student, f"lab{lab}")) != 1:
            problems.append(f"class.csv has {rows.count((student, f'lab{lab}'))} rows for {student} lab{lab}, not 1")
        verdict = verdicts.get((student, lab))
        if verdict is None:
            problems.append(f"class.json has no result for {student} lab{lab}")
        elif verdict in PROBLEM_VERDICTS and f"| {student} | lab{lab} | {verdict} |" not in summary:
            problems.append(f"summary.md does not list {student} lab{lab} ({verdict}) among the problem submissions")
        path = out / "results" / student / "results.json"
        try:
            tests = json.loads(path.read_text(encoding="utf-8"))["tests"]
            if not any(t.get("name", "").startswith(f"lab{lab} ") for t in tests):
                problems.append(f"{path} has no entry for lab{lab}")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            problems.append(f"{path} is not a whole results.json ({type(e).__name__}: {e})")
    return problems


def run_folder_problems(runs: list[Path], max_output_bytes: int) -> list[str]:
    """In the suite's run folders on the host, only the grader's own files (a sandbox writes its private tmpfs), and
    no log longer than the file-size limit the sandbox sets (plus what the judge itself writes)."""
    problems = []
    for folder in runs:
        for path in _files(folder):
            size = path.stat().st_size
            if path.name not in RUN_FILES:
                problems.append(f"{path} ({size} bytes) was left in a run folder")
            elif size > max_output_bytes + (1 << 20):
                problems.append(f"{path} has {size} bytes, past the limit of {max_output_bytes}")
    return problems
