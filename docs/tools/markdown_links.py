"""Find and rewrite the links of a Markdown file, skipping code.

Shared by build_site.py (rewrites links for the site) and check_figures.py (checks images).
Python 3 standard library only.
"""

import re

# A fenced code block opens with 3+ backticks or tildes (up to 3 spaces of indent) and closes with the same
# character, at least as many times.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")

# One regex for the things on a line, tried left to right: an inline code span (kept as is) or a link/image.
# Link text may hold one level of brackets: [see [1]](x.md). The target may be <...> or a bare URL, and may be
# followed by a "title".
INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<link>(?P<bang>!?)\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]"
    r"\(\s*(?P<target><[^>\n]*>|[^)\s]+)(?P<title>\s+\"[^\"]*\")?\s*\))"
)

# A reference definition: [name]: target "title"
REFDEF = re.compile(r"^(?P<lead> {0,3}\[[^\]]+\]:\s*)(?P<target><[^>\n]*>|\S+)(?P<rest>.*)$")

# <img src="..."> in raw HTML.
IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*\"(?P<target>[^\"]+)\"", re.IGNORECASE)


def is_external(target):
    """True for URLs, mail links and pure anchors: nothing on disk to check or rewrite."""
    return bool(re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//|#)", target))


def split_anchor(target):
    """'a/b.md#x' -> ('a/b.md', '#x'); a query string goes with the anchor."""
    for i, ch in enumerate(target):
        if ch in "#?":
            return target[:i], target[i:]
    return target, ""


def prose_lines(text):
    """Yield (line_number, line, in_code) for each line; in_code is True inside fenced code (fences included)."""
    fence = None
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            yield number, line, True
        elif fence is not None:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and line.strip() == match.group(1)
            ):
                fence = None
            yield number, line, True
        else:
            yield number, line, False


class Link:
    """One link found in prose: kind is 'link', 'image', 'refdef' or 'html-img'."""

    def __init__(self, kind, text, target, line):
        self.kind, self.text, self.target, self.line = kind, text, target, line

    def __repr__(self):
        return f"Link({self.kind!r}, {self.text!r}, {self.target!r}, line {self.line})"


def _bare(target):
    return target[1:-1] if target.startswith("<") and target.endswith(">") else target


def find_links(text):
    """All links, images, reference definitions and <img src> in prose (not in code)."""
    found = []
    for number, line, in_code in prose_lines(text):
        if in_code:
            continue
        ref = REFDEF.match(line.rstrip("\n"))
        if ref:
            found.append(Link("refdef", "", _bare(ref.group("target")), number))
            continue
        for m in INLINE.finditer(line):
            if m.group("link"):
                kind = "image" if m.group("bang") else "link"
                found.append(Link(kind, m.group("text"), _bare(m.group("target")), number))
        for m in IMG_SRC.finditer(line):
            found.append(Link("html-img", "", m.group("target"), number))
    return found


def rewrite_links(text, rewrite):
    """Return text with each prose link passed through rewrite(link) -> replacement Markdown or None (keep).

    For inline links and images the replacement replaces the whole `[text](target)`; for reference definitions
    it replaces only the target.
    """
    out = []
    for number, line, in_code in prose_lines(text):
        if in_code:
            out.append(line)
            continue
        body, newline = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        ref = REFDEF.match(body)
        if ref:
            new = rewrite(Link("refdef", "", _bare(ref.group("target")), number))
            if new is not None:
                body = ref.group("lead") + new + ref.group("rest")
            out.append(body + newline)
            continue

        def one(m):
            if m.group("code"):
                return m.group(0)
            kind = "image" if m.group("bang") else "link"
            new = rewrite(Link(kind, m.group("text"), _bare(m.group("target")), number))
            return m.group(0) if new is None else new

        out.append(INLINE.sub(one, body) + newline)
    return "".join(out)
