"""Reading submissions safely: one folder, .zip or .tar.gz per student; only the allowed lab files are kept.

Nothing is ever extracted to disk: the allowed files are read into memory (with size limits) and written by the
grader itself into its scratch folder. Symlinks, hard links, devices, absolute paths and '..' members are never
followed; they are reported in the student's messages.
"""
from __future__ import annotations

import dataclasses
import os
import re
import stat
import tarfile
import zipfile
from pathlib import Path

from .config import Course
from .manifest import Lab

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_DEPTH = 6


@dataclasses.dataclass
class LabFiles:
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)  # file name -> content
    problem: str = ""  # non-empty: this lab cannot be graded, and why


@dataclasses.dataclass
class Submission:
    student: str  # safe identifier: [A-Za-z0-9._-]+
    source: str  # what it came from, printable (folder or archive name)
    labs: dict[str, LabFiles] = dataclasses.field(default_factory=dict)  # lab number -> files
    notes: list[str] = dataclasses.field(default_factory=list)  # non-fatal remarks
    problem: str = ""  # non-empty: the whole submission cannot be graded


def printable(name: str) -> str:
    """A file name as text that is safe to print (non-UTF-8 bytes escaped)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def without_suffix(name: str) -> str:
    for suffix in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def student_id(raw: str) -> str:
    """A safe identifier from a folder or archive name: lower case, [a-z0-9._-], every run of other characters one
    '_' ("Anna Lee" -> "anna_lee"). Names that come out alike are told apart by unique_ids()."""
    safe = re.sub(r"[^a-z0-9._-]+", "_", printable(without_suffix(raw)).lower()).strip("._-")
    return safe[:64].rstrip("._-") or "student"


def unique_ids(names: list[str]) -> dict[str, str]:
    """{name: id}, every id different: in the sorted order of the names, the first of those that come out alike
    keeps the id and the next ones get -2, -3, ... ("Anna Lee", "anna_lee" -> "anna_lee", "anna_lee-2")."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for name in sorted(names):
        base = sid = student_id(name)
        n = 1
        while sid in taken:
            n += 1
            sid = f"{base}-{n}"
        taken.add(sid)
        ids[name] = sid
    return ids


def _member_problem(name: str) -> str:
    """Why an archive member path is unsafe, or ''."""
    if name.startswith("/") or name.startswith("\\") or re.match(r"^[A-Za-z]:", name):
        return "absolute path"
    parts = re.split(r"[\\/]+", name)
    if ".." in parts:
        return "'..' in the path"
    if len(parts) > MAX_DEPTH + 1:
        return "too deeply nested"
    return ""


class _Collector:
    """Gathers candidate lab files (relative path -> bytes) under the course's limits."""

    def __init__(self, course: Course):
        self.course = course
        self.allowed = course.all_files()
        self.candidates: dict[str, list[tuple[str, bytes | None]]] = {}  # file name -> [(path, data or None)]
        self.notes: list[str] = []
        self.total = 0
        self.ignored = 0
        self.over_total = False

    def note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)

    def offer(self, path: str, size: int, read) -> None:
        """A regular file at relative `path`; `read(limit)` returns at most `limit` bytes of it."""
        base = path.replace("\\", "/").rstrip("/").split("/")[-1]
        if base not in self.allowed:
            self.ignored += 1
            close = [a for a in self.allowed if a.lower() == base.lower() or a.lower() == base.lower() + ".cu"]
            if close:
                self.note(
                    f"{printable(path)}: not a lab file name; did you mean {close[0]}? " "(names are case-sensitive)"
                )
            return
        limit = self.course.limits.max_file_bytes
        if size > limit:
            self.candidates.setdefault(base, []).append((path, None))
            self.note(f"{printable(path)}: {size} bytes, over the limit of {limit}")
            return
        if self.total + size > self.course.limits.max_submission_bytes:
            self.over_total = True
            return
        data = read(limit + 1)
        if len(data) > limit:
            self.candidates.setdefault(base, []).append((path, None))
            self.note(f"{printable(path)}: over the limit of {limit} bytes")
            return
        self.total += len(data)
        self.candidates.setdefault(base, []).append((path, data))

    def result(self, student: str, source: str, labs: tuple[Lab, ...]) -> Submission:
        sub = Submission(student=student, source=source, notes=list(self.notes))
        if self.over_total:
            sub.notes.append(f"stopped reading: over {self.course.limits.max_submission_bytes} bytes in all")
        if self.ignored:
            sub.notes.append(f"ignored {self.ignored} file(s) that are not lab files")
        for lab in labs:
            lf = LabFiles()
            for name in lab.files:
                found = self.candidates.get(name, [])
                if not found:
                    hint = [n for n in self.notes if f"did you mean {name}?" in n]
                    lf.problem = f"no {name} in the submission (expected {lab.folder}/{name} or {name})" + (
                        f"; {hint[0]}" if hint else ""
                    )
                    break
                # A copy under solutions/ (a fork of the course repository) is never graded: the lab's own path wins.
                copies = [printable(p) for p, _ in found if _in_solutions(p)]
                found = [(p, d) for p, d in found if not _in_solutions(p)]
                if copies:
                    mine = f"; yours is {printable(found[0][0])}" if len(found) == 1 else ""
                    sub.notes.append(f"ignored {', '.join(copies[:4])}: files under solutions/ are never graded{mine}")
                if not found:
                    lf.problem = (
                        f"no {name} in the submission outside solutions/ (expected labs/{lab.folder}/{name}, "
                        f"{lab.folder}/{name} or {name})"
                    )
                    break
                # A file inside another lab's folder is misplaced; one inside this lab's folder or at the top is fine.
                good = [(p, d) for p, d in found if _parent_ok(p, lab, self.course)]
                if not good:
                    lf.problem = (
                        f"{name} is in the wrong folder ({printable(found[0][0])}); " f"expected {lab.folder}/{name}"
                    )
                    break
                if len(good) > 1:
                    paths = ", ".join(printable(p) for p, _ in good[:4])
                    lf.problem = (
                        f"{name} appears {len(good)} times ({paths}), and the grader cannot tell which one is your "
                        f"work: submit exactly one, at labs/{lab.folder}/{name}, {lab.folder}/{name} or {name}"
                    )
                    break
                path, data = good[0]
                if data is None:
                    lf.problem = f"{name} is larger than {self.course.limits.max_file_bytes} bytes"
                    break
                if b"\0" in data:
                    lf.problem = f"{name} is not a text file (it contains NUL bytes)"
                    break
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError as e:
                    lf.problem = f"{name} is not UTF-8 text (byte {e.start})"
                    break
                lf.files[name] = data
            sub.labs[lab.number] = lf
        return sub


def _in_solutions(path: str) -> bool:
    """Under a folder named solutions/: the course's reference solutions, in a submission that is a fork."""
    return "solutions" in (part.lower() for part in path.replace("\\", "/").split("/")[:-1])


def _parent_ok(path: str, lab: Lab, course: Course) -> bool:
    parts = path.replace("\\", "/").split("/")
    parent = parts[-2] if len(parts) > 1 else ""
    lab_folders = {other.folder for other in course.labs}
    return parent not in lab_folders or parent == lab.folder


def _read_folder(root: Path, col: _Collector) -> None:
    def walk(folder: Path, rel: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            col.note(f"cannot read {printable(rel or '.')}: {e.strerror}")
            return
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink():
                col.note(f"{printable(path)}: a symbolic link, not followed")
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth >= MAX_DEPTH:
                    col.note(f"{printable(path)}: too deeply nested, not read")
                else:
                    walk(Path(entry.path), path, depth + 1)
                continue
            if not entry.is_file(follow_symlinks=False):
                col.note(f"{printable(path)}: not a regular file, ignored")
                continue
            size = entry.stat(follow_symlinks=False).st_size

            def read(limit: int, p=entry.path) -> bytes:
                fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as f:
                    return f.read(limit)

            col.offer(path, size, read)

    walk(root, "", 0)


def _read_zip(path: Path, col: _Collector) -> None:
    with zipfile.ZipFile(path) as zf:
        members = zf.infolist()
        if len(members) > col.course.limits.max_archive_members:
            raise ValueError(f"{len(members)} entries, over the limit of {col.course.limits.max_archive_members}")
        for info in members:
            name = info.filename
            why = _member_problem(name)
            mode = info.external_attr >> 16
            if not why and stat.S_ISLNK(mode):
                why = "a symbolic link"
            if why:
                col.note(f"archive member {printable(name)!r} rejected: {why}")
                continue
            if info.is_dir():
                continue

            def read(limit: int, info=info) -> bytes:
                with zf.open(info) as f:  # sizes are checked on the data read, not trusted from the header
                    return f.read(limit)

            col.offer(name, info.file_size, read)


def _read_tar(path: Path, col: _Collector) -> None:
    with tarfile.open(path, "r:*") as tf:
        count = 0
        for member in tf:
            count += 1
            if count > col.course.limits.max_archive_members:
                raise ValueError(f"over {col.course.limits.max_archive_members} entries")
            why = _member_problem(member.name)
            if not why and (member.issym() or member.islnk()):
                why = "a link"
            if not why and not (member.isfile() or member.isdir()):
                why = "not a regular file"
            if why:
                col.note(f"archive member {printable(member.name)!r} rejected: {why}")
                continue
            if member.isdir():
                continue

            def read(limit: int, member=member) -> bytes:
                f = tf.extractfile(member)
                return f.read(limit) if f else b""

            col.offer(member.name, member.size, read)


def is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def read_submission(path: Path, student: str, course: Course, labs: tuple[Lab, ...]) -> Submission:
    """Reads one submission (folder or archive). Never raises for bad input: problems go into the result."""
    source = printable(path.name)
    col = _Collector(course)
    try:
        if path.is_symlink():
            raise ValueError("a symbolic link, not followed")
        if path.is_dir():
            _read_folder(path, col)
        elif path.name.lower().endswith(".zip"):
            _read_zip(path, col)
        else:
            _read_tar(path, col)
    except (
        OSError,
        ValueError,
        zipfile.BadZipFile,
        tarfile.TarError,
        EOFError,
        RuntimeError,
        NotImplementedError,
    ) as e:
        sub = Submission(student=student, source=source, notes=col.notes)
        sub.problem = f"cannot read {source}: {e}"
        return sub
    return col.result(student, source, labs)


def discover(folder: Path, course: Course, labs: tuple[Lab, ...]) -> tuple[list[Submission], list[str]]:
    """All submissions in `folder`, sorted by student; plus notes about entries that are not submissions."""
    notes: list[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        raise SystemExit(f"grade.py: cannot read the submissions folder {folder}: {e.strerror}")
    by_name: dict[str, list[os.DirEntry]] = {}  # the name without its archive suffix -> its entries
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            notes.append(f"{printable(entry.name)}: a symbolic link, not a submission (ignored)")
            continue
        if entry.is_dir(follow_symlinks=False) or (entry.is_file(follow_symlinks=False) and is_archive(entry.name)):
            by_name.setdefault(without_suffix(entry.name), []).append(entry)
        else:
            notes.append(f"{printable(entry.name)}: not a folder or an archive (ignored)")
    ids = unique_ids(list(by_name))
    subs = []
    for name, found in by_name.items():
        sid = ids[name]
        if len(found) > 1:
            names = " and ".join(printable(e.name) for e in found)
            sub = Submission(student=sid, source=names)
            sub.problem = f"duplicate submissions for '{sid}': {names}; keep one and grade again"
        else:
            sub = read_submission(Path(found[0].path), sid, course, labs)
        alike = sorted(printable(n) for n in by_name if n != name and student_id(n) == student_id(name))
        if alike:
            sub.notes.append(f"graded as '{sid}' ({', '.join(alike)} gives the same name)")
        subs.append(sub)
    return sorted(subs, key=lambda s: s.student), notes


def stage(sub: Submission, lab: Lab, scratch: Path) -> Path:
    """Writes the lab's accepted files to <scratch>/<student>/<folder>/<file>; returns <scratch>/<student>."""
    root = scratch / sub.student
    dest = root / lab.folder
    dest.mkdir(parents=True, exist_ok=True)
    for name, data in sub.labs[lab.number].files.items():
        target = dest / name
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)
    return root
