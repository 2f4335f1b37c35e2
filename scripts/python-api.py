#!/usr/bin/env python3
"""The Python package's API reference, generated from the docstrings of its type stubs.

    python3 scripts/python-api.py            # prints the reference (Markdown)
    python3 scripts/python-api.py --write    # rewrites it in python/README.md, between the markers
    python3 scripts/python-api.py --check    # exit 1 when python/README.md's copy is out of date

Reads `python/kino/_kino.pyi` with `ast` (no build, no import): every name of its `__all__`, in
that order, with its signature and the first paragraph of its docstring; for a class, its public
methods and properties as well. The stubs are checked against the compiled module by the Python
tests (`python/tests/test_stubs.py`), so the reference describes what `import kino` gives.
Python 3.11, standard library only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "python" / "kino" / "_kino.pyi"
README = ROOT / "python" / "README.md"
START, END = "<!-- api:start (scripts/python-api.py --write) -->", "<!-- api:end -->"


def first_paragraph(node: ast.AST) -> str:
    doc = ast.get_docstring(node) or ""
    return " ".join(doc.split("\n\n")[0].split()).replace("``", "`")


def signature(fn: ast.FunctionDef, drop_self: bool = False) -> str:
    args = ast.unparse(fn.args)
    if drop_self:
        args = args.removeprefix("self, ").removeprefix("self").removeprefix("cls, ").removeprefix("cls")
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    return f"{fn.name}({args}){returns}"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    tree = ast.parse(STUBS.read_text())
    defs: dict[str, ast.AST] = {}
    docs: dict[str, str] = {}
    names: list[str] = []
    body = tree.body
    for i, node in enumerate(body):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defs[node.target.id] = node
            nxt = body[i + 1] if i + 1 < len(body) else None
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                docs[node.target.id] = " ".join(nxt.value.value.split("\n\n")[0].split()).replace("``", "`")
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names = [e.value for e in node.value.elts]
    functions, classes, constants = [], [], []
    for name in names:
        node = defs.get(name)
        if isinstance(node, ast.FunctionDef):
            functions.append(f"| `{cell(signature(node))}` | {cell(first_paragraph(node))} |")
        elif isinstance(node, ast.ClassDef):
            lines = [f"### `{name}`", "", first_paragraph(node)]
            members = []
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and (not item.name.startswith("_") or item.name == "__init__"):
                    is_property = any(ast.unparse(d) == "property" for d in item.decorator_list)
                    shown = (f"{item.name}: {ast.unparse(item.returns)}" if is_property and item.returns
                             else signature(item, drop_self=True).replace("__init__", name, 1))
                    members.append(f"| `{cell(shown)}` | {cell(first_paragraph(item))} |")
            if members:
                lines += ["", "| member | what it does |", "|---|---|", *members]
            classes.append("\n".join(lines))
        elif node is not None:
            constants.append(f"| `{name}` | {cell(docs.get(name, ''))} |")
    out = [START, "", "## API reference", "",
           "Generated from the docstrings of `kino/_kino.pyi` by `scripts/python-api.py`; `help(kino.NAME)` "
           "shows the whole docstring.", "", "### Functions", "", "| function | what it does |", "|---|---|",
           *functions, ""]
    out += ["\n\n".join(classes), ""]
    if constants:
        out += ["### Constants", "", "| name | what it is |", "|---|---|", *constants, ""]
    out.append(END)
    return "\n".join(out) + "\n"


def main() -> int:
    text = render()
    if len(sys.argv) == 1:
        sys.stdout.write(text)
        return 0
    readme = README.read_text()
    if START not in readme or END not in readme:
        print(f"{README.relative_to(ROOT)} has no API markers ({START} ... {END})", file=sys.stderr)
        return 1
    before, rest = readme.split(START, 1)
    after = rest.split(END, 1)[1].lstrip("\n")
    new = before + text + ("\n" + after if after else "")
    if "--write" in sys.argv:
        README.write_text(new)
    elif new != readme:
        print(f"{README.relative_to(ROOT)}'s API reference is out of date: run python3 scripts/python-api.py --write",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
