#!/usr/bin/env python3
"""Checks that the figures and facts the Markdown pages state come from one source; exit 1 if not.

Run it from anywhere in the repository: `python3 scripts/check-figures.py` (Python 3.11, standard
library only, needs git). Part of scripts/test.sh (the `docs` phase).

Sources and rules, over every Markdown file git tracks or would track:
- Measured figures: the "Current figures" table of docs/benchmarks.md, one row per figure, its
  anchor `<a id="fig-NAME"></a>` and its figure in the third column. A page cites a figure as a
  link to that anchor, `[9.3x real time](docs/benchmarks.md#fig-analysis-default)`; the link's
  text must be the row's figure exactly, and the anchor must exist. So a figure is retyped
  nowhere: after a new measurement its row changes and every citation that disagrees fails here.
- The binary layout version of signals documents: `BINARY_FORMAT_VERSION` in
  src/signals/binary.rs; a page saying "layout version ... (currently N)" or "reads (1 to N)"
  must say that N.
- Provenance channels: `ANALYSIS_CHANNELS` in src/signals/model.rs; a paragraph that names
  `kino::signals::ANALYSIS_CHANNELS` must list, before the name, exactly those channels.
- Default models: the `Model` entries of models/src/manifest.rs (and its submodules) with `default: true`; a list
  written "the default models (a, b, ...)" must name exactly those.
- The repository's address: `repository` of the workspace's Cargo.toml; python/pyproject.toml's
  `Repository` URL must be the same.
- The models' download: the distinct wheels of the default models (manifest sizes), rounded to
  the nearest 50 MB; a page giving "about N MB" of model wheels must give that N.

Output: each disagreement as `file:line: what -> expected`, then a summary line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path("docs/benchmarks.md")
LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]*#fig-[a-z0-9-]+)\)")
ROW = re.compile(r'^\|\s*<a id="(fig-[a-z0-9-]+)"></a>[^|]*\|[^|]*\|\s*([^|]*?)\s*\|')
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def pages() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return sorted({Path(p) for p in out.split("\0") if p and (ROOT / p).exists()})


def prose(path: Path) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, with their numbers."""
    lines, inside = [], False
    for n, line in enumerate((ROOT / path).read_text().splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            lines.append((n, line))
    return lines


def paragraphs(path: Path) -> list[tuple[int, str]]:
    """Paragraphs (blank-line separated, outside code) joined to one line, with the first line's number."""
    out, cur, start = [], [], 0
    for n, line in prose(path) + [(0, "")]:
        if line.strip():
            if not cur:
                start = n
            cur.append(line.strip())
        elif cur:
            out.append((start, " ".join(cur)))
            cur = []
    return out


def figures() -> dict[str, str]:
    found = {}
    for _, line in prose(BENCH):
        m = ROW.match(line)
        if m:
            found[m.group(1)] = m.group(2)
    if not found:
        sys.exit(f"check-figures: no rows with <a id=\"fig-...\"></a> in {BENCH}")
    return found


def code_facts() -> tuple[int, list[str], list[str], int]:
    binary = (ROOT / "src/signals/binary.rs").read_text()
    version = int(re.search(r"pub const BINARY_FORMAT_VERSION: u32 = (\d+);", binary).group(1))
    model = (ROOT / "src/signals/model.rs").read_text()
    block = re.search(r"pub const ANALYSIS_CHANNELS: &\[&str\] = &\[(.*?)\];", model, re.S).group(1)
    channels = re.findall(r'"([^"]+)"', block)
    # The manifest and its submodules (models/src/manifest/*.rs: pins grouped by concept).
    manifest = "".join(p.read_text() for p in [ROOT / "models/src/manifest.rs",
                                                 *sorted((ROOT / "models/src/manifest").glob("*.rs"))])
    sizes = {name: int(size.replace("_", "")) for name, size in
             re.findall(r"pub static (\w+): Package = Package \{.*?\bsize: ([\d_]+),", manifest, re.S)}
    defaults, wheels = [], set()
    for body in re.findall(r"pub static \w+: Model = Model \{(.*?)\n\};", manifest, re.S):
        if re.search(r"\bdefault: true", body):
            defaults.append(re.search(r'\bid: "([^"]+)"', body).group(1))
            wheels.update(re.findall(r"package: &(\w+)", body))
    download_mb = round(sum(sizes[w] for w in wheels) / 1e6 / 50) * 50
    return version, channels, defaults, download_mb


def main() -> int:
    figs = figures()
    version, channels, defaults, download_mb = code_facts()
    problems: list[str] = []
    cited = 0
    for page in pages():
        where = lambda n: f"{page}:{n}"  # noqa: E731
        for n, line in prose(page):
            for text, target in LINK.findall(line):
                path, anchor = target.split("#", 1)
                resolved = (ROOT / page.parent / unquote(path)).resolve() if path else (ROOT / page).resolve()
                if resolved != (ROOT / BENCH).resolve():
                    continue
                cited += 1
                if anchor not in figs:
                    problems.append(f"{where(n)}: [{text}](#{anchor}) -> no row {anchor} in {BENCH}")
                elif text.strip() != figs[anchor]:
                    problems.append(f"{where(n)}: [{text}](#{anchor}) -> {BENCH} says {figs[anchor]!r}")
        # Lists of the default models, in prose or in a command's comment.
        for n, line in enumerate((ROOT / page).read_text().splitlines(), 1):
            for m in re.finditer(r"the default models \(([^)]*)\)", line):
                named = [x.strip().strip("`") for x in m.group(1).split(",")]
                if sorted(named) != sorted(defaults):
                    problems.append(f"{where(n)}: default models ({', '.join(named)}) -> ({', '.join(defaults)})")
        for n, para in paragraphs(page):
            for m in re.finditer(r"layout version[^()]*\(currently (\d+)\)", para):
                if int(m.group(1)) != version:
                    problems.append(f"{where(n)}: binary layout 'currently {m.group(1)}' -> {version} (BINARY_FORMAT_VERSION)")
            for m in re.finditer(r"reads \(1 to (\d+)\)", para):
                if int(m.group(1)) != version:
                    problems.append(f"{where(n)}: reads '(1 to {m.group(1)})' -> (1 to {version}) (BINARY_FORMAT_VERSION)")
            mention = para.find("`kino::signals::ANALYSIS_CHANNELS`")
            if mention >= 0:
                listed = [t for t in re.findall(r"`([^`]+)`", para[:mention]) if re.fullmatch(r"[a-z_]+(\.[a-z_]+)?", t)]
                missing = [c for c in channels if c not in listed]
                extra = [c for c in listed if c not in channels and c not in ("analysis", "measured", "absent")]
                if missing or extra:
                    problems.append(f"{where(n)}: provenance channels listed {len(listed)}, the code has {len(channels)}"
                                    f" -> missing {missing}, not channels {extra}")
            for m in re.finditer(r"about (\d+) MB(?= of (?:pinned )?(?:model )?wheels| with every wheel| of wheels)"
                                 r"|wheels?(?: once)?(?: [a-z]+){0,6},? about (\d+) MB", para):
                mb = int(m.group(1) or m.group(2))
                if mb != download_mb:
                    problems.append(f"{where(n)}: 'about {mb} MB' of model wheels -> about {download_mb} MB (manifest sizes)")
    import tomllib
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["repository"]
    pyproject = tomllib.loads((ROOT / "python/pyproject.toml").read_text())["project"]["urls"]
    if pyproject.get("Repository") != cargo or not all(u.startswith(cargo) for u in pyproject.values()):
        problems.append(f"python/pyproject.toml: [project.urls] {pyproject} -> under {cargo} (Cargo.toml's repository)")
    for p in problems:
        print(p)
    print(f"{len(figs)} figures in {BENCH}, {cited} citations checked; binary layout {version}, "
          f"{len(channels)} provenance channels, {len(defaults)} default models, about {download_mb} MB of wheels: "
          f"{len(problems)} disagreements")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
