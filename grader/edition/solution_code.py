"""Finds solution code in a folder: the student edition's check (student_edition.py runs it on every edition it writes;
test_edition.py tests it).

Solution code of lab NN is taken from the instructor's checkout, compared after normalising (comments removed,
every run of white space one space, lines joined), so a copy that was re-indented, re-wrapped or shown in a
Markdown code block is found too:

  * whole files: each solution file (solutions/NN_name/), correct variant (grader/labs/NN_name/variants/) and
    catalogue mutant (grader/labs/NN_name/catalogue.toml; the solution with one mistake put in);
  * kernels: each `__global__` function of a solution or a variant;
  * answers: the body of each TODO region of a solution (between `// TODO(labNN)` and `// END TODO`), when it is at
    least MIN_ANSWER characters long (shorter ones, `__syncthreads();`, a padded array bound, are everywhere).

What lab NN hands out itself (its skeleton and its grading files: the baselines a perf test times against are whole
kernels on purpose) is not secret for that lab: a fragment that occurs there is not looked for.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

MIN_ANSWER = 60  # characters, normalised
TODO_START = re.compile(r"^\s*//\s*TODO\(lab\d\d\)")
TODO_END = re.compile(r"^\s*//\s*END TODO\b")
LINE_COMMENT = re.compile(r"//.*")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
LAB_PATH = re.compile(r"^(?:grader/)?labs/(?P<number>\d\d)_[a-z0-9_]+/")


@dataclasses.dataclass(frozen=True)
class Secret:
    lab: str  # "02"
    what: str  # where it comes from, for the message
    text: str  # normalised


@dataclasses.dataclass(frozen=True)
class Finding:
    path: str  # relative to the scanned folder
    secret: Secret

    def message(self) -> str:
        text = f"{self.path} contains lab {self.secret.lab}'s solution code ({self.secret.what})"
        m = LAB_PATH.match(self.path)
        if m and m.group("number") > self.secret.lab:
            text += (
                f": lab {m.group('number')}'s material gives away lab {self.secret.lab}'s answer; hand lab "
                f"{m.group('number')} out after lab {self.secret.lab}'s deadline (--labs), or say that lab "
                f"{self.secret.lab}'s answers may show (--released {self.secret.lab})"
            )
        return text


def normalise(text: str) -> str:
    text = BLOCK_COMMENT.sub(" ", text)
    return " ".join(" ".join(LINE_COMMENT.sub("", line).split()) for line in text.splitlines()).strip()


def todo_answers(text: str) -> list[str]:
    """The bodies of the TODO regions of a solution, in order."""
    answers, current = [], None
    for line in text.splitlines():
        if TODO_START.match(line):
            current = []
        elif TODO_END.match(line) and current is not None:
            answers.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return answers


def kernels(text: str) -> list[tuple[str, str]]:
    """(name, source) of each `__global__` function: from the keyword to its closing brace."""
    out = []
    for m in re.finditer(r"\b__global__\b", text):
        body = text.find("{", m.end())
        if body < 0:
            continue
        name = re.findall(r"(\w+)\s*\(", text[m.end() : body])
        depth = 0
        for i in range(body, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                out.append((name[0] if name else "?", text[m.start() : i + 1]))
                break
    return out


def _file_secrets(lab: str, rel: str, text: str, answers: bool) -> list[Secret]:
    out = [Secret(lab, rel, normalise(text))]
    out += [Secret(lab, f"{rel}, kernel {name}", normalise(src)) for name, src in kernels(text)]
    if answers:
        for i, answer in enumerate(todo_answers(text), 1):
            if len(normalise(answer)) >= MIN_ANSWER:
                out.append(Secret(lab, f"{rel}, TODO region {i}", normalise(answer)))
    return out


def secrets(repo: Path) -> list[Secret]:
    """Every lab's solution code in the instructor's checkout `repo`, less what the lab hands out itself."""
    import sys

    if str(repo / "grader") not in sys.path:
        sys.path.insert(0, str(repo / "grader"))
    from course_grader import catalogue, manifest

    out = []
    for lab in manifest.load_labs(repo):
        found = []
        for path in sorted((repo / "solutions" / lab.folder).glob("*")):
            if path.is_file():
                rel = path.relative_to(repo).as_posix()
                found += _file_secrets(lab.number, rel, path.read_text(encoding="utf-8"), answers=True)
        for path in sorted((lab.dir / "variants").glob("*")):
            if path.is_file():
                rel = path.relative_to(repo).as_posix()
                found += _file_secrets(lab.number, rel, path.read_text(encoding="utf-8"), answers=False)
        for mutant in catalogue.load_catalogue(lab, repo):
            found.append(Secret(lab.number, f"catalogue entry {mutant.name}", normalise(mutant.text)))
        handed_out = [p for p in (repo / "labs" / lab.folder).glob("*") if p.is_file()]
        handed_out += [p for p in lab.dir.glob("*") if p.is_file() and p.name != "catalogue.toml"]
        given = "\n".join(normalise(p.read_text(encoding="utf-8", errors="replace")) for p in handed_out)
        out += [s for s in found if s.text and s.text not in given]
    return out


def scan(folder: Path, secret_list: list[Secret], released: frozenset[str] = frozenset()) -> list[Finding]:
    """Every file under `folder` (not .git/) that contains a secret of a lab not in `released`."""
    findings = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if not path.is_file() or rel.split("/")[0] == ".git":
            continue
        text = normalise(path.read_bytes().decode("utf-8", errors="replace"))
        for s in secret_list:
            if s.lab not in released and s.text in text:
                findings.append(Finding(rel, s))
    return findings
