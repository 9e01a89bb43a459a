#!/usr/bin/env python3
"""Check the course's figures: every image a Markdown file references exists, and every figure has its data.

  * Markdown scanned: README.md, docs/**/*.md, labs/**/*.md (images in fenced code are ignored; URLs are skipped).
  * For each docs/figures/NAME.png or NAME.svg, docs/data/NAME.json must exist: the benchmark writes the JSON and
    the plotting script draws the figure from it, so a figure without its data cannot be redrawn or checked.

Usage: python3 docs/tools/check_figures.py [--root DIR]     exit 0: all present; 1: prints what is missing
"""

import argparse
import posixpath
import sys
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from markdown_links import find_links, is_external, split_anchor  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIGURE_SUFFIXES = (".png", ".svg")


def markdown_files(root):
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md")) + sorted((root / "labs").rglob("*.md"))
    return [f for f in files if f.is_file()]


def missing_images(root):
    """'file:line: image X does not exist' for each referenced local image that is not there."""
    missing = []
    for md in markdown_files(root):
        source = md.relative_to(root).as_posix()
        for link in find_links(md.read_text(encoding="utf-8")):
            if link.kind not in ("image", "html-img") or is_external(link.target):
                continue
            path = posixpath.normpath(posixpath.join(posixpath.dirname(source), unquote(split_anchor(link.target)[0])))
            if path.startswith("../") or not (root / path).is_file():
                missing.append(f"{source}:{link.line}: image {link.target} ({path}) does not exist")
    return missing


def missing_data(root):
    """'docs/figures/NAME.png: data docs/data/NAME.json does not exist' for each figure without its data."""
    missing = []
    for figure in sorted((root / "docs" / "figures").glob("*")):
        if figure.suffix in FIGURE_SUFFIXES:
            data = root / "docs" / "data" / (figure.stem + ".json")
            if not data.is_file():
                missing.append(
                    f"{figure.relative_to(root).as_posix()}: data "
                    f"{data.relative_to(root).as_posix()} does not exist"
                )
    return missing


def main(argv=None):
    parser = argparse.ArgumentParser(description="Check that referenced images and each figure's data exist.")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    root = parser.parse_args(argv).root.resolve()
    problems = missing_images(root) + missing_data(root)
    for problem in problems:
        print(f"missing: {problem}")
    figures = len([f for f in (root / "docs" / "figures").glob("*") if f.suffix in FIGURE_SUFFIXES])
    print(
        f"check_figures: {len(problems)} missing"
        if problems
        else f"check_figures: ok ({figures} figure(s), every referenced image exists)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
