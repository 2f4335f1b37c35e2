#!/usr/bin/env python3
"""Scores signals documents against the affect evaluation set (data/eval/affect.json).

    scripts/affect_eval.py [--floor F] NAME=DIR [NAME=DIR ...]

Each DIR holds one signals document per title of the set (<title>.json), from one way of
analysing (for example `new=` the current build, `old=` an earlier one). For every set it prints,
per split (tune, held-out), the agreement with the judgements:

- valence and arousal pairs: the share of pairs whose 'higher' span has the higher mean of the
  emotion track (a title without emotions agrees with none of its pairs);
- preview: the share of (worthy, unworthy) span pairs of one title in which the worthy span has
  the higher mean relevance (the area under the ROC curve of relevance as a preview detector).

With --floor valence=F,arousal=F,preview=F, the first set's held-out agreement on each must
reach its floor, else the exit status is 1. Exit status 2 on bad input. Standard library only.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.join(HERE, "..", "data", "eval", "affect.json")


def mean(values, span, step):
    a, b = span
    lo, hi = int(a / step), max(int(a / step) + 1, int(-(-b // step)))
    part = [v for v in values[lo:hi] if v is not None]
    return sum(part) / len(part) if part else None


def score(docs, truth):
    """{split: {task: (agreed, total)}}"""
    out = {}

    def add(split, task, ok):
        agreed, total = out.setdefault(split, {}).get(task, (0, 0))
        out[split][task] = (agreed + (1 if ok else 0), total + 1)

    for p in truth["pairs"]:
        doc = docs.get(p["title"])
        e = doc and doc.get("emotions")
        ok = False
        if e:
            values = e[p["dimension"]]
            hi, lo = mean(values, p["higher"], e["step"]), mean(values, p["lower"], e["step"])
            ok = hi is not None and lo is not None and hi > lo
        add(p["split"], p["dimension"], ok)
    items = truth["preview"]
    for w in [i for i in items if i["worthy"]]:
        for u in [i for i in items if not i["worthy"] and i["title"] == w["title"]]:
            split = "held-out" if "held-out" in (w["split"], u["split"]) else "tune"
            doc = docs.get(w["title"])
            ok = False
            if doc:
                rel = doc["timelines"]["relevance"]
                a, b = mean(rel, w["span"], doc["step"]), mean(rel, u["span"], doc["step"])
                ok = a is not None and b is not None and a > b
            add(split, "preview", ok)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--floor", help="TASK=F[,TASK=F...], tasks valence, arousal, preview")
    ap.add_argument("sets", nargs="+", metavar="NAME=DIR")
    args = ap.parse_args()
    try:
        truth = json.load(open(SET))
    except (OSError, ValueError) as e:
        print(f"affect_eval: error: {SET}: {e}", file=sys.stderr)
        return 2
    results = []
    for spec in args.sets:
        name, _, folder = spec.partition("=")
        if not folder or not os.path.isdir(folder):
            print(f"affect_eval: error: {spec}: expected NAME=DIR with an existing DIR", file=sys.stderr)
            return 2
        docs = {}
        for title in truth["titles"]:
            path = os.path.join(folder, title + ".json")
            if os.path.exists(path):
                docs[title] = json.load(open(path))
        missing = [t for t in truth["titles"] if t not in docs]
        if missing:
            print(f"affect_eval: error: {folder} has no document for {', '.join(missing)}", file=sys.stderr)
            return 2
        for title, doc in docs.items():
            e = doc.get("emotions")
            print(f"{name} {title}: emotions {'on ' + str(len(e['probs'])) + ' samples' if e else 'absent'}, "
                  f"clip types {sorted(doc['timelines'].get('clip_types', {}))}")
        results.append((name, score(docs, truth)))
    print()
    print("| set | split | valence pairs | arousal pairs | preview pairs |")
    print("|---|---|---|---|---|")
    for name, s in results:
        for split in ("tune", "held-out"):
            cells = []
            for task in ("valence", "arousal", "preview"):
                agreed, total = s.get(split, {}).get(task, (0, 0))
                cells.append(f"{agreed}/{total} ({agreed / total:.2f})" if total else "-")
            print(f"| {name} | {split} | " + " | ".join(cells) + " |")
    if args.floor:
        try:
            floors = {k: float(v) for k, v in (p.split("=") for p in args.floor.split(","))}
        except ValueError:
            print(f"affect_eval: error: --floor {args.floor}: expected TASK=F[,TASK=F...]", file=sys.stderr)
            return 2
        name, s = results[0]
        failed = []
        for task, floor in floors.items():
            agreed, total = s.get("held-out", {}).get(task, (0, 0))
            if not total or agreed / total < floor:
                failed.append(f"{task} {agreed}/{total} < {floor}")
        if failed:
            print(f"FAIL: {name} held-out agreement below the floor: {', '.join(failed)}")
            return 1
        print(f"PASS: {name} held-out agreement at or above the floor ({args.floor})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
