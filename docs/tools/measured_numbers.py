"""Measured numbers in the docs, each tied to the committed data it comes from (docs/contributing-docs.md).

A number stays literal text; an HTML comment right after it (hidden by GitHub and the site) names its source:

    reaches 9233<!-- num: data/tile_size:"tiled 32"@2048 as .0 --> GFLOP/s,
    1.49×<!-- num: data/tile_size:"tiled 32"@2048 / data/tile_size:"naive, 32 x 32"@2048 as .2× --> the naive kernel

`<!-- num: EXPR as FORMAT -->`: EXPR combines data references SOURCE:PATH with + - * / (spaces around them), numbers,
parentheses and median( ), mean( ), min( ), max( ) of a list. SOURCE is data/NAME (docs/data/NAME.json, the bench),
runs/NAME (grader/calibration/runs/NAME.json, the grader's tools), lab/NN (grader/labs/NN_*/lab.toml) or course
(grader/course.toml). PATH steps: `key`, `.key`, `[key.with.dots]`, `[N]`, `[field=value]` (the one such item),
`[?field=value]` (every such item), `"NAME"` (the series or item of that name, or of the one name starting with it),
`@X` (the point or item whose x is X; a bench point gives its `value`), `.*` (every item). FORMAT: `.N` decimals,
`,.N` with thousands separators, then `%` (times 100) or `×`/`x`, which the written unit must match.
A number that is not a measurement (a hardware fact, a goal, a setting) is marked `<!-- not-measured: REASON -->`.

check_text() recomputes every reference and lints the prose: a decimal, a count with thousands separators or a number
followed by a unit of speed, time or ratio (GB/s, ms, s, %, ×, "of copy", ...) with neither comment after it is an
error; code, comments and link targets are not prose. update_text() rewrites the numbers from the data. Used by
build_site.py --check / --update; Python 3.11 standard library only.
"""

import json
import re
import statistics
import tomllib
from pathlib import Path

from markdown_links import prose_lines

COMMENT = re.compile(r"<!--(.*?)-->", re.S)
REFERENCE = re.compile(r"^\s*num:\s*(?P<body>.*?)\s*$", re.S)
MARKER = re.compile(r"^\s*not-measured:\s*(?P<reason>.*?)\s*$", re.S)
# The number written just before a comment, and the unit between them (one optional space, at most 10 characters).
WRITTEN = re.compile(r"(?<![\w.,])(?P<num>-?\d[\d,]*(?:\.\d+)?)(?P<unit>(?: ?[^\s\d<>|()]\S{0,9})?)$")
FORMAT = re.compile(r"^(?P<sep>,)?\.(?P<dec>\d)(?P<kind>%|×|x)?$")
SOURCES = {"data": "docs/data/{}.json", "runs": "grader/calibration/runs/{}.json"}
FUNCTIONS = {"median": statistics.median, "mean": statistics.fmean, "min": min, "max": max}
TOKEN = re.compile(
    r"\s*(?:(?P<ref>(?:(?:data|runs)/[\w.-]+|lab/\d\d|course):)"
    r"|(?P<func>median|mean|min|max)\("
    r"|(?P<num>\d+(?:\.\d+)?(?:e[-+]?\d+)?)"
    r"|(?P<op>[-+*/()]))"
)
STEP = re.compile(r'\.\*|\[\*\]|\.?[\w-]+|\[[^\]]+\]|"[^"]+"|@-?\d+(?:\.\d+)?')

# The lint: what looks measured. Units of speed, time, bandwidth and ratio, as written after a number.
UNIT = (
    r"(?:%|×|x|[GMT]B/s|[GT]FLOP/s|ms|µs|us|s|seconds?|min|minutes?|hours?|times (?:slower|faster)|per (?:GPU-)?hour"
    r"|of (?:the |a )?(?:copy|cuBLAS))"
)
NUMBER = re.compile(r"(?<![\w.,^/-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)*(?!(?!x(?!\w))\w|[.,]\d)")
AFTER_UNIT = re.compile(r"\s?" + UNIT + r"(?![\w/])")
# A number and × or x with a factor after it is a product or a shape, not a ratio: 32×32, 3 × 256 MiB, 2 × block
# size, 3 × `test_seconds`. A ratio is written against its number (1.5× faster, 1.17x the global stencil, (1.31×)).
FACTOR = re.compile(
    r"\s?[×x]\s?[\d¤]|\s[×x]\s?\(|\s[×x]\s(?!(?:the|a|an|faster|slower|over|against|than|and|or|at|in|of|on|for|with"
    r"|to|from|more|less|when|where|but|as|is|its|below|above|vs)\b)[A-Za-z_]"
)
VERSIONED = re.compile(
    r"(?:CUDA|CMake|cmake|Python|python|Ubuntu|Debian|g\+\+|gcc|clang|nvcc|driver|version|toolkit|capability|"
    r"GoogleTest|Boost\.Context|bubblewrap|toml\+\+|Ninja|sm_|mkdocs|MkDocs|pip)[\s*'\"`]*(?:≥|>=|<|>)?\s*$"
    r"|¤\s\($"  # `g++-12` (12.3): a version after a name shown as code
)
HEADER_UNIT = re.compile(r"GB/s|TB/s|FLOP/s|\btime\b|µs|\bms\b|speed|conflicts|bandwidth|per GPU-hour|per submission")
MASKED = re.compile(r"<!--.*?-->|\]\([^)\n]*\)|<https?://[^>\n]*>|https?://\S+", re.S)
CODE_SPAN = re.compile(r"(?P<ticks>`+)[^\n]+?(?P=ticks)")


class NumberError(Exception):
    """A reference that cannot be computed: malformed, or naming a file or value that does not exist."""


# ------------------------------------------------------------------------------------------------- the data


class Data:
    """The data files of one checkout, each read once."""

    def __init__(self, root):
        self.root, self.files = Path(root), {}

    def path(self, source):
        kind, _, name = source.partition("/")
        if kind in SOURCES:
            return SOURCES[kind].format(name)
        if kind == "lab":
            found = sorted((self.root / "grader" / "labs").glob(f"{name}_*/lab.toml"))
            if len(found) != 1:
                raise NumberError(f"lab/{name}: {len(found)} folders grader/labs/{name}_*/ with a lab.toml")
            return found[0].relative_to(self.root).as_posix()
        return "grader/course.toml"

    def load(self, source):
        rel = self.path(source)
        if rel not in self.files:
            file = self.root / rel
            if not file.is_file():
                raise NumberError(f"{rel} does not exist")
            try:
                text = file.read_text(encoding="utf-8")
                self.files[rel] = tomllib.loads(text) if rel.endswith(".toml") else json.loads(text)
            except (ValueError, tomllib.TOMLDecodeError) as e:
                raise NumberError(f"{rel} cannot be read: {e}") from e
        return self.files[rel]


class Many(list):
    """The values a `.*` step selected: steps apply to each; median() and the like reduce them."""


def _pick(items, keep, what):
    """The one item of a list that `keep` accepts."""
    if not isinstance(items, list):
        raise NumberError(f"{what} needs a list, found {type(items).__name__}")
    found = [item for item in items if isinstance(item, dict) and keep(item)]
    if len(found) != 1:
        raise NumberError(f"{len(found)} items match {what}")
    return found[0]


def _by_name(value, name):
    items = value.get("series") if isinstance(value, dict) else value
    names = [item.get("name") for item in items or [] if isinstance(item, dict)] if isinstance(items, list) else []
    if name in names:
        return _pick(items, lambda item: item.get("name") == name, f'"{name}"')
    starting = [n for n in names if isinstance(n, str) and n.startswith(name)]
    if len(starting) != 1:
        known = "; ".join(str(n) for n in names) or "none"
        raise NumberError(f'{len(starting)} names start with "{name}" (names: {known})')
    return _pick(items, lambda item: item.get("name") == starting[0], f'"{name}"')


def _step(value, step):
    if isinstance(value, Many):
        return Many(_step(v, step) for v in value)
    if step in (".*", "[*]"):
        if isinstance(value, dict):
            return Many(value.values())
        if isinstance(value, list):
            return Many(value)
        raise NumberError(f"{step} needs a list or a table")
    if step.startswith('"'):
        return _by_name(value, step[1:-1])
    if step.startswith("@"):
        items = value.get("points") if isinstance(value, dict) else value
        return _pick(items, lambda item: item.get("x") == float(step[1:]), f"x = {step[1:]}")
    key = step[1:-1] if step.startswith("[") else step.lstrip(".")
    if step.startswith("[") and isinstance(value, list):
        if key.lstrip("-").isdigit():
            if not -len(value) <= int(key) < len(value):
                raise NumberError(f"no item {key} in a list of {len(value)}")
            return value[int(key)]
        field, sep, want = key.partition("=")
        if sep:
            name = field.strip().lstrip("?")
            found = Many(i for i in value if isinstance(i, dict) and str(i.get(name)) == want.strip())
            if len(found) != 1 and not (found and field.startswith("?")):
                raise NumberError(f"{len(found)} items match [{key}]")
            return found if field.startswith("?") else found[0]
    if not isinstance(value, dict) or key not in value:
        known = ", ".join(list(value)[:12]) if isinstance(value, dict) else type(value).__name__
        raise NumberError(f"no key {key!r} (found: {known})")
    return value[key]


def _number(value, what):
    if isinstance(value, Many):
        return Many(_number(v, what) for v in value)
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise NumberError(f"{what} is not a number ({type(value).__name__})")
    try:
        return float(value)
    except ValueError:
        raise NumberError(f"{what} is not a number ({value!r})") from None


def resolve(data, source, path):
    """The number (or Many numbers) at PATH in SOURCE."""
    value = data.load(source)
    for step in STEP.findall(path):
        value = _step(value, step)
    return _number(value, f"{source}:{path}")


# ---------------------------------------------------------------------------------------------- expressions


def _tokens(expr):
    out, at = [], 0
    while at < len(expr.rstrip()):
        m = TOKEN.match(expr, at)
        if not m:
            raise NumberError(f"cannot read {expr[at:].strip()!r}")
        at = m.end()
        if m.group("ref"):
            path = STEP.match(expr, at)
            while path and path.end() > at:
                at = path.end()
                path = STEP.match(expr, at)
            source = m.group("ref")[:-1]
            out.append(("ref", (source, expr[m.end() : at])))
        else:
            kind = next(k for k in ("func", "num", "op") if m.group(k))
            out.append((kind, m.group(kind)))
    return out


def evaluate(expr, data):
    """The value of a reference's expression (a float)."""
    tokens, at = _tokens(expr), 0

    def peek():
        return tokens[at] if at < len(tokens) else (None, None)

    def take(kind=None, value=None):
        nonlocal at
        token = peek()
        if token[0] is None or (kind and token[0] != kind) or (value and token[1] != value):
            raise NumberError(f"expected {value or kind or 'more'} in {expr!r}")
        at += 1
        return token

    def scalar(v):
        if isinstance(v, Many):
            raise NumberError(f"a list of {len(v)} values needs median( ), mean( ), min( ) or max( ) in {expr!r}")
        return v

    def factor():
        kind, value = take()
        if kind == "num":
            return float(value)
        if kind == "ref":
            return resolve(data, *value)
        if kind == "func":
            inner = total()
            take("op", ")")
            values = inner if isinstance(inner, Many) else [inner]
            if not values:
                raise NumberError(f"{value}( ) of nothing in {expr!r}")
            return FUNCTIONS[value](values)
        if value == "(":
            inner = total()
            take("op", ")")
            return inner
        if value == "-":
            return -scalar(factor())
        raise NumberError(f"unexpected {value!r} in {expr!r}")

    def product():
        v = factor()
        while peek() in (("op", "*"), ("op", "/")):
            op, right = take()[1], scalar(factor())
            if op == "/" and right == 0:
                raise NumberError(f"division by zero in {expr!r}")
            v = scalar(v) * right if op == "*" else scalar(v) / right
        return v

    def total():
        v = product()
        while peek() in (("op", "+"), ("op", "-")):
            op, right = take()[1], scalar(product())
            v = scalar(v) + right if op == "+" else scalar(v) - right
        return v

    value = total()
    if at != len(tokens):
        raise NumberError(f"unexpected {tokens[at][1]!r} in {expr!r}")
    return scalar(value)


def formatted(value, spec):
    """(text of the number, unit it requires or None) for a FORMAT spec."""
    m = FORMAT.match(spec.strip())
    if not m:
        raise NumberError(f"format {spec!r} is not .N or ,.N, optionally followed by %, × or x")
    if m.group("kind") == "%":
        value *= 100
    text = f"{value:{m.group('sep') or ''}.{m.group('dec')}f}"
    return ("0" + text[2:] if text.startswith("-0") and not text.strip("-0.,") else text), m.group("kind")


# ---------------------------------------------------------------------------------------------------- pages


def _comments(text):
    """(start, kind, body, line) of each HTML comment in prose: kind 'num', 'marker' or None."""
    code = {number for number, _, in_code in prose_lines(text) if in_code}
    spans = [m.span() for m in CODE_SPAN.finditer(text)]  # `<!-- num: … -->` shown as code is no reference
    for m in COMMENT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if line in code or any(begin < m.start() < end for begin, end in spans):
            continue
        ref, mark = REFERENCE.match(m.group(1)), MARKER.match(m.group(1))
        kind = "num" if ref else "marker" if mark else None
        yield m.start(), kind, (ref or mark).group(1) if kind else "", line


def _written(text, start):
    """The number written right before position `start` (on its line): its match, offsets relative to the line."""
    line_start = text.rfind("\n", 0, start) + 1
    return WRITTEN.search(text[line_start:start]), line_start


def check_text(text, where, data):
    """Problems of one Markdown text: wrong, unreadable or dangling references, and unreferenced numbers."""
    problems, covered = [], []
    for start, kind, body, line in _comments(text):
        if kind is None:
            continue
        m, base = _written(text, start)
        if not m:
            problems.append(f"{where}:{line}: <!-- {kind} --> does not follow a number")
            continue
        covered.append((base + m.start(), start))
        if kind == "marker":
            if not body:
                problems.append(f"{where}:{line}: not-measured marker without a reason")
            continue
        expr, _, spec = body.rpartition(" as ")
        try:
            if not expr:
                raise NumberError("no ' as FORMAT' at the end")
            value = evaluate(expr, data)
            want, unit = formatted(value, spec)
        except NumberError as e:
            problems.append(f"{where}:{line}: {m.group('num')}: {e} (in <!-- num: {body} -->)")
            continue
        written_unit = m.group("unit").strip()
        if value and (not want.strip("-0.,") or "." not in want and abs(value * (100 if unit == "%" else 1)) < 1):
            problems.append(
                f"{where}:{line}: {m.group('num')}: {value:.4g} rounds to {want} with {spec.strip()!r}: "
                "a fraction needs % or * 100, or more decimals"
            )
            continue
        if unit and written_unit != unit or not unit and written_unit in ("%", "×", "x"):
            problems.append(
                f"{where}:{line}: {m.group(0)} is written with unit {written_unit or 'none'!r}, "
                f"its format {spec.strip()!r} says {unit or 'none'!r}"
            )
        elif m.group("num") != want:
            problems.append(
                f"{where}:{line}: {m.group('num')} written, the data gives {want} ({expr.strip()}) "
                "(run: python3 docs/tools/build_site.py --update)"
            )
    return problems + lint(text, where, covered)


def update_text(text, where, data):
    """(new text, problems): every referenced number rewritten from its data."""
    edits, problems = [], []
    for start, kind, body, line in _comments(text):
        m, base = _written(text, start) if kind == "num" else (None, 0)
        expr, _, spec = body.rpartition(" as ")
        try:
            if m and expr:
                edits.append((base + m.start("num"), base + m.end("num"), formatted(evaluate(expr, data), spec)[0]))
        except NumberError as e:
            problems.append(f"{where}:{line}: {e}")
    for begin, end, want in reversed(edits):
        text = text[:begin] + want + text[end:]
    return text, problems


def lint(text, where, covered=()):
    """Measured-looking numbers in prose with neither a reference nor a marker after them."""
    masked = MASKED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)  # blanks that keep the line numbers
    masked = CODE_SPAN.sub(lambda m: "¤" * len(m.group(0)), masked)
    for begin, end in covered:
        masked = masked[:begin] + " " * (end - begin) + masked[end:]
    code = {number for number, _, in_code in prose_lines(text) if in_code}
    problems, header = [], None
    for number, line in enumerate(masked.splitlines(), start=1):
        if number in code:
            continue
        table = line.lstrip().startswith("|")
        if not table:
            header = None
        elif header is None:
            header = [bool(HEADER_UNIT.search(cell)) for cell in line.strip().strip("|").split("|")]
        for m in NUMBER.finditer(line):
            num, rest, before = m.group(0), line[m.end() :], line[: m.start()]
            if num.count(".") > 1 or VERSIONED.search(before):
                continue
            unit = AFTER_UNIT.match(rest)
            if unit and (FACTOR.match(rest) or re.search(r"\d\s?[×x]\s?$", before)):
                unit = None  # 32 × 32: a shape
            column = before.count("|") - 1
            bare_cell = (
                table
                and 0 <= column < len(header)
                and header[column]
                and not before.split("|")[-1].strip()
                and re.match(r"\s*(\||$)", rest)
            )
            if "." in num or "," in num or unit or bare_cell:
                shown = num + (unit.group(0) if unit else "")
                problems.append(
                    f"{where}:{number}: {shown.strip()!r} looks measured but names no source: add "
                    "<!-- num: ... --> after it, or <!-- not-measured: REASON --> "
                    "(docs/contributing-docs.md, Measured numbers)"
                )
    return problems


def check_pages(root, sources):
    """Problems of the Markdown files `sources` (paths relative to root)."""
    data = Data(root)
    return [p for source in sources for p in check_text((Path(root) / source).read_text("utf-8"), source, data)]


def update_pages(root, sources):
    """Rewrite the referenced numbers of `sources`. Returns (updated files, problems)."""
    data, updated, problems = Data(root), [], []
    for source in sources:
        path = Path(root) / source
        text = path.read_text(encoding="utf-8")
        new, bad = update_text(text, source, data)
        problems += bad
        if new != text:
            path.write_text(new, encoding="utf-8")
            updated.append(source)
    return updated, problems
