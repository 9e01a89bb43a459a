"""The sandbox around every process that compiles or runs student code: bubblewrap (bwrap).

Why bubblewrap: it is packaged everywhere (Debian, Ubuntu, Fedora: `bubblewrap`), needs no daemon, no image and no
root (it runs as an ordinary user through user namespaces), starts in ~15 ms, and gives exactly the pieces needed:
a new mount namespace built from explicit binds (read-only system, nothing else unless named), new PID, network,
IPC, UTS and user namespaces, capabilities dropped, a new session, and death with its parent. Docker/podman need a
daemon or images; nsjail and firejail are not packaged as widely; seccomp deny lists alone are deny lists.

What a sandboxed process sees (docs/grader.md, "Isolation"): /usr and the /bin, /lib... links read-only, a few files
of /etc, a fresh /proc and a minimal /dev (plus, on a GPU, only the NVIDIA device nodes of its GPU), a private
size-limited tmpfs on /tmp, its one writable folder, and the paths the grader names read-only. It has no network
(only its own loopback), cannot see or signal the grader's processes, and every process it starts dies with it
(its own PID namespace: when the first process exits, the namespace's init and all that is left are killed).
Resource limits (prlimit, applied inside): memory, processes, file size, CPU time. The environment is cleared to the
grader's short allowlist. When the grader runs as root, bwrap itself runs as user `nobody`, so the limit on
processes holds and root-owned files stay closed; the sandbox's folders are handed to that user.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from .verdicts import GraderError

SANDBOX_UID = 65534  # nobody / nogroup: the user bwrap runs as when the grader is root
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
)
GIB = 1 << 30
INSTALL_HINT = (
    "install it (sudo apt-get install bubblewrap); if it is installed, unprivileged user namespaces "
    "may be off (sudo sysctl kernel.unprivileged_userns_clone=1, and user.max_user_namespaces > 0); "
    "inside a container (Docker), the container must allow them and must not mask /proc (e.g. docker run "
    "--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined). "
    "To grade without a sandbox anyway, pass --no-sandbox: student code then runs with the grader's "
    "privileges, and every output records it"
)


class SandboxError(GraderError):
    """The sandbox cannot be made: grading stops (or, with --no-sandbox, goes on without one)."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed command (prlimit inside the sandbox)."""

    memory_bytes: int | None = None
    processes: int | None = None
    file_bytes: int | None = None
    cpu_seconds: int | None = None
    address_space: bool = True  # memory as RLIMIT_AS; False: RLIMIT_DATA (CUDA reserves huge address ranges)

    def prlimit(self) -> list[str]:
        out = ["prlimit", "--core=0"]
        if self.memory_bytes:
            out.append(f"--{'as' if self.address_space else 'data'}={self.memory_bytes}")
        if self.processes:
            out.append(f"--nproc={self.processes}")
        if self.file_bytes:
            out.append(f"--fsize={self.file_bytes}")
        if self.cpu_seconds:
            out.append(f"--cpu={self.cpu_seconds}")
        return out + ["--"]


def run_limits(timeout: float, file_bytes: int | None, gpu: bool) -> Limits:
    """A test program: 8 GiB of memory (data, not address space, on a GPU), 512 processes and threads, the course's
    file size limit, CPU time for every core during the wall-clock limit."""
    cpu = int(timeout * max(1, os.cpu_count() or 1)) + 10
    return Limits(8 * GIB, 512, file_bytes, cpu, address_space=not gpu)


def build_limits(timeout: float) -> Limits:
    return Limits(16 * GIB, 1024, 2 * GIB, int(timeout * max(1, os.cpu_count() or 1)) + 10, address_space=False)


@dataclasses.dataclass(frozen=True)
class Policy:
    enabled: bool
    bwrap: str = ""
    uid: int | None = None  # run bwrap as this user (the grader is root); None: as the grader
    as_root: bool = False  # the grader is root and bwrap could not run as `nobody`: no process limit
    problem: str = ""  # why the sandbox is off

    @property
    def note(self) -> str:
        """One line for every output (class.csv, summary.md, results.json)."""
        if not self.enabled:
            return "OFF (--no-sandbox): student code ran with the grader's privileges"
        return "bubblewrap" + (" (as root: no limit on processes)" if self.as_root else "")


_policy: Policy | None = None
_lock = threading.Lock()


def use(policy: Policy | None) -> Policy | None:
    """Sets the policy (tests; cli through setup()); returns the previous one."""
    global _policy
    with _lock:
        old, _policy = _policy, policy
    return old


def current() -> Policy:
    """The policy set at start-up; without one (a library caller), the sandbox is required."""
    if _policy is None:
        use(setup(False))
    assert _policy is not None
    return _policy


@functools.lru_cache(maxsize=None)
def _options(bwrap: str) -> frozenset[str]:
    """The options this bwrap knows (--disable-userns and --size came with 0.8)."""
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(w for w in text.split() if w.startswith("--"))


def _base(bwrap: str) -> list[str]:
    """Every namespace new (no network: only a loopback of its own), no capabilities (as root too: with them a
    sandbox could remount its read-only binds read-write), no new user namespaces inside, a new session (no
    terminal injection), killed with the grader."""
    disable = ["--disable-userns"] if "--disable-userns" in _options(bwrap) else []
    return [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        *disable,
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]


def _try(bwrap: str, uid: int | None, paths: tuple[Path, ...]) -> str:
    """'' when a trivial command runs in a sandbox that binds `paths`, else bwrap's complaint."""
    binds = [a for p in paths if p.exists() for a in ("--ro-bind", str(p), str(p))]
    cmd = (
        _base(bwrap)
        + _system()
        + ["--proc", "/proc", "--dev", "/dev", *binds, "--", "prlimit", "--nproc=64", "--", "true"]
    )
    try:
        c = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60, cwd="/", **_as_user(uid))
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    return "" if c.returncode == 0 else (c.stderr.strip() or f"exit status {c.returncode}")


def setup(no_sandbox: bool, paths: tuple[Path, ...] = ()) -> Policy:
    """Probes once that bwrap works (binding `paths`: the course and the work folder). Raises SandboxError with what
    to install, unless `no_sandbox`: then the policy is off and says so."""
    if no_sandbox:
        return Policy(False, problem="--no-sandbox")
    bwrap = shutil.which("bwrap") or ""
    if not bwrap:
        raise SandboxError(f"bubblewrap (bwrap) is not installed, so student code cannot be sandboxed: {INSTALL_HINT}")
    if not shutil.which("prlimit", path="/usr/bin:/bin"):
        raise SandboxError("prlimit is missing (it sets the sandbox's limits): sudo apt-get install util-linux")
    paths = tuple(Path(p).resolve() for p in paths)
    if os.geteuid() == 0:
        if not _try(bwrap, SANDBOX_UID, paths):
            return Policy(True, bwrap, SANDBOX_UID)
        if not _try(bwrap, None, paths):
            print(
                f"grade.py: the sandbox cannot run as user nobody (uid {SANDBOX_UID}; can it read "
                f"{', '.join(map(str, paths)) or '/'}?): it runs as root with every capability dropped, without a "
                "limit on processes",
                file=sys.stderr,
            )
            return Policy(True, bwrap, None, as_root=True)
    why = _try(bwrap, None, paths)
    if why:
        raise SandboxError(f"bubblewrap does not work here ({why}): {INSTALL_HINT}")
    return Policy(True, bwrap)


def _as_user(uid: int | None) -> dict:
    if uid is None or os.geteuid() != 0:
        return {}
    return {"user": uid, "group": uid, "extra_groups": []}


def give_to_sandbox(path: Path, policy: Policy | None = None) -> None:
    """A folder the sandbox must write (a build tree, its compiler cache): owned by the sandbox's user."""
    policy = policy or current()
    path.mkdir(parents=True, exist_ok=True)  # it must exist to be bound, whoever the sandbox runs as
    if not policy.enabled or policy.uid is None or os.geteuid() != 0:
        return
    # The compiler cache is shared by the grading workers: a file another worker's build removes while this walk runs
    # (ccache's stats.lock) is gone, not an error.
    for root, dirs, files in os.walk(path):
        for entry in [root] + [os.path.join(root, name) for name in dirs + files]:
            try:
                os.lchown(entry, policy.uid, policy.uid)
            except FileNotFoundError:
                pass


# ---- what a sandbox binds -------------------------------------------------------------------------------------------


def _system() -> list[str]:
    """/usr and the merged-/usr links (or folders) read-only; the few /etc files that loaders and compilers read."""
    out: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            out += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            out += ["--ro-bind", d, d]
    for f in SYSTEM_FILES:
        out += ["--ro-bind-try", f, f]
    return out


def _files(path: Path) -> list[str]:
    """The regular files of a folder (links not followed), or the file itself."""
    if path.is_file() and not path.is_symlink():
        return [str(path)]
    return [
        os.path.join(root, f)
        for root, _, files in os.walk(path)
        for f in sorted(files)
        if os.path.isfile(os.path.join(root, f)) and not os.path.islink(os.path.join(root, f))
    ]


def _visible(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS + ("/etc/alternatives",))


def library_roots(exe: Path, exclude: tuple[Path, ...] = ()) -> tuple[Path, ...]:
    """The folders outside the system that `exe` loads shared libraries from (its RUNPATH or RPATH, read by readelf in
    a sandbox): a library installed under a prefix of its own (a Boost.Context carried to a GPU machine), for a test
    sandbox to read. A folder that holds `exe` itself, or holds or lies in one of `exclude` (the course's solutions,
    the grader's work folder), is never one: binding it would show them."""
    try:
        stamp = exe.stat().st_mtime_ns
    except OSError:
        return ()
    roots = []
    for d in _runpath(str(exe), stamp):
        p = Path(d)
        if not p.is_absolute() or not p.is_dir() or any(d == s or d.startswith(s + "/") for s in SYSTEM_DIRS):
            continue  # $ORIGIN/..., a folder that is gone, or the system (always there)
        p = p.resolve()
        if any(p == x or p in x.parents or x in p.parents for x in (exe.resolve(), *(x.resolve() for x in exclude))):
            continue
        roots.append(p)
    return tuple(roots)


@functools.lru_cache(maxsize=64)
def _runpath(exe: str, stamp: int) -> tuple[str, ...]:
    """RUNPATH and RPATH entries of `exe` (`stamp`: its mtime, so that a rebuilt program is read again)."""
    if not shutil.which("readelf"):
        return ()
    out = inspect(["readelf", "-d", exe], (Path(exe),), timeout=60).stdout
    found = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", out)
    return tuple(d for entry in found for d in entry.split(":") if d)


def tool_roots(programs: list[str]) -> tuple[Path, ...]:
    """Installation folders (<prefix> of <prefix>/bin/tool) of tools outside /usr, and of their script
    interpreters, so that e.g. a CMake or ninja installed by pip in /opt/venv works in the sandbox."""
    roots: list[Path] = []
    todo = [p for p in programs if p]
    for _ in range(8):
        if not todo:
            break
        prog, todo = todo[0], todo[1:]
        found = prog if os.path.isabs(prog) else shutil.which(prog)
        if not found or not os.path.exists(found):
            continue
        for p in {os.path.abspath(found), os.path.realpath(found)}:
            if not _visible(p) and Path(p).parent.parent not in roots:
                roots.append(Path(p).parent.parent)
        try:
            with open(os.path.realpath(found), "rb") as f:
                head = f.read(256)
        except OSError:
            continue
        if head.startswith(b"#!"):
            todo += head[2:].split(b"\n", 1)[0].decode(errors="replace").split()[:1]
    return tuple(roots)


@dataclasses.dataclass
class Box:
    """One sandbox: what it reads, writes and sees, as mounts in order (a later one covers an earlier one):
    ("ro", path) read-only bind, ("hide", path) masked (an empty tmpfs on a folder, /dev/null on a file),
    ("blank", path) no file in it can be read (/dev/null, on a nodev mount), names kept for CMake's globs,
    ("rw", path) read-write bind, ("tmp", path, size) a private tmpfs, ("dev", node) a device node."""

    cwd: Path
    env: dict[str, str]
    limits: Limits
    mounts: list[tuple] = dataclasses.field(default_factory=list)

    def add(self, kind: str, *paths, size: int = 0) -> "Box":
        for p in paths:
            self.mounts.append((kind, Path(p), size))
        return self


def command(box: Box, cmd: list[str], policy: Policy, status_fd: int | None) -> list[str]:
    """The bwrap command line that runs `cmd` in `box`; bwrap reports the command's exit on `status_fd` (if any)."""
    out = _base(policy.bwrap) + ["--clearenv"]
    for key, value in box.env.items():
        out += ["--setenv", key, value]
    out += _system() + ["--proc", "/proc", "--dev", "/dev"]
    hidden: list[Path] = []
    for kind, p, size in box.mounts:
        if kind == "ro":
            out += ["--ro-bind", str(p), str(p)]
        elif kind == "hide" and not any(h == p or h in p.parents for h in hidden):
            hidden.append(p)
            out += ["--tmpfs", str(p)] if p.is_dir() else ["--ro-bind", "/dev/null", str(p)] if p.exists() else []
        elif kind == "blank":
            for f in _files(p):
                out += ["--ro-bind", "/dev/null", f]
        elif kind == "rw":
            out += ["--bind", str(p), str(p)]
        elif kind == "tmp":
            out += (["--size", str(size)] if "--size" in _options(policy.bwrap) else []) + ["--tmpfs", str(p)]
        elif kind == "dev":
            out += ["--dev-bind", str(p), str(p)]
    status = ["--json-status-fd", str(status_fd)] if status_fd is not None else []
    return out + ["--chdir", str(box.cwd), *status, "--"] + box.limits.prlimit() + cmd


def inspect(cmd: list[str], files: tuple[Path, ...], stdin: str | None = None, timeout: float = 120):
    """Runs a read-only tool (readelf, objdump) on untrusted `files`, which `cmd` names by absolute path (a student's
    objects and programs): in a sandbox that reads the system and those files only, as the sandbox's user, without
    network and with no writable folder but a private /tmp. Parsers of binary formats have had bugs: none of this runs
    with the grader's rights. Returns the subprocess.CompletedProcess (text)."""
    policy = current()
    run_as: dict = {}
    if policy.enabled:
        limits = run_limits(timeout, 64 << 20, False)
        box = Box(cwd=Path("/"), env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, limits=limits)
        box.add("tmp", "/tmp", size=TMP_BYTES).add("ro", *files)
        cmd = command(box, cmd, policy, None)
        run_as = _as_user(policy.uid)
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="replace", timeout=timeout, **run_as)


RUN_FOLDER = Path("/run/course")  # a test's run folder, inside its sandbox
RUN_FOLDER_BYTES = 256 << 20  # the test's private run folder (a tmpfs: nothing it writes stays)
TMP_BYTES = 256 << 20  # its /tmp
BUILD_TMP_BYTES = 2 * GIB  # a build's /tmp (nvcc's intermediate files)


def run_box(
    exe: Path,
    workdir: Path,
    env: dict[str, str],
    limits: Limits,
    devices: tuple[str, ...] = (),
    read_only: tuple[Path, ...] = (),
) -> Box:
    """A test program's sandbox: reads the system, `exe` and `read_only` (the labs' manifests); writes a private run
    folder and a private /tmp; sees the device nodes `devices` (a GPU's) and no other device but /dev/null and
    friends. The run folder is at RUN_FOLDER whatever `workdir` is (the host folder that keeps the grader's output.log
    and report.json, out of its reach): its path, and HOME and TMPDIR where `env` had `workdir`, are the same in every
    run, so nothing there tells a perf run (folder perf-N) from a correctness run."""
    inside = {k: str(RUN_FOLDER) if v == str(workdir) else v for k, v in env.items()}
    box = Box(cwd=RUN_FOLDER, env=inside, limits=limits)
    box.add("tmp", "/tmp", size=TMP_BYTES)  # first: the host's /tmp may hold the paths below
    box.add("ro", exe, *read_only)
    box.add("tmp", RUN_FOLDER, size=RUN_FOLDER_BYTES)
    return box.add("dev", *devices)
