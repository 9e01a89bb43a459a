"""The lab manifests: grader/labs/NN_name/lab.toml, one per lab (the catalogue.toml beside it: catalogue.py).

This module and catalogue.py are the only Python that reads them. CMake uses them through
grader/cmake/configure_labs.py, the instructor grader through course_grader.config, the bench through
grader/bench/sweeps.py, the docs tools to show a catalogue entry. Every error names the file, the key or entry, and
what was expected (ManifestError); nothing is defaulted silently.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
LABS_DIR = Path("grader") / "labs"
LAB_FOLDER = re.compile(r"^(?P<number>\d\d)_(?P<slug>[a-z0-9_]+)$")
GPU_KEY = re.compile(r"^[a-z0-9_]+$")
# How a figure draws a series (grader/bench/figures.toml): "ceiling" is the library a user would call instead.
BENCH_ROLES = ("solution", "variant", "baseline", "yardstick", "ceiling")


class ManifestError(Exception):
    """A manifest or catalogue that cannot be used; the message says where and what was expected."""


@dataclasses.dataclass(frozen=True)
class Perf:
    test: str  # GoogleTest name, "Suite.Case"; the suite ends in "Perf"
    key: str  # threshold key, e.g. "min_fraction_of_copy"
    metric: str  # one sentence: what the ratio divides
    size: dict[str, int]  # the problem size the perf test times
    ceiling: str = ""  # the timed launcher a user would call instead (cuBLAS SGEMM, a device copy)
    review_above: float = 0.0  # lab rate / ceiling rate above this is held for review, never credited


@dataclasses.dataclass(frozen=True)
class BenchSeries:
    subject: str  # "solution" or the stem of one of the lab's variants: the program that times it
    launcher: str  # the name the case's body gives the timed launcher (state.lab / baseline / ...)
    name: str  # the series' name in the figure
    role: str  # one of BENCH_ROLES
    source: str | None  # the file (or API) that holds the kernel; None: the subject's lab file
    kernel: str | None  # the kernel's name, for a figure with Nsight Compute counts


@dataclasses.dataclass(frozen=True)
class BenchSweep:  # one [[bench]] table: a size sweep of a case for a figure (grader/bench/)
    figure: str  # docs/data/<figure>.json; a table of grader/bench/figures.toml
    case: str  # a [[perf]] test of the lab, or a bench-only case "SuiteBench.Case"
    vary: tuple[str, ...]  # the size keys set to each value together (GEMM: m, n, k)
    values: tuple[int, ...]
    size: dict[str, int]  # other sizes: they replace or extend the [[perf]] entry's
    x: tuple[str, ...]  # a point's x: the product of these sizes
    series: tuple[BenchSeries, ...]


@dataclasses.dataclass(frozen=True)
class Lab:
    number: str  # "03"
    folder: str  # "03_tiled_gemm"
    title: str
    files: tuple[str, ...]
    interface: str
    launchers: tuple[str, ...]
    tests: tuple[str, ...]
    baselines: tuple[str, ...]
    variants: tuple[str, ...]
    correctness_points: float
    performance_points: float
    perf_baseline: float
    perf: tuple[Perf, ...]
    thresholds: dict[str, dict[str, float]]  # "default" | "sm_90" | "gpu.nvidia_h200" -> key -> value
    path: Path  # the manifest
    allow: tuple[str, ...] = ()  # identifiers / includes this lab may use although grader/course.toml forbids them
    bench: tuple[BenchSweep, ...] = ()  # the [[bench]] tables: sweeps for the figures

    @property
    def name(self) -> str:
        return f"lab{self.number}"

    @property
    def dir(self) -> Path:
        return self.path.parent

    @property
    def max_points(self) -> float:
        return self.correctness_points + self.performance_points


# ---- reading ---------------------------------------------------------------------------------------------------------


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ManifestError(f"{path}: cannot read it: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path}: not valid TOML: {e}") from e


class _Table:
    """One TOML table with typed access; every problem names the file and the dotted key."""

    def __init__(self, path: Path, where: str, data: object):
        if not isinstance(data, dict):
            raise ManifestError(f"{path}: [{where}] must be a table")
        self.path, self.where, self.data, self.used = path, where, data, set()

    def _key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str, kind: type | tuple, what: str, default: object = ...) -> object:
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                near = difflib.get_close_matches(key, [k for k in self.data if k not in self.used], n=1)
                typo = f"; is '{self._key(near[0])}' a typo of it?" if near else ""
                raise ManifestError(f"{self.path}: missing key '{self._key(key)}' ({what}){typo}")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise ManifestError(f"{self.path}: '{self._key(key)}' must be {what}, not {value!r}")
        return value

    def strings(self, key: str, what: str, default: object = ...) -> tuple[str, ...]:
        value = self.get(key, list, what, default)
        if not all(isinstance(v, str) and v for v in value):
            raise ManifestError(f"{self.path}: '{self._key(key)}' must be a list of non-empty strings ({what})")
        return tuple(value)

    def table(self, key: str, what: str, default: object = ...) -> "_Table":
        return _Table(self.path, self._key(key), self.get(key, dict, what, default))

    def done(self) -> None:
        """Unknown keys are mistakes (a typo would otherwise be ignored)."""
        extra = sorted(set(self.data) - self.used)
        if extra:
            known = ", ".join(sorted(self.used))
            raise ManifestError(f"{self.path}: unknown key '{self._key(extra[0])}' (known here: {known})")


def _plain_names(t: _Table, key: str, what: str, folder: Path | None = None, default: object = ...) -> tuple:
    names = t.strings(key, what, default)
    for n in names:
        if "/" in n or n.startswith("."):
            raise ManifestError(f"{t.path}: '{t._key(key)}': '{n}' must be a plain file name")
        if folder is not None and not (folder / n).is_file():
            raise ManifestError(f"{t.path}: '{t._key(key)}': {folder / n} does not exist")
    return names


def load_lab(path: Path, gpus: dict[str, str]) -> Lab:
    path = Path(path)
    folder = path.parent.name
    m = LAB_FOLDER.match(folder)
    if not m:
        raise ManifestError(f"{path}: the lab folder must be named NN_name (two digits, lower case), not '{folder}'")
    top = _Table(path, "", _read_toml(path))
    lab = top.table("lab", "the lab's files and launchers")
    files = _plain_names(lab, "files", 'the lab files a student edits, e.g. ["matadd.cu"]')
    if not files:
        raise ManifestError(f"{path}: 'lab.files' is empty")
    here = path.parent
    # variants/ is instructor material that only the self-test builds: an edition without the folder (the student
    # edition, the Gradescope bundle) keeps the names, which are then not checked against files.
    variants_dir = here / "variants" if (here / "variants").is_dir() else None
    result_args = dict(
        title=lab.get("title", str, "a short title"),
        files=files,
        interface=lab.get("interface", str, "the header that declares the launchers"),
        launchers=lab.strings("launchers", "the launcher names the tests call"),
        tests=_plain_names(lab, "tests", "the GoogleTest sources in this folder", here),
        baselines=_plain_names(lab, "baselines", "the .cu files the perf tests time against", here),
        variants=_plain_names(lab, "variants", "correct lab files in variants/", variants_dir),
        allow=lab.strings("allow", "identifiers or includes this lab may use although course.toml forbids them", ()),
    )
    if not (here / result_args["interface"]).is_file():
        raise ManifestError(f"{path}: 'lab.interface': {here / result_args['interface']} does not exist")
    lab.done()
    points = top.table("points", "correctness, performance and perf_baseline")
    correctness = points.get("correctness", float, "a number of points")
    performance = points.get("performance", float, "a number of points")
    perf_baseline = points.get("perf_baseline", float, "the ratio at which performance credit starts")
    points.done()

    perf = []
    entries = top.get("perf", list, "a list of [[perf]] tables", [])
    for i, entry in enumerate(entries):
        p = _Table(path, f"perf[{i}]", entry)
        test = p.get("test", str, "the GoogleTest name 'Suite.Case'")
        if not re.fullmatch(r"[A-Za-z0-9_]+Perf\.[A-Za-z0-9_]+", test):
            raise ManifestError(f"{path}: perf[{i}].test '{test}' must be 'SuitePerf.Case' (a suite ending in Perf)")
        size = p.table("size", "the problem size, e.g. { n = 67108864 }")
        sizes = {k: size.get(k, int, "an integer") for k in list(size.data)}
        size.done()
        key, metric = p.get("key", str, "the threshold key"), p.get("metric", str, "one sentence")
        ceiling = p.get("ceiling", str, "the name of the timed launcher a user would call instead")
        review = p.get("review_above", float, "a positive number: the ceiling fraction held for review")
        if review <= 0:
            raise ManifestError(f"{path}: perf[{i}].review_above must be a positive number, not {review}")
        perf.append(Perf(test, key, metric, sizes, ceiling, review))
        p.done()
    keys = {p.key for p in perf}

    thresholds: dict[str, dict[str, float]] = {}
    th = top.table("thresholds", "sections default, sm_XY and gpu.<model>", {} if not perf else ...)
    for section, values in th.data.items():
        th.used.add(section)
        if section == "gpu":
            gpu_table = th.table("gpu", "one table per calibrated GPU model")
            for model in list(gpu_table.data):
                if model not in gpus:
                    raise ManifestError(
                        f"{path}: [thresholds.gpu.{model}] is for an unknown GPU model; known (grader/"
                        f"course.toml [gpus]): {', '.join(sorted(gpus))}"
                    )
                thresholds[f"gpu.{model}"] = _threshold_values(gpu_table.table(model, "thresholds"), keys)
            gpu_table.used.update(gpu_table.data)
        elif section == "default" or re.fullmatch(r"sm_\d+", section):
            thresholds[section] = _threshold_values(th.table(section, "thresholds"), keys)
        else:
            raise ManifestError(f"{path}: [thresholds.{section}]: expected 'default', 'sm_XY' or 'gpu.<model>'")
    if perf and "default" not in thresholds:
        raise ManifestError(f"{path}: [thresholds.default] is missing (used for any GPU without its own section)")
    cal = top.table("calibration", "where the thresholds come from", {})
    cal.get("calibrated_on", str, "the GPUs, driver, CUDA and date", "")
    cal.get("record", str, "the calibration record", "")
    cal.done()
    subjects = ("solution", *(Path(v).stem for v in result_args["variants"]))
    tables = top.get("bench", list, "a list of [[bench]] tables", [])
    bench = tuple(_bench_sweep(_Table(path, f"bench[{i}]", e), perf, subjects) for i, e in enumerate(tables))
    top.done()
    return Lab(
        number=m.group("number"),
        folder=folder,
        correctness_points=correctness,
        performance_points=performance,
        perf_baseline=perf_baseline,
        perf=tuple(perf),
        thresholds=thresholds,
        path=path,
        bench=bench,
        **result_args,
    )


def _bench_sweep(t: _Table, perf: list[Perf], subjects: tuple[str, ...]) -> BenchSweep:
    """One [[bench]] table; the figure's title and drawing are grader/bench's (figures.toml)."""
    where = f"{t.path}: {t.where}"
    figure = t.get("figure", str, "a figure of grader/bench/figures.toml")
    case = t.get("case", str, "a [[perf]] test of this lab or a bench-only case 'SuiteBench.Case'")
    entry = next((p for p in perf if p.test == case), None)
    if not re.fullmatch(r"[a-z0-9_]+", figure) or not re.fullmatch(r"\w+(Perf|Bench)\.\w+", case):
        raise ManifestError(f"{where}: figure '{figure}' must be snake_case, case '{case}' 'SuitePerf|Bench.Case'")
    if case.split(".")[0].endswith("Perf") and entry is None:
        known = ", ".join(p.test for p in perf) or "none"
        raise ManifestError(f"{where}.case: '{case}' is not a [[perf]] test of this lab (known: {known})")
    vary = t.strings("vary", "the size keys that take each value, e.g. ['rows']")
    values = t.get("values", list, "a list of sizes")
    ints = all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values)
    if not vary or len(set(vary)) < len(vary) or not values or not ints or len(set(values)) < len(values):
        raise ManifestError(f"{where}: 'vary' needs distinct size keys and 'values' distinct positive integers")
    size_table = t.table("size", "other sizes, e.g. { cols = 4096 }", {})
    size = {k: size_table.get(k, int, "an integer") for k in list(size_table.data)}  # reads every key
    x = t.strings("x", "the sizes whose product is a point's x", vary[:1])
    known = set(size) | set(entry.size if entry else ())
    bad = [k for k in vary if k in size or entry and k not in entry.size] + [k for k in x if k not in known | {*vary}]
    if bad:
        sizes = ", ".join(sorted(known)) or "none"
        raise ManifestError(f"{where}: size '{bad[0]}' is varied twice or not a size of the case (sizes: {sizes})")
    entries = t.get("series", list, "a list of [[bench.series]] tables")
    series = tuple(_bench_series(_Table(t.path, f"{t.where}.series[{i}]", e), subjects) for i, e in enumerate(entries))
    if not series:
        raise ManifestError(f"{where}: 'series' is empty")
    t.done()
    return BenchSweep(figure, case, vary, tuple(values), size, x, series)


def _bench_series(s: _Table, subjects: tuple[str, ...]) -> BenchSeries:
    subject = s.get("subject", str, "'solution' or a variant's stem", "solution")
    launcher = s.get("launcher", str, "the launcher's name in the case")
    name = s.get("name", str, "the series' name in the figure")
    role = s.get("role", str, f"one of {', '.join(BENCH_ROLES)}")
    source = s.get("source", str, "the file that holds the kernel", None)
    kernel = s.get("kernel", str, "the kernel's name (Nsight Compute)", None)
    s.done()
    if subject not in subjects or role not in BENCH_ROLES:
        raise ManifestError(
            f"{s.path}: {s.where}: subject '{subject}' and role '{role}' must be one of "
            f"{', '.join(subjects)} and one of {', '.join(BENCH_ROLES)}"
        )
    return BenchSeries(subject, launcher, name, role, source, kernel)


def _threshold_values(t: _Table, keys: set[str]) -> dict[str, float]:
    values = {k: t.get(k, float, "a number") for k in list(t.data)}
    missing = sorted(keys - set(values))
    if missing:
        raise ManifestError(f"{t.path}: [{t.where}] has no value for '{missing[0]}' (every perf key needs one)")
    extra = sorted(set(values) - keys)
    if extra:
        raise ManifestError(
            f"{t.path}: [{t.where}] key '{extra[0]}' is not the key of any [[perf]] "
            f"(known: {', '.join(sorted(keys))})"
        )
    t.done()
    return values


def load_gpus(course_toml: Path) -> dict[str, str]:
    data = _read_toml(course_toml)
    gpus = data.get("gpus", {})
    for key, name in gpus.items():
        if not GPU_KEY.match(key) or not isinstance(name, str):
            raise ManifestError(f'{course_toml}: [gpus] {key} = {name!r}: expected key = "device name"')
    return dict(gpus)


def gpu_key(device_name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'nvidia_h100_80gb_hbm3' (the C++ harness does the same)."""
    return re.sub(r"[^a-z0-9]", "_", device_name.lower())


def load_labs(repo_root: Path = REPO_ROOT, course_toml: Path | None = None) -> tuple[Lab, ...]:
    """Every lab of the checkout, in number order. `course_toml` (default grader/course.toml) names the GPU models."""
    root = Path(repo_root)
    gpus = load_gpus(Path(course_toml) if course_toml is not None else root / "grader" / "course.toml")
    labs = tuple(load_lab(p, gpus) for p in sorted((root / LABS_DIR).glob("*/lab.toml")))
    numbers = [lab.number for lab in labs]
    for n in set(numbers):
        if numbers.count(n) > 1:
            raise ManifestError(f"{root / LABS_DIR}: two lab folders have number {n}")
    return labs
