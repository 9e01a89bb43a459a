#!/usr/bin/env python3
"""Assemble and build the course site: docs/ + lab handouts -> build/site-src/ -> mkdocs --strict -> build/site/.

MkDocs reads only inside its docs_dir, and the handouts live in labs/NN_name/README.md, so this script stages
one folder the site is built from:

  docs/X                     -> build/site-src/X          (docs/tools/ is left out)
  labs/NN_name/README.md     -> build/site-src/labs/NN_name.md

On the way it
  * expands code includes: a line `<!-- include: PATH:NAME -->` is followed by a fenced block holding the lines
    between `// [docs:NAME]` and `// [/docs:NAME]` in PATH (relative to the repository root; `# [docs:NAME]`
    in Python/CMake). Without `:NAME` the whole file is included. Marker lines of other regions and the lines
    that open and close a lab's TODO region (`// TODO(labNN): ...`, `// END TODO`) are left out of the block.
    PATH may also name an entry of a lab's catalogue of known-wrong kernels,
    `grader/labs/NN_name/catalogue.toml#ENTRY`: the block then comes from the mutant that entry makes of the lab's
    solution (built by grader/course_grader/manifest.py, as CMake builds it), whole or by region as for a file;
  * rewrites relative links so they work on the site (`../../docs/tiling.md` -> `../tiling.md` in a handout)
    and turns links to repository files that are not pages (`../../solutions/...`) into `code text`, or into
    links to --repo-url if one is given (or `repo_url:` is set in mkdocs.yml);
  * writes a config next to the staging folder from mkdocs.yml, leaving out nav entries whose page does not
    exist yet (a lab whose handout is not written), and runs `mkdocs build --strict` with it.

Two flavours (--flavour). The student flavour is the site students read: the pages marked `# instructor` in the
nav of mkdocs.yml are left out (a link to one from a student page is a problem, rendered as its text), and a page may
include only student material: files under labs/, common/ and docs/, and a lab's grading files in
grader/labs/NN_name/ (its manifest, tests, headers, baselines), never solutions/, a variant or a catalogue entry (a
mutant of the solution); such an include is an error, so the build fails. The instructor flavour has every page and
may include anything. The default is the instructor flavour in a checkout with solutions/, the student flavour
elsewhere (the student edition, grader/edition/student_edition.py, which ships the student pages only).

Usage (from anywhere; Python 3 standard library only):
  python3 docs/tools/build_site.py            stage and build the site into build/site/  [--flavour student]
  python3 docs/tools/build_site.py --serve    stage, serve on http://127.0.0.1:8000, re-stage when a source changes
  python3 docs/tools/build_site.py --check    no MkDocs needed: fail if an included block differs from its
                                              source, a marker, link target or nav page is missing, or a measured
                                              number differs from its data or names none (measured_numbers.py)
  python3 docs/tools/build_site.py --update   rewrite the fenced blocks under include lines from their sources,
                                              and the measured numbers from their data
"""

import argparse
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markdown_links import FENCE, is_external, prose_lines, rewrite_links, split_anchor  # noqa: E402

try:
    import measured_numbers  # noqa: E402
except ImportError:  # the student edition ships this script and markdown_links.py only, and none of the data
    measured_numbers = None

ROOT = Path(__file__).resolve().parents[2]
INSTALL_HINT = "install with: sudo apt-get install mkdocs mkdocs-material   (or: pip install mkdocs-material)"

INCLUDE = re.compile(r"^<!--\s*include:\s*(?P<spec>\S+?)\s*-->\s*$")
MARKER = re.compile(r"^\s*(?://|#)\s*\[(?P<end>/?)docs:(?P<name>[A-Za-z0-9_.-]+)\]\s*$")
# The lines that open and close a lab's TODO region (`// TODO(lab03): ...`, `// END TODO`): in a skeleton they frame
# the student's part, in shown code they are noise, so included regions leave them out.
PREPROCESSOR = re.compile(r"^#\s*(?:pragma|if|ifdef|ifndef|elif|else|endif|define|undef|include)\b")
TODO_LINE = re.compile(r"^\s*(?://|#)\s*(?:TODO\([^)]*\)|END TODO\b)")
LANGUAGES = {
    ".cu": "cuda",
    ".cuh": "cuda",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".h": "cpp",
    ".hpp": "cpp",
    ".py": "python",
    ".cmake": "cmake",
    ".txt": "cmake",
    ".json": "json",
    ".sh": "bash",
}
LAB_README = re.compile(r"^labs/(?P<lab>\d\d_[A-Za-z0-9_]+)/README\.md$")
# An include of a catalogue entry: the mutant grader/course_grader/manifest.py builds from the lab's solution.
CATALOGUE_ENTRY = re.compile(r"^(?P<toml>grader/labs/[^/#]+/catalogue\.toml)#(?P<entry>[^:#]*)$")
FLAVOURS = ("student", "instructor")
# What a student page may include: the folders the student edition ships whole, and the files directly in a lab's
# grading folder except its catalogue (grader/labs/NN_name/variants/ is one level deeper).
STUDENT_FOLDERS = ("labs", "common", "docs")
LAB_GRADING_FILE = re.compile(r"^grader/labs/\d\d_[a-z0-9_]+/(?!catalogue\.toml)[^/]+$")


class SiteError(Exception):
    """A problem the author must fix; the message names the file and line."""


# ---------------------------------------------------------------------------------------------------- pages


def site_pages(root, left_out=frozenset()):
    """Map each repository file that becomes part of the site to its path inside the staging folder. `left_out`:
    site paths of pages this flavour leaves out (the student flavour's instructor pages)."""
    pages = {}
    docs = root / "docs"
    for path in sorted(docs.rglob("*")):
        rel = path.relative_to(docs).as_posix()
        if path.is_file() and not rel.startswith("tools/") and "__pycache__" not in rel and rel not in left_out:
            pages["docs/" + rel] = rel
    for readme in sorted((root / "labs").glob("*/README.md")):
        rel = readme.relative_to(root).as_posix()
        match = LAB_README.match(rel)
        if match:
            pages[rel] = f"labs/{match.group('lab')}.md"
    return pages


# ------------------------------------------------------------------------------------------------- includes


def _manifest():
    """course_grader.manifest and .catalogue of this checkout (imported on first use: they need Python 3.11's
    tomllib)."""
    grader = str(ROOT / "grader")
    if grader not in sys.path:
        sys.path.insert(0, grader)
    try:
        from course_grader import catalogue, manifest
    except ImportError as e:
        raise SiteError(f"cannot import course_grader.manifest from {grader} to build a catalogue entry: {e}") from e
    return manifest, catalogue


def mutant_source(root, path):
    """(text, file name) of the mutant a `grader/labs/NN_name/catalogue.toml#ENTRY` names. Raises SiteError."""
    match = CATALOGUE_ENTRY.match(path)
    toml, entry = match.group("toml"), match.group("entry")
    if not (root / toml).is_file():
        raise SiteError(f"included catalogue {toml} does not exist")
    manifest, catalogue = _manifest()
    try:
        gpus = manifest.load_gpus(root / "grader" / "course.toml")
        lab = manifest.load_lab((root / toml).with_name("lab.toml"), gpus)
        mutants = catalogue.load_catalogue(lab, root)
    except manifest.ManifestError as e:
        raise SiteError(f"cannot build the entries of {toml}: {e}") from e
    for mutant in mutants:
        if mutant.name == entry:
            return mutant.text, mutant.file
    known = ", ".join(m.name for m in mutants) or "none"
    raise SiteError(f"{toml} has no entry '{entry}' (its entries: {known})")


def student_may_include(path):
    """Whether a student page may include PATH, an include's file or catalogue entry: student material only (see
    the module's docstring; the student edition ships exactly these)."""
    path = posixpath.normpath(path)
    return path.split("/")[0] in STUDENT_FOLDERS or bool(LAB_GRADING_FILE.match(path))


def read_source(root, path):
    """(text, file name for the block's language) of an include's PATH: a repository file or a catalogue entry."""
    if CATALOGUE_ENTRY.match(path):
        return mutant_source(root, path)
    source = root / path
    if not source.is_file():
        raise SiteError(f"included file {path} does not exist")
    return source.read_text(encoding="utf-8"), path


def extract_region(root, spec, flavour="instructor"):
    """The text a spec `PATH` or `PATH:NAME` names, dedented, ending in a newline. Raises SiteError."""
    return include(root, spec, flavour)[0]


def include(root, spec, flavour="instructor"):
    """(region text, block language) for a spec `PATH` or `PATH:NAME`. Raises SiteError, also for solution code in
    the student flavour."""
    path, _, name = spec.partition(":")
    if flavour == "student" and not student_may_include(path):
        raise SiteError(
            f"{path} is not student material: only the instructor flavour may show solution code (solutions/, a "
            "variant, a catalogue entry); a student page may include from labs/, common/, docs/ and a lab's grading "
            "files in grader/labs/NN_name/"
        )
    text, file_name = read_source(root, path)
    lang = LANGUAGES.get(Path(file_name).suffix, "text")
    lines = text.splitlines(keepends=True)
    if not name:
        body = [line for line in lines if not MARKER.match(line) and not TODO_LINE.match(line)]
    else:
        starts = [
            i
            for i, line in enumerate(lines)
            if (m := MARKER.match(line)) and m.group("name") == name and not m.group("end")
        ]
        if not starts:
            raise SiteError(f"no marker [docs:{name}] in {path}")
        if len(starts) > 1:
            raise SiteError(f"marker [docs:{name}] appears {len(starts)} times in {path}")
        body = []
        for line in lines[starts[0] + 1 :]:
            m = MARKER.match(line)
            if m and m.group("name") == name and m.group("end"):
                break
            if not m and not TODO_LINE.match(line):
                body.append(line)
        else:
            raise SiteError(f"[docs:{name}] in {path} (line {starts[0] + 1}) has no closing [/docs:{name}]")
    text = _dedent(body).strip("\n")
    if not text:
        raise SiteError(f"region {spec} is empty")
    return text + "\n", lang


def _dedent(lines):
    """Remove the indentation common to the lines, not counting blank lines and C preprocessor lines (a `#pragma`
    sits in column 0 inside an indented loop); a line with less indentation keeps what it has."""
    margins = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip() and not PREPROCESSOR.match(line)]
    margin = min(margins, default=0)
    out = []
    for line in lines:
        indent = len(line) - len(line.lstrip(" \t"))
        out.append(line[min(margin, indent) :] if line.strip() else line.lstrip(" \t"))
    return "".join(out)


def render_block(spec, body, lang=None):
    """A fenced block for the region; the fence is longer than any backtick run inside. The language comes from
    the spec's file name unless given (a catalogue entry's comes from its mutant's file)."""
    if lang is None:
        lang = LANGUAGES.get(Path(spec.partition(":")[0]).suffix, "text")
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}{lang}\n{body}{fence}\n"


def _block_end(lines, start):
    """Index after the fenced block opening at lines[start], or None if lines[start] opens none."""
    opening = FENCE.match(lines[start]) if start < len(lines) else None
    if not opening:
        return None
    fence = opening.group(1)
    for i in range(start + 1, len(lines)):
        m = FENCE.match(lines[i])
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and lines[i].strip() == m.group(1):
            return i + 1
    return len(lines)


def include_specs(text):
    """The specs of a Markdown text's include lines, in order (not those shown inside code)."""
    return [
        m.group("spec") for _, line, in_code in prose_lines(text) if not in_code and (m := INCLUDE.match(line.strip()))
    ]


def expand_includes(text, root, where, flavour="instructor"):
    """Refresh the block after each include line. Returns (new_text, stale, errors).

    stale: messages for blocks that were missing or differed from their source (the new text fixes them);
    errors: messages for includes that cannot be resolved (missing file or marker).
    """
    lines = text.splitlines(keepends=True)
    code = {number - 1 for number, _, in_code in prose_lines(text) if in_code}
    out, stale, errors = [], [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = None if i in code else INCLUDE.match(line.strip())
        if match and not line.endswith("\n"):
            line += "\n"
        out.append(line)
        i += 1
        if not match:
            continue
        spec = match.group("spec")
        try:
            block = render_block(spec, *include(root, spec, flavour))
        except SiteError as e:
            errors.append(f"{where}:{i}: {e}")
            continue
        end = _block_end(lines, i)
        old = "".join(lines[i:end]) if end else None
        if old is None:
            stale.append(f"{where}:{i}: no fenced block after the include of {spec}")
        elif old.rstrip("\n") != block.rstrip("\n"):
            stale.append(f"{where}:{i}: the block differs from {spec}")
        out.append(block)
        if end:
            i = end
    return "".join(out), stale, errors


# ---------------------------------------------------------------------------------------------------- links


def _as_code(text, path):
    bare = text.strip().strip("`")
    if bare in (path, path + "/", posixpath.basename(path), ""):
        return f"`{path}`"
    return f"{text} (`{path}`)"


def rewrite_for_site(text, source, pages, root, repo_url=None, ref="main", left_out=frozenset()):
    """Rewrite the links of repository file `source` for its place in the site. Returns (text, problems).

    problems: link targets that do not exist, images outside the site, reference-style links to repository
    files when no repo URL is known, and links to pages this flavour leaves out (`left_out`: repository paths). Such
    links become code text (a left-out page: the link's text) so the site still builds.
    """
    problems = []
    here = posixpath.dirname(source)
    page_dir = posixpath.dirname(pages.get(source, source))

    def rewrite(link):
        if not link.target or is_external(link.target):
            return None
        path, anchor = split_anchor(link.target)
        if not path:
            return None
        target = posixpath.normpath(posixpath.join(here, unquote(path)))
        if (root / target).is_dir() and f"{target}/README.md" in pages:
            target = f"{target}/README.md"
        where = f"{source}:{link.line}"
        if target in left_out:
            problems.append(f"{where}: links to {target}, a page the student flavour leaves out (# instructor)")
            return None if link.kind in ("refdef", "image") else link.text
        if target in pages:
            new = posixpath.relpath(pages[target], page_dir or ".") + anchor
            if new == link.target:
                return None
            return new if link.kind == "refdef" else f"{'!' if link.kind == 'image' else ''}[{link.text}]({new})"
        if target.startswith("../") or not (root / target).exists():
            problems.append(f"{where}: link target {link.target} ({target}) does not exist")
            return None if link.kind in ("refdef", "image") else _as_code(link.text, target)
        if link.kind == "image":
            problems.append(f"{where}: image {target} is not under docs/, so the site cannot show it")
            return None
        url = None
        if repo_url:
            kind = "tree" if (root / target).is_dir() else "blob"
            url = f"{repo_url.rstrip('/')}/{kind}/{ref}/{target}{anchor}"
        if link.kind == "refdef":
            if url is None:
                problems.append(f"{where}: reference-style link to {target} needs --repo-url; use an inline link")
                return None
            return url
        return f"[{link.text}]({url})" if url else _as_code(link.text, target)

    return rewrite_links(text, rewrite), problems


# ------------------------------------------------------------------------------------------------------ nav

NAV_PAGE = re.compile(r"^\s*-\s*(?:[^:\n]+:\s*)?(?P<page>[^\s:]+\.md)\s*(?P<comment>#.*)?$")
INSTRUCTOR_MARK = re.compile(r"^#\s*instructor\b")  # a nav line's comment that makes its page instructor-only
NAV_SECTION = re.compile(r"^(?P<indent>\s*)-\s*[^:\n]+:\s*$")


def nav_pages(config_text):
    """(line_index, page) for each page listed in the nav: block of mkdocs.yml (one entry per line)."""
    found, in_nav = [], False
    for i, line in enumerate(config_text.splitlines()):
        if re.match(r"^nav:\s*$", line):
            in_nav = True
        elif in_nav and line.strip() and not line.startswith((" ", "#", "-")):
            in_nav = False
        elif in_nav and (m := NAV_PAGE.match(line)):
            found.append((i, m.group("page")))
    return found


def instructor_pages(config_text):
    """The pages whose nav line in mkdocs.yml ends in the comment `# instructor`: left out of the student flavour."""
    lines = config_text.splitlines()
    return {
        page for i, page in nav_pages(config_text) if INSTRUCTOR_MARK.match(NAV_PAGE.match(lines[i])["comment"] or "")
    }


def without_pages(config_text, pages):
    """mkdocs.yml's text without the nav entries of `pages`, and without sections they leave empty."""
    drop = {i for i, page in nav_pages(config_text) if page in pages}
    kept = [line for i, line in enumerate(config_text.splitlines()) if i not in drop]
    # Drop sections whose next meaningful line is not indented deeper (their pages all went).
    changed = True
    while changed:
        changed = False
        for i, line in enumerate(kept):
            m = NAV_SECTION.match(line)
            if not m:
                continue
            rest = [x for x in kept[i + 1 :] if x.strip() and not x.strip().startswith("#")]
            if not rest or len(rest[0]) - len(rest[0].lstrip()) <= len(m.group("indent")):
                del kept[i]
                changed = True
                break
    return "\n".join(kept) + "\n"


def site_config(config_text, staging, site, existing):
    """The mkdocs.yml text pointed at the staging folder, without nav pages that are not in `existing`.

    Returns (text, dropped pages). A nav section left empty is dropped too.
    """
    dropped = [page for _, page in nav_pages(config_text) if page not in existing]
    out = []
    for line in without_pages(config_text, set(dropped)).splitlines():
        if line.startswith("docs_dir:") or line.startswith("site_dir:"):
            continue
        out.append(line)
    out += [f"docs_dir: {staging}", f"site_dir: {site}"]
    return "\n".join(out) + "\n", dropped


def repo_url_from(config_text):
    m = re.search(r"^repo_url:\s*['\"]?([^'\"\s]+)", config_text, re.MULTILINE)
    return m.group(1) if m else None


# -------------------------------------------------------------------------------------------------- staging


def left_out_pages(root, flavour):
    """Site paths of the pages `flavour` leaves out: the student flavour's instructor pages."""
    if flavour == "instructor" or not (root / "mkdocs.yml").is_file():
        return frozenset()
    return frozenset(instructor_pages((root / "mkdocs.yml").read_text(encoding="utf-8")))


def staged_files(root, repo_url=None, ref="main", flavour="instructor"):
    """What the staging folder should hold: {site path: bytes}, plus (notes, problems, errors).

    notes: include blocks that were refreshed (the committed Markdown is stale);
    problems: broken links (warnings in a build, errors in --check); errors: unresolvable includes, and in the
    student flavour includes of solution code.
    """
    left_out = left_out_pages(root, flavour)
    pages = site_pages(root, left_out)
    left_out_sources = {source for source, dest in site_pages(root).items() if dest in left_out}
    files, notes, problems, errors = {}, [], [], []
    for source, dest in pages.items():
        if not source.endswith(".md"):
            files[dest] = (root / source).read_bytes()
            continue
        text = (root / source).read_text(encoding="utf-8")
        text, stale, bad = expand_includes(text, root, source, flavour)
        text, broken = rewrite_for_site(text, source, pages, root, repo_url, ref, left_out_sources)
        files[dest] = text.encode("utf-8")
        notes += stale
        errors += bad
        problems += broken
    return files, notes, problems, errors


def sync(folder, files):
    """Make `folder` hold exactly `files`, writing only what changed (so a running server reloads less)."""
    folder.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        path = folder / rel
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in sorted(folder.rglob("*"), reverse=True):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def stage(root, staging, site, repo_url, ref, flavour="instructor"):
    """Stage the site and write its config. Returns the config path; raises SiteError on include errors."""
    config_text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    repo_url = repo_url or repo_url_from(config_text)
    files, notes, problems, errors = staged_files(root, repo_url, ref, flavour)
    if errors:
        raise SiteError("cannot expand code includes:\n  " + "\n  ".join(errors))
    sync(staging, files)
    config_text = without_pages(config_text, left_out_pages(root, flavour))
    config, dropped = site_config(config_text, staging, site, set(files))
    path = staging.with_name(staging.name + ".mkdocs.yml")
    path.write_text(config, encoding="utf-8")
    for note in notes:
        print(f"note: {note} (refreshed on the site; run build_site.py --update to refresh the Markdown)")
    for problem in problems:
        print(f"warning: {problem}")
    for page in dropped:
        print(f"warning: nav page {page} does not exist yet; left out of this build")
    return path


# ----------------------------------------------------------------------------------------------- check/update


def check(root, flavour="instructor"):
    """Everything that would make the committed docs wrong. Returns a list of messages (empty: all good)."""
    config_text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    files, stale, broken, errors = staged_files(root, repo_url_from(config_text), flavour=flavour)
    left_out = left_out_pages(root, flavour)
    missing_nav = [
        f"mkdocs.yml:{i + 1}: nav page {page} does not exist"
        for i, page in nav_pages(config_text)
        if page not in files and page not in left_out
    ]
    numbers = measured_numbers.check_pages(root, number_pages(root, flavour)) if measured_numbers else []
    stale = [f"{s} (run: python3 docs/tools/build_site.py --update)" for s in stale]
    return errors + stale + broken + missing_nav + numbers


def number_pages(root, flavour="instructor"):
    """The Markdown files whose measured numbers are checked: the flavour's pages and the top-level README.md."""
    pages = [source for source in site_pages(root, left_out_pages(root, flavour)) if source.endswith(".md")]
    return pages + (["README.md"] if (root / "README.md").is_file() else [])


def update(root):
    """Rewrite the blocks under include lines in the Markdown sources, and the measured numbers from their data.
    Returns (updated files, errors)."""
    updated, errors = [], []
    for source in site_pages(root):
        if not source.endswith(".md"):
            continue
        path = root / source
        text = path.read_text(encoding="utf-8")
        new, stale, bad = expand_includes(text, root, source)
        errors += bad
        if not bad and new != text:
            path.write_text(new, encoding="utf-8")
            updated.append(source)
    if measured_numbers:
        changed, bad = measured_numbers.update_pages(root, number_pages(root))
        updated += [source for source in changed if source not in updated]
        errors += bad
    return updated, errors


# --------------------------------------------------------------------------------------------------- mkdocs


def find_mkdocs():
    """A command that runs MkDocs with the Material theme available, or raise SiteError saying what to install."""
    candidates = [sys.executable, "/usr/bin/python3", shutil.which("python3"), shutil.which("python")]
    have_mkdocs = False
    for python in dict.fromkeys(c for c in candidates if c and os.path.exists(c)):
        probe = "import mkdocs\nimport material\nimport pymdownx"  # Debian's mkdocs puts its themes on sys.path
        result = subprocess.run([python, "-c", probe], capture_output=True, text=True)
        if result.returncode == 0:
            return [python, "-m", "mkdocs"]
        have_mkdocs = have_mkdocs or "No module named 'mkdocs'" not in result.stderr
    if have_mkdocs:
        raise SiteError(f"MkDocs is installed but the Material theme is missing: {INSTALL_HINT}")
    raise SiteError(f"MkDocs is not installed: {INSTALL_HINT}")


def snapshot(root):
    """Modification times of every source the site is staged from."""
    paths = list((root / "docs").rglob("*")) + list((root / "labs").glob("*/README.md"))
    paths += [p for top in ("solutions", "labs", "common") for p in (root / top).rglob("*") if p.suffix in LANGUAGES]
    paths += list((root / "grader" / "labs").glob("*/*.toml"))  # catalogue entries are built from these
    return {str(p): p.stat().st_mtime for p in paths if p.is_file()}


def serve(root, staging, site, args, mkdocs):
    config = stage(root, staging, site, args.repo_url, args.repo_ref, args.flavour)
    server = subprocess.Popen(mkdocs + ["serve", "-f", str(config), "--dev-addr", args.dev_addr])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so `finally` stops the server on kill too
    print(f"serving on http://{args.dev_addr}/ ; edits to docs/, handouts and included sources are re-staged")
    seen = snapshot(root)
    try:
        while server.poll() is None:
            time.sleep(1)
            now = snapshot(root)
            if now != seen:
                seen = now
                try:
                    stage(root, staging, site, args.repo_url, args.repo_ref, args.flavour)
                except SiteError as e:
                    print(f"error: {e}")
    except KeyboardInterrupt:
        pass
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait()
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="check includes, links, nav and numbers; needs no MkDocs")
    mode.add_argument("--update", action="store_true", help="refresh the code blocks and the measured numbers")
    mode.add_argument("--serve", action="store_true", help="serve locally and re-stage on edits")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    parser.add_argument("--staging", type=Path, help="staging folder (default: ROOT/build/site-src)")
    parser.add_argument("--site", type=Path, help="output folder (default: ROOT/build/site)")
    parser.add_argument("--repo-url", help="link repository files to REPO_URL/blob/REF/PATH instead of code text")
    parser.add_argument("--repo-ref", default="main", help="branch or tag for --repo-url links (default: main)")
    parser.add_argument("--dev-addr", default="127.0.0.1:8000", help="address for --serve")
    parser.add_argument(
        "--flavour",
        choices=FLAVOURS,
        help="student: no instructor pages, no solution code; instructor: everything (default: instructor where "
        "the checkout has solutions/, else student)",
    )
    args = parser.parse_args(argv)
    root = args.root.resolve()
    args.flavour = args.flavour or ("instructor" if (root / "solutions").is_dir() else "student")
    staging = (args.staging or root / "build" / "site-src").resolve()
    site = (args.site or root / "build" / "site").resolve()

    try:
        if args.check:
            problems = check(root, args.flavour)
            for problem in problems:
                print(f"error: {problem}")
            print(f"check ({args.flavour}): {len(problems)} problem(s)" if problems else "check: docs are consistent")
            return 1 if problems else 0
        if args.update:
            updated, errors = update(root)
            for error in errors:
                print(f"error: {error}")
            print(f"updated: {', '.join(updated)}" if updated else "update: all blocks and numbers match their sources")
            return 1 if errors else 0
        mkdocs = find_mkdocs()
        if args.serve:
            return serve(root, staging, site, args, mkdocs)
        config = stage(root, staging, site, args.repo_url, args.repo_ref, args.flavour)
        result = subprocess.run(mkdocs + ["build", "--strict", "-f", str(config)])
        if result.returncode != 0:
            print("error: mkdocs build --strict failed (see the WARNING lines above)")
            return result.returncode
        print(f"site ({args.flavour} flavour): {site}/index.html")
        return 0
    except SiteError as e:
        print(f"error: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
