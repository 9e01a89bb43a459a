"""The bundled sample submissions: one spec, grader/samples/samples.toml, generated into submission folders.

Each sample is one student's submission holding one file, made from the course's own sources so that it follows the
solution when the solution changes:

    [[sample]]
    name = "hanging"                     # the student id: the generated folder's name
    lab = "01"                           # the lab it is graded as
    path = "01_matadd/matadd.cu"         # the file inside the submission (relative; the layout tests the intake)
    from = "variant:scalar_256.cu"       # "solution" | "catalogue:<entry>" | "variant:<file>" | "file:<path>"
    why = "an endless loop in the kernel"
    cpu = "timeout"                      # expected verdict(s) per backend: a string or a list (any of them)
    gpu = "timeout"
    message_contains = "..."             # optional; cpu_message_contains / gpu_message_contains for one backend
    known_gap = "..."                    # optional; cpu_known_gap / gpu_known_gap for one backend (below)
    [[sample.edit]]                      # optional find/replace edits, applied with catalogue.apply_edits
    find = "..."
    replace = "..."

`from = "solution"` is the lab's reference (solutions/NN_name/<file>: the file the path names, or the lab's only
file); `catalogue:<entry>` a mutant of grader/labs/NN_name/catalogue.toml; `variant:<file>` a file of
grader/labs/NN_name/variants/; `file:<path>` a file next to the spec (a relative path inside the spec's folder:
whole attack files of the adversarial suite, grader/adversarial). Every error names the spec, the sample and the
problem (SampleError).

`@COURSE_ROOT@` in a sample's text becomes the absolute path of the course checkout that grades it: an attack that
needs where the grader's files are (a #line directive naming one of the CPU backend's headers) is tested against the
attacker who knows it.

A spec may hold `include = ["other.toml", ...]` at the top: files next to it whose [[sample]] entries follow its own,
in order (an included file includes nothing further); `file:` paths are relative to the file that names them.

`known_gap` states that today's grader does not give the expected verdict, why, and the issue that tracks it: the
expected verdicts stay what the grader should give, the check reports the gap on every run (expected.gaps), and it
fails once the gap has closed (the expected verdict came), so that the entry is removed rather than forgotten. A
`cpu_known_gap` is the CPU backend's: it applies to the gpu verdict too where the GPU tree also builds check mode
(expected.check's check_mode), since the CPU backend compiles the file there as well.
"""
from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path, PurePosixPath

from . import catalogue, manifest
from .intake import student_id
from .manifest import Lab
from .verdicts import VERDICTS

SPEC = manifest.REPO_ROOT / "grader" / "samples" / "samples.toml"
BACKENDS = ("cpu", "gpu")
_KEYS = {
    "name",
    "lab",
    "path",
    "from",
    "why",
    "edit",
    "cpu",
    "gpu",
    "message_contains",
    "cpu_message_contains",
    "gpu_message_contains",
    "known_gap",
    "cpu_known_gap",
    "gpu_known_gap",
}
_SOURCE = re.compile(r"^(?P<kind>solution|catalogue|variant|file)(?::(?P<arg>.*))?$")


class SampleError(Exception):
    """A samples spec that cannot be used, or a sample that cannot be generated; the message says which and why."""


@dataclasses.dataclass(frozen=True)
class Sample:
    name: str  # the student id
    lab: str  # "01"
    path: str  # inside the submission, POSIX, relative
    source: str  # the spec's `from`
    why: str
    edits: tuple[dict, ...]
    verdicts: dict[str, tuple[str, ...]]  # backend -> allowed verdicts
    message_contains: dict[str, str]  # backend -> text the message must contain ("" for none)
    spec: Path  # the samples.toml it comes from
    known_gaps: dict[str, str] = dataclasses.field(default_factory=dict)  # backend -> why it does not get it yet

    @property
    def where(self) -> str:
        return f"{self.spec}: sample '{self.name}'"

    @property
    def origin(self) -> str:
        """Where its text comes from, as the spec says it."""
        return f"from = '{self.source}'"


# ---- reading the spec -----------------------------------------------------------------------------------------------


def _string(entry: dict, key: str, where: str, default: str | None = None) -> str:
    value = entry.get(key, default)
    if value is None:
        raise SampleError(f"{where}: missing key '{key}'")
    if not isinstance(value, str) or (default is None and not value):
        raise SampleError(f"{where}: '{key}' must be a non-empty string, not {value!r}")
    return value


def _path_problem(path: str) -> str:
    """Why `path` cannot be a file inside a submission folder, or ''."""
    if "\\" in path or "\0" in path:
        return "a backslash or NUL in it"
    pure = PurePosixPath(path)
    if pure.is_absolute():
        return "an absolute path"
    if any(part in ("..", ".") for part in path.split("/")) or "" in path.split("/"):
        return "'..', '.' or an empty part: it would escape the submission folder or be ambiguous"
    return ""


def _verdicts(entry: dict, backend: str, where: str) -> tuple[str, ...]:
    value = entry.get(backend)
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise SampleError(
            f"{where}: '{backend}' must be the expected verdict or a non-empty list of them "
            f"(known: {', '.join(VERDICTS)}), not {value!r}"
        )
    unknown = [v for v in values if v not in VERDICTS]
    if unknown:
        raise SampleError(f"{where}: '{backend}': unknown verdict '{unknown[0]}' (known: {', '.join(VERDICTS)})")
    return tuple(values)


def _sample(spec: Path, index: int, entry: object) -> Sample:
    where = f"{spec}: sample {index + 1}"
    if not isinstance(entry, dict):
        raise SampleError(f"{where}: must be a [[sample]] table")
    name = _string(entry, "name", where)
    where = f"{spec}: sample '{name}'"
    if student_id(name) != name:
        raise SampleError(
            f"{where}: the name must be a plain student id (letters, digits, '.', '_', '-'), which "
            f"the intake keeps as it is; it would read it as '{student_id(name)}'"
        )
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise SampleError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(sorted(_KEYS))})")
    lab = _string(entry, "lab", where)
    if not re.fullmatch(r"\d\d", lab):
        raise SampleError(f"{where}: lab = '{lab}': expected the lab's two-digit number, e.g. \"01\"")
    path = _string(entry, "path", where)
    if problem := _path_problem(path):
        raise SampleError(f"{where}: path = '{path}': {problem}")
    source = _string(entry, "from", where)
    m = _SOURCE.match(source)
    if not m or (m.group("kind") == "solution") != (m.group("arg") is None) or m.group("arg") == "":
        raise SampleError(
            f'{where}: from = "{source}": expected "solution", "catalogue:<entry>", "variant:<file>" or "file:<path>"'
        )
    if m.group("kind") == "file" and (problem := _path_problem(m.group("arg"))):
        raise SampleError(f"{where}: from = '{source}': {problem} (a path relative to the spec's folder)")
    edits = entry.get("edit", [])
    if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
        raise SampleError(f"{where}: 'edit' must be [[sample.edit]] tables with find and replace")
    common = _string(entry, "message_contains", where, "")
    gap = _string(entry, "known_gap", where, "")
    return Sample(
        name=name,
        lab=lab,
        path=path,
        source=source,
        why=_string(entry, "why", where),
        edits=tuple(edits),
        verdicts={b: _verdicts(entry, b, where) for b in BACKENDS},
        message_contains={b: _string(entry, f"{b}_message_contains", where, common) for b in BACKENDS},
        spec=spec,
        known_gaps={b: g for b in BACKENDS if (g := _string(entry, f"{b}_known_gap", where, gap))},
    )


def _entries(spec: Path, included: bool) -> list[tuple[Path, int, object]]:
    """(file, index, entry) of every [[sample]] of `spec` and of the files it includes, in order."""
    try:
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
    except OSError as e:
        raise SampleError(f"{spec}: cannot read the samples spec: {e.strerror}") from e
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SampleError(f"{spec}: not valid TOML: {e}") from e
    unknown = sorted(set(data) - ({"sample"} if included else {"sample", "include"}))
    if unknown:
        more = " (an included file includes nothing further)" if unknown == ["include"] else ""
        raise SampleError(f"{spec}: unknown key or table '{unknown[0]}' (expected [[sample]] entries){more}")
    entries = data.get("sample", [])
    if not isinstance(entries, list):
        raise SampleError(f"{spec}: 'sample' must be [[sample]] tables")
    found = [(spec, i, e) for i, e in enumerate(entries)]
    includes = data.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        raise SampleError(f"{spec}: include must be a list of file names next to it, not {includes!r}")
    for name in includes:
        if problem := _path_problem(name):
            raise SampleError(f"{spec}: include '{name}': {problem} (a path relative to the spec's folder)")
        try:
            found += _entries(spec.parent / name, True)
        except SampleError as e:
            raise SampleError(f"{spec}: include '{name}': {e}") from e
    return found


def load(spec: Path = SPEC) -> tuple[Sample, ...]:
    """Every sample of the spec and of the files it includes, in order; checked for everything that does not need
    the labs."""
    entries = _entries(Path(spec), False)
    if not entries:
        raise SampleError(f"{spec}: no [[sample]] entry")
    samples = tuple(_sample(path, i, e) for path, i, e in entries)
    names = [s.name for s in samples]
    for s in samples:
        if names.count(s.name) > 1:
            raise SampleError(f"{s.where}: two samples have this name (it is the student id: one folder each)")
    return samples


# ---- generating ------------------------------------------------------------------------------------------------------


def _lab(sample: Sample, labs: tuple[Lab, ...]) -> Lab:
    for lab in labs:
        if lab.number == sample.lab:
            return lab
    raise SampleError(f"{sample.where}: no lab {sample.lab} (known: {', '.join(lab.number for lab in labs)})")


def _read(path: Path, sample: Sample, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SampleError(
            f"{sample.where}: {sample.origin}: cannot read {what} {path}: " f"{getattr(e, 'strerror', None) or e}"
        ) from e


def _base(sample: Sample, lab: Lab, repo_root: Path) -> str:
    """The text `from` names, before the edits."""
    m = _SOURCE.match(sample.source)
    kind, arg = m.group("kind"), m.group("arg")
    if kind == "solution":
        name = PurePosixPath(sample.path).name
        if name not in lab.files:
            if len(lab.files) != 1:
                raise SampleError(
                    f"{sample.where}: from = \"solution\": the path's file '{name}' is not one of lab "
                    f"{lab.number}'s files {list(lab.files)}, so which solution file is meant?"
                )
            name = lab.files[0]
        return _read(Path(repo_root) / "solutions" / lab.folder / name, sample, "the solution")
    if kind == "variant":
        if _path_problem(arg) or "/" in arg:
            raise SampleError(
                f"{sample.where}: from = '{sample.source}': '{arg}' must be a plain file name in "
                f"{lab.dir / 'variants'}"
            )
        path = lab.dir / "variants" / arg
        if not path.is_file():
            known = sorted(p.name for p in (lab.dir / "variants").glob("*") if p.is_file())
            raise SampleError(
                f"{sample.where}: from = '{sample.source}': {path} does not exist (variants of lab "
                f"{lab.number}: {', '.join(known) or 'none'})"
            )
        return _read(path, sample, "the variant")
    if kind == "file":
        return _read(sample.spec.parent / arg, sample, "the file")
    try:
        mutants = catalogue.load_catalogue(lab, repo_root)
    except manifest.ManifestError as e:
        raise SampleError(f"{sample.where}: from = '{sample.source}': the catalogue cannot be used: {e}") from e
    for mutant in mutants:
        if mutant.name == arg:
            return mutant.text
    raise SampleError(
        f"{sample.where}: from = '{sample.source}': lab {lab.number}'s catalogue has no entry '{arg}' "
        f"(entries: {', '.join(m.name for m in mutants) or 'none'})"
    )


def text(sample: Sample, labs: tuple[Lab, ...], repo_root: Path = manifest.REPO_ROOT) -> str:
    """The content of the sample's file: its `from`, with its edits applied."""
    lab = _lab(sample, labs)
    base = _base(sample, lab, Path(repo_root))
    try:
        edited = catalogue.apply_edits(base, list(sample.edits), f"{sample.where} ({sample.origin})")
        return edited.replace("@COURSE_ROOT@", str(Path(repo_root).resolve()))
    except manifest.ManifestError as e:
        raise SampleError(str(e)) from e


def source(name: str, labs: tuple[Lab, ...], spec: Path = SPEC, repo_root: Path = manifest.REPO_ROOT) -> str:
    """The generated text of the sample called `name` (for tests that need a sample's file without a folder)."""
    for sample in load(spec):
        if sample.name == name:
            return text(sample, labs, repo_root)
    raise SampleError(f"{spec}: no sample '{name}'")


def generate(
    samples: tuple[Sample, ...], dest: Path, labs: tuple[Lab, ...], repo_root: Path = manifest.REPO_ROOT
) -> list[Sample]:
    """Writes dest/<name>/<path> for each sample of one of `labs` (the others are skipped: a lab not in this
    checkout, or not graded now); returns the samples written. Every text is made before anything is written."""
    dest = Path(dest)
    numbers = {lab.number for lab in labs}
    chosen = [s for s in samples if s.lab in numbers]
    texts = [text(s, labs, repo_root) for s in chosen]
    root = dest.resolve()
    for sample, content in zip(chosen, texts):
        folder = root / sample.name
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise SampleError(f"{sample.where}: {folder} exists and is not a folder")
        target = (folder / sample.path).resolve()
        if folder not in target.parents:
            raise SampleError(f"{sample.where}: path = '{sample.path}' leads to {target}, outside its folder {folder}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return chosen


def expectations(samples: tuple[Sample, ...]) -> dict[tuple[str, str], dict]:
    """{(student, lab number): {"cpu": [verdicts], "gpu": [verdicts], "message_contains": {backend: str},
    "known_gap": {backend: why}, "why": str}}, the form expected.check takes."""
    return {
        (s.name, s.lab): {
            "cpu": list(s.verdicts["cpu"]),
            "gpu": list(s.verdicts["gpu"]),
            "message_contains": dict(s.message_contains),
            "known_gap": dict(s.known_gaps),
            "why": s.why,
        }
        for s in samples
    }
