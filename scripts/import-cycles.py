#!/usr/bin/env python3
"""Import circles between the source files of a crate: a file refers to another when it names a
path into it, in a `use` declaration or inline anywhere in its code (`crate::a::b::Name`,
`super::x::Y`, `super::super::z`, `self::c::f`, `$crate::a` in macros, `child::f` for a module it
declares, `alias::f` for a name it imported); prints each strongly connected group of more than
one file, largest first, and exits 1 when one has more than MAX files.

    scripts/import-cycles.py server/src [MAX]   # default MAX 2
    EDGES=1 scripts/import-cycles.py src         # also the edges inside every circle

Rules:
- A path resolves to the file of the longest module prefix it names (`x/mod.rs`, `x.rs`, files
  under `x/`); a path to an item resolves to the file of the module that holds it, and a
  re-exported name (`pub use`) to the file that re-exports it (whose own `pub use` is its edge on).
  A private module (`mod x;`, `pub(super) mod x;`) is only a prefix for the code that may name
  it: elsewhere `a::x` is the item `x` that `a` re-exports.
- Paths into the crate root (lib.rs / main.rs) are not edges: the root declares and re-exports
  every module, so counting them would join everything into one circle.
- Comments, doc comments, string and char literals are not code. Paths in `pub(in crate::a)` are
  visibility, not use.
- Test code is not part of the shipped graph: items under `#[cfg(test)]` (inline `mod tests {..}`,
  test-only functions and imports), files declared only under `#[cfg(test)]` (and the files below
  them), files that start with `#![cfg(test)]`, and every `tests.rs`.
- The last line of stdout is `largest import circle: N files (limit MAX)` (check-shape.sh reads
  it); circles over the limit are printed to stderr with the edges that make them, each with the
  line and path that makes it.
"""
import os
import sys

root = sys.argv[1].rstrip("/")
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 2

ITEM_KEYWORDS = {
    "fn", "mod", "use", "impl", "struct", "enum", "const", "static", "trait", "type", "pub",
    "unsafe", "async", "extern", "macro_rules", "union",
}  # fmt: skip


def module_of(path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


# ---------------------------------------------------------------------------------------------
# Lexer: identifiers (with `$crate` and raw `r#x` as one token), punctuation (`::` as one token);
# comments, strings, chars, lifetimes and numbers dropped.


def is_ident_start(c):
    return c.isalpha() or c == "_"


def is_ident_char(c):
    return c.isalnum() or c == "_"


def lex(text):
    toks = []  # (kind, value, line); kind "id" or "p"
    i, n, line = 0, len(text), 1

    def skip_string(i):
        """i at the opening quote of a non-raw string; returns the index after the closing one."""
        nonlocal line
        i += 1
        while i < n:
            c = text[i]
            if c == "\\":
                line += text[i + 1 : i + 2] == "\n"
                i += 2
                continue
            if c == "\n":
                line += 1
            if c == '"':
                return i + 1
            i += 1
        return n

    def skip_raw(i):
        """i at the `#`s or quote after `r`; returns the index after the closing quote + hashes."""
        nonlocal line
        hashes = 0
        while i < n and text[i] == "#":
            hashes += 1
            i += 1
        if i >= n or text[i] != '"':
            return None
        end = '"' + "#" * hashes
        j = text.find(end, i + 1)
        j = n if j < 0 else j + len(end)
        line += text.count("\n", i, j)
        return j

    def skip_char(i):
        """i at a quote; a char literal if it is one (returns its end), else None (a lifetime)."""
        if i + 1 < n and text[i + 1] == "\\":
            j = i + 2
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 1
            return j + 1
        if i + 2 < n and text[i + 2] == "'" and text[i + 1] != "\n":
            return i + 3
        return None

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c == '"':
            i = skip_string(i)
        elif c == "'":
            j = skip_char(i)
            if j is not None:
                i = j
            else:  # lifetime or label
                i += 1
                while i < n and is_ident_char(text[i]):
                    i += 1
        elif c.isdigit():
            while i < n and (is_ident_char(text[i])):
                i += 1
        elif is_ident_start(c):
            j = i
            while j < n and is_ident_char(text[j]):
                j += 1
            word = text[i:j]
            nxt = text[j] if j < n else ""
            if word in ("b", "c") and nxt == '"':
                i = skip_string(j)
            elif word == "b" and nxt == "'":
                i = skip_char(j) or j + 1
            elif word in ("r", "br", "cr") and nxt in ('"', "#"):
                end = skip_raw(j)
                if end is not None:
                    i = end
                elif word == "r" and nxt == "#" and j + 1 < n and is_ident_start(text[j + 1]):
                    k = j + 1  # raw identifier r#name
                    while k < n and is_ident_char(text[k]):
                        k += 1
                    toks.append(("id", text[j + 1 : k], line))
                    i = k
                else:
                    toks.append(("id", word, line))
                    i = j
            else:
                toks.append(("id", word, line))
                i = j
        elif c == "$" and text.startswith("crate", i + 1) and not is_ident_char(text[i + 6 : i + 7] or " "):
            toks.append(("id", "$crate", line))
            i += 6
        elif text.startswith("::", i):
            toks.append(("p", "::", line))
            i += 2
        else:
            toks.append(("p", c, line))
            i += 1
    return toks


# ---------------------------------------------------------------------------------------------
# Parser: scopes (the file's module and inline `mod x { .. }` inside it), `use` trees, inline
# paths, `#[cfg(test)]` items skipped, `mod x;` declarations noted.


class Scope:
    def __init__(self, path, parent):
        self.path = list(path)
        self.parent = parent
        self.aliases = {}  # name -> (scope, raw segments)
        self.inline_children = set()


OPEN, CLOSE = ("(", "[", "{"), (")", "]", "}")


def attribute_end(toks, i):
    """toks[i] is `#`; returns (index after the attribute, its tokens) or (i + 1, None)."""
    j = i + 1
    if j < len(toks) and toks[j][1] == "!":
        j += 1
    if j >= len(toks) or toks[j][1] != "[":
        return i + 1, None
    depth, k = 0, j
    while k < len(toks):
        v = toks[k][1] if toks[k][0] == "p" else ""
        if v in OPEN:
            depth += 1
        elif v in CLOSE:
            depth -= 1
            if depth == 0:
                return k + 1, [t[1] for t in toks[j + 1 : k]]
        k += 1
    return len(toks), None


def is_cfg_test(attr):
    return attr == ["cfg", "(", "test", ")"] or attr[:5] == ["cfg", "(", "all", "(", "test"]


def item_end(toks, i):
    """The index after the item (or field, statement, arm) that starts at toks[i], after its
    attributes; a closing bracket that belongs to the enclosing code ends it, unconsumed."""
    while i < len(toks) and toks[i][1] == "#" and toks[i][0] == "p":
        nxt, attr = attribute_end(toks, i)
        if attr is None:
            break
        i = nxt
    if i >= len(toks):
        return i
    first = toks[i][1]
    is_item = toks[i][0] == "id" and first in ITEM_KEYWORDS
    j = i + 1
    if first == "pub" and j < len(toks) and toks[j][1] == "(":
        while j < len(toks) and toks[j][1] != ")":
            j += 1
        j += 1
    is_use = first == "use" or (first == "pub" and j < len(toks) and toks[j][1] == "use")
    depth = 0
    while i < len(toks):
        kind, v, _ = toks[i]
        if kind == "p":
            if v in OPEN:
                depth += 1
            elif v in CLOSE:
                if depth == 0:
                    return i
                depth -= 1
                if depth == 0 and v == "}" and not is_use:
                    return i + 1
            elif depth == 0 and (v == ";" or (v == "," and not is_item)):
                return i + 1
        i += 1
    return i


def parse_use_tree(toks, i, prefix, out):
    """Parses a use tree at toks[i] into out: (segments, alias or None for `*`, line);
    returns the index after it."""
    segs = list(prefix)
    line = toks[i][2] if i < len(toks) else 0
    if i < len(toks) and toks[i][1] == "::":
        i += 1
    while i < len(toks):
        kind, v, line = toks[i]
        if kind == "id":
            segs.append(v)
            i += 1
            if i < len(toks) and toks[i][1] == "::":
                i += 1
                continue
            if i + 1 < len(toks) and toks[i][1] == "as":
                alias = toks[i + 1][1]
                i += 2
            else:
                alias = segs[-1]
            if segs[-1] == "self":
                segs = segs[:-1]
                alias = alias if alias != "self" else (segs[-1] if segs else None)
            if segs:
                out.append((segs, None if alias == "_" else alias, line))
            return i
        if v == "*":
            out.append((segs, None, line))
            return i + 1
        if v == "{":
            i += 1
            while i < len(toks) and toks[i][1] != "}":
                if toks[i][1] == ",":
                    i += 1
                    continue
                i = parse_use_tree(toks, i, segs, out)
            return i + 1
        return i  # unexpected; stop
    return i


def visible_within(toks, i, parent):
    """The module whose code may name a child module declared by `mod` at toks[i] in `parent`:
    `parent` itself when private, its parent for `pub(super)`, the crate (`()`) when public."""
    if i > 0 and toks[i - 1][1] == "pub":
        return ()
    if i > 0 and toks[i - 1][1] == ")":
        j = i - 1
        while j > 0 and toks[j][1] != "(":
            j -= 1
        if j > 0 and toks[j - 1][1] == "pub":
            inside = [t[1] for t in toks[j + 1 : i - 1]]
            if inside == ["self"]:
                return tuple(parent)
            if inside == ["super"]:
                return tuple(parent[:-1])
            return ()
    return tuple(parent)


def parse(text, mod):
    """Returns (refs, test_only_children, file_is_test, declared): refs are (scope, segments,
    line); declared maps each child module declared by `mod x;` to where it may be named."""
    toks = lex(text)
    file_scope = Scope(mod, None)
    scope = file_scope
    scope_stack = []  # (scope, depth at which its brace opened)
    refs = []
    test_children = set()
    declared = {}
    file_is_test = False
    depth = 0
    i = 0
    while i < len(toks):
        kind, v, line = toks[i]
        if kind == "p" and v == "#":
            nxt, attr = attribute_end(toks, i)
            if attr is not None and is_cfg_test(attr):
                if toks[i + 1][1] == "!":
                    if depth == 0 and scope is file_scope:
                        file_is_test = True
                    i = nxt
                    continue
                end = item_end(toks, nxt)
                # `#[cfg(test)] mod x;` declares a test-only child file.
                body = [t for t in toks[nxt:end]]
                k = 0
                while k < len(body) and body[k][1] == "#":
                    k, _ = attribute_end(body, k)
                names = [t[1] for t in body[k:]]
                if "mod" in names and names[-1] == ";" and names.index("mod") + 1 < len(names):
                    test_children.add(tuple(scope.path + [names[names.index("mod") + 1]]))
                i = end
                continue
            # other attributes: their paths (`#[serde(with = ..)]` is a string) are read as code
            i += 1
            continue
        if kind == "p":
            if v in OPEN:
                depth += 1
            elif v in CLOSE:
                depth -= 1
                if v == "}" and scope_stack and depth == scope_stack[-1][1]:
                    scope, _ = scope_stack.pop()
            i += 1
            continue
        # identifiers
        if v == "mod" and i + 2 < len(toks) and toks[i + 1][0] == "id":
            name = toks[i + 1][1]
            if toks[i + 2][1] == "{":
                scope.inline_children.add(name)
                scope_stack.append((scope, depth))
                scope = Scope(scope.path + [name], scope)
                depth += 1
                i += 3
                continue
            if toks[i + 2][1] == ";":
                declared[tuple(scope.path + [name])] = visible_within(toks, i, scope.path)
                i += 3
                continue
        if v == "use" and not (i > 0 and toks[i - 1][1] == "::"):
            out = []
            j = parse_use_tree(toks, i + 1, [], out)
            for segs, alias, ln in out:
                if alias is not None:
                    scope.aliases[alias] = (scope, segs)
                refs.append((scope, segs, ln))
            while j < len(toks) and toks[j][1] != ";":
                j += 1
            i = j + 1
            continue
        prev = toks[i - 1][1] if i > 0 else ""
        # `pub(in crate::a)` names a visibility, not a use
        visibility = prev == "in" and i >= 2 and toks[i - 2][1] == "("
        if i + 1 < len(toks) and toks[i + 1][1] == "::" and prev != "::" and not visibility:
            segs, j = [v], i + 1
            while j + 1 < len(toks) and toks[j][1] == "::" and toks[j + 1][0] == "id":
                segs.append(toks[j + 1][1])
                j += 2
            refs.append((scope, segs, line))
            i = j
            continue
        i += 1
    return refs, test_children, file_is_test, declared


# ---------------------------------------------------------------------------------------------

files = {}
for dirpath, _, names in os.walk(root):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(dirpath, n)
            files[module_of(p)] = p

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


parsed = {m: parse(read(p), m) for m, p in files.items()}
test_only = set()
visible = {}  # module -> the module whose code may name it (a private module: its parent's)
for m, (_, children, file_is_test, declared) in parsed.items():
    test_only |= children
    visible.update(declared)
    if file_is_test or os.path.basename(files[m]) == "tests.rs":
        test_only.add(m)
modules = {m for m in files if not any(m[: k] in test_only for k in range(1, len(m) + 1))}


def target(parts, frm):
    """The longest module prefix of a path that the module `frm` may name: past a private
    module of another part of the crate, `settings::sign_in` is the name `settings` re-exports,
    not its private module `sign_in`."""
    for k in range(len(parts), 0, -1):
        m = tuple(parts[:k])
        if m in modules and frm[: len(visible.get(m, ()))] == visible.get(m, ()):
            return m
    return None


def resolve(scope, segs, seen=0):
    """A path as written in a scope -> absolute segments from the crate root, or None when it
    leads outside the crate (std, another crate, a local type)."""
    if not segs or seen > 8:
        return None
    head = segs[0]
    if head in ("crate", "$crate"):
        return segs[1:]
    if head == "super":
        base, rest = list(scope.path), list(segs)
        while rest and rest[0] == "super":
            if not base:
                return None
            base, rest = base[:-1], rest[1:]
        return base + rest
    if head == "self":
        return scope.path + segs[1:]
    if head in scope.inline_children or tuple(scope.path + [head]) in files:
        return scope.path + segs
    if head in scope.aliases:
        alias_scope, alias_segs = scope.aliases[head]
        if alias_segs == [head] and alias_scope is scope:
            return None  # `use serde;` and the like
        base = resolve(alias_scope, alias_segs, seen + 1)
        return None if base is None else base + segs[1:]
    return None


edges = {m: {} for m in modules}  # m -> {target: (line, path as written)}
for mod in sorted(modules):
    refs = parsed[mod][0]
    for scope, segs, line in refs:
        parts = resolve(scope, segs)
        if parts is None:
            continue
        t = target(parts, mod)
        if t is not None and t != mod and t != ():
            edges[mod].setdefault(t, (line, "::".join(segs)))

# Tarjan
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges[v]):
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


def rel(m):
    return files[m][len(root) + 1 :]


def print_edges(c, out):
    inside = set(c)
    for m in sorted(c, key=rel):
        for t in sorted((t for t in edges[m] if t in inside), key=rel):
            line, written = edges[m][t]
            print(f"  {rel(m)}:{line} -> {rel(t)}  ({written})", file=out, flush=True)


big = sorted((c for c in sccs if len(c) > 1), key=lambda c: (-len(c), sorted(map(rel, c))))
for c in big:
    over = len(c) > limit
    out = sys.stderr if over else sys.stdout
    print(("over the limit: " if over else "") + f"{len(c)} files: " + ", ".join(sorted(map(rel, c))), file=out, flush=True)
    if over or os.environ.get("EDGES"):
        print_edges(c, out)
worst = max((len(c) for c in big), default=1)
print(f"largest import circle: {worst} files (limit {limit})")
sys.exit(1 if worst > limit else 0)
