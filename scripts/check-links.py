#!/usr/bin/env python3
"""Checks the relative links of every tracked Markdown file; exits 1 when any is broken.

Run it from anywhere in the repository: `python3 scripts/check-links.py` (Python 3.11, standard
library only, needs git).

What it checks, in each file of `git ls-files '*.md'`:
- Links: inline `[text](target)` and `![alt](target)`, reference definitions `[ref]: target`, and
  `href="..."` / `src="..."` in HTML tags. Links inside fenced code blocks (``` or ~~~) and inline
  code spans are not links and are ignored, as are targets with a scheme (http, https, mailto, ...)
  or `//host`.
- The target path, relative to the file's directory (or to the repository root when it starts
  with `/`), percent-decoded, must exist (a file or a directory). Targets outside the repository
  (such as `../shared/...`) are skipped, not checked.
- A `#anchor` (alone: the same file; or after a path to a .md file) must name a heading of the
  target as GitHub slugs it: the heading's text (inline code, links and emphasis rendered to their
  text, HTML tags dropped) in lower case, every character removed that is not a letter, mark,
  digit, underscore (connector punctuation, which GitHub keeps), hyphen or space, then each space
  made a hyphen; a repeated slug gets `-1`, `-2`, ... in order. Explicit anchors
  `<a id="...">` / `<a name="...">` count too. Anchors into other kinds of files (such as `#L10`
  into source code) are not checked.

Output: each broken link as `file:line: link -> reason`, then `N links checked, M broken`.
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTR = re.compile(r"<[a-zA-Z][^>]*?\b(?:href|src)\s*=\s*(\"[^\"]*\"|'[^']*')", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*(\"[^\"]*\"|'[^']*')", re.IGNORECASE)
SCHEME = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def repo_root() -> Path:
    out = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=Path(__file__).resolve().parent,
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip()).resolve()


def tracked_markdown(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.md"], cwd=root, check=True, capture_output=True, text=True
    )
    return sorted(p for p in out.stdout.split("\0") if p)


def mask_code_spans(line: str, spans_open: str | None = None) -> str:
    """The line with every inline code span (backticks included) replaced by spaces."""
    out = []
    i = 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            out.append(line[i : i + 2])
            i += 2
            continue
        if line[i] == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            ticks = line[i:j]
            close = re.compile(r"(?<!`)" + ticks + r"(?!`)").search(line, j)
            if close:
                out.append(" " * (close.end() - i))
                i = close.end()
                continue
            out.append(ticks)
            i = j
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


class Lines:
    """A Markdown file's lines outside fenced code blocks, with inline code masked."""

    def __init__(self, text: str):
        self.raw = text.splitlines()
        self.masked: list[str | None] = []  # None: inside (or the fence of) a code block
        fence: str | None = None
        for line in self.raw:
            m = FENCE.match(line)
            if fence is None:
                if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                    fence = m.group(1)
                    self.masked.append(None)
                else:
                    self.masked.append(mask_code_spans(line))
            else:
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                    fence = None
                self.masked.append(None)


def heading_text_to_slug(text: str) -> str:
    # Render the inline Markdown to its text: code spans keep their content verbatim, links and
    # images keep their text, HTML tags go, emphasis markers go.
    parts = re.split(r"(`+)(.*?)\1", text)
    rendered = []
    for k in range(0, len(parts), 3):
        plain = parts[k]
        plain = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", plain)
        plain = re.sub(r"!?\[([^\]]*)\]\[[^\]]*\]", r"\1", plain)
        plain = re.sub(r"<[^>]+>", "", plain)
        plain = re.sub(r"\\(.)", r"\1", plain)
        plain = plain.replace("*", "")
        plain = re.sub(r"(?<![0-9A-Za-z])_+|_+(?![0-9A-Za-z])", "", plain)
        plain = plain.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
        rendered.append(plain)
        if k + 2 < len(parts):
            rendered.append(parts[k + 2])
    s = "".join(rendered).strip().lower()
    kept = []
    for ch in s:
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors_of(lines: Lines) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}

    def add_heading(text: str) -> None:
        slug = heading_text_to_slug(text)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")

    prev_paragraph: str | None = None
    for raw, masked in zip(lines.raw, lines.masked):
        if masked is None:
            prev_paragraph = None
            continue
        for m in HTML_ANCHOR.finditer(masked):
            anchors.add(m.group(1)[1:-1])
        m = ATX.match(raw)
        if m:
            add_heading(m.group(2) or "")
            prev_paragraph = None
            continue
        if prev_paragraph is not None and SETEXT.match(raw):
            add_heading(prev_paragraph)
            prev_paragraph = None
            continue
        stripped = raw.strip()
        paragraph_like = (
            stripped
            and not raw.startswith("    ")
            and not re.match(r"^(?:[>|<]|[-*+]\s|\d+[.)]\s|[-*_](?:\s*[-*_]){2,}\s*$)", stripped)
        )
        prev_paragraph = stripped if paragraph_like else None
    return anchors


def links_in(lines: Lines):
    """(line number, target) for every link outside code."""
    for number, masked in enumerate(lines.masked, start=1):
        if masked is None:
            continue
        m = REF_DEF.match(masked)
        if m:
            yield number, m.group(1)
        for m in INLINE_LINK.finditer(masked):
            yield number, m.group(1)
        for m in HTML_ATTR.finditer(masked):
            yield number, m.group(1)[1:-1]


def main() -> int:
    root = repo_root()
    files = tracked_markdown(root)
    parsed: dict[Path, Lines] = {}
    anchor_cache: dict[Path, set[str]] = {}

    def lines_of(path: Path) -> Lines:
        if path not in parsed:
            parsed[path] = Lines(path.read_text(encoding="utf-8"))
        return parsed[path]

    def anchors(path: Path) -> set[str]:
        if path not in anchor_cache:
            anchor_cache[path] = anchors_of(lines_of(path))
        return anchor_cache[path]

    checked = 0
    broken = 0
    for rel in files:
        source = root / rel
        if not source.is_file():
            continue  # deleted in the working tree
        for number, target in links_in(lines_of(source)):
            link = target
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            if not target or SCHEME.match(target):
                continue
            path_part, _, fragment = target.partition("#")
            path_part = unquote(path_part.split("?", 1)[0])
            if path_part.startswith("/"):
                resolved = (root / path_part.lstrip("/")).resolve()
            elif path_part:
                resolved = (source.parent / path_part).resolve()
            else:
                resolved = source.resolve()
            if resolved != root and root not in resolved.parents:
                continue  # outside the repository (../shared and the like): not checked
            checked += 1
            reason = None
            if not resolved.exists():
                reason = f"{resolved.relative_to(root)} does not exist"
            elif fragment and resolved.is_file() and resolved.suffix.lower() == ".md":
                anchor = unquote(fragment)
                if anchor not in anchors(resolved) and anchor.lower() not in anchors(resolved):
                    reason = f"no heading or anchor #{anchor} in {resolved.relative_to(root)}"
            if reason:
                broken += 1
                print(f"{rel}:{number}: {link} -> {reason}")
    print(f"{checked} links checked, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
