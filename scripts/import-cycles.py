#!/usr/bin/env python3
"""Import circles between the source files of a crate: a file refers to another when it names a
path into it (`crate::a::b`, `super::x`, `use crate::{a, b::c}`); prints each strongly connected
group of more than one file, largest first, and exits 1 when one has more than MAX files.

    scripts/import-cycles.py server/src [MAX]   # default MAX 2
"""
import os
import re
import sys

root = sys.argv[1].rstrip("/")
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def module_of(path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


files = {}
for dirpath, _, names in os.walk(root):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(dirpath, n)
            files[module_of(p)] = p
modules = set(files)


def strip(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # Test modules are not part of the shipped graph.
    cut = re.search(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)
    return text[: cut.start()] if cut else text


def target(parts):
    """The longest module prefix of a path."""
    for k in range(len(parts), 0, -1):
        if tuple(parts[:k]) in modules:
            return tuple(parts[:k])
    return None


def expand(prefix, body):
    """`a::{b, c::d}` -> paths."""
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    paths = []
    for item in out:
        item = item.strip()
        if not item:
            continue
        m = re.match(r"^([\w:]*?)::\{(.*)\}$", item, re.S)
        if m:
            paths += expand(prefix + [p for p in m.group(1).split("::") if p], m.group(2))
        else:
            paths.append(prefix + [p for p in item.split(" as ")[0].strip().split("::") if p])
    return paths


edges = {m: set() for m in modules}
for mod, path in files.items():
    text = strip(open(path).read())
    # A module's children are `mod` + name whether it lives in `x/mod.rs` or `x.rs`; its parent
    # (`super`) is `mod` less its last name.
    here = list(mod)
    refs = []
    for m in re.finditer(r"\buse\s+(crate|super|self)::([^;]*);", text, re.S):
        base = {"crate": [], "super": list(mod[:-1]), "self": list(mod)}[m.group(1)]
        body = m.group(2).strip()
        if body.startswith("{"):
            refs += expand(base, body[1:-1])
        else:
            refs += expand(base, body)
    # `use child::x` / `pub use child::x` in a module that declares `mod child`.
    for m in re.finditer(r"\buse\s+(\w+)::([^;]*);", text, re.S):
        if m.group(1) in ("crate", "super", "self", "std", "core", "alloc"):
            continue
        child = here + [m.group(1)]
        if tuple(child) in modules:
            body = m.group(2).strip()
            refs += expand(child, body[1:-1] if body.startswith("{") else body)
    for m in re.finditer(r"\bcrate((?:::\w+)+)", text):
        refs.append([p for p in m.group(1).split("::") if p])
    for parts in refs:
        t = target(parts)
        if t is not None and t != mod and t != ():
            edges[mod].add(t)

# Tarjan
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(comp)


for v in sorted(modules):
    if v not in index:
        strong(v)
big = sorted((c for c in sccs if len(c) > 1), key=len, reverse=True)
for c in big:
    print(f"{len(c)} files: " + ", ".join(sorted(files[m][len(root) + 1 :] for m in c)))
if os.environ.get("EDGES"):
    for c in big:
        inside = set(c)
        for m in sorted(c):
            print("  " + files[m][len(root) + 1 :] + " -> " + ", ".join(sorted(files[t][len(root) + 1 :] for t in edges[m] if t in inside)))
worst = max((len(c) for c in big), default=1)
print(f"largest import circle: {worst} files (limit {limit})")
sys.exit(1 if worst > limit else 0)
