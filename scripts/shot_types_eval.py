#!/usr/bin/env python3
"""Scores shot types against the judgements made by eye (data/eval/shot-types.json).

    python3 scripts/shot_types_eval.py LINES.jsonl [--floor 0.6]

LINES.jsonl: one line per shot from `cargo run --release -p kino-media --example shot_types`
({"split", "truth", "new", "old", ...}). Prints, for the tuned half, the held-out half and both,
the accuracy of the rule of the analysis (`new`: the largest person box and the faces), of the rule
before the object detector (`old`: the tallest face, else person labels) and of the rule that
always answers the class most common in the tuned half (`majority`). With --floor, exits 1 when
the new rule's held-out accuracy is below it or not above the majority rule's. Python 3.11,
standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("lines")
    parser.add_argument("--floor", type=float)
    args = parser.parse_args()
    rows = [json.loads(line) for line in open(args.lines, encoding="utf-8") if line.strip()]
    if not rows:
        print("shot-types-eval: no shots scored", file=sys.stderr)
        return 2
    tune = [r for r in rows if r["split"] == "tune"]
    majority = Counter(r["truth"] for r in tune).most_common(1)[0][0]
    print(f"majority class of the tuned half: {majority}")
    print("| half | shots | new rule | old rule | majority |")
    print("|---|---|---|---|---|")
    scores = {}
    for name, part in (("tune", tune), ("held-out", [r for r in rows if r["split"] == "held-out"]), ("all", rows)):
        n = len(part)
        acc = {
            "new": sum(r["new"] == r["truth"] for r in part) / n,
            "old": sum(r["old"] == r["truth"] for r in part) / n,
            "majority": sum(r["truth"] == majority for r in part) / n,
        }
        scores[name] = acc
        print(f"| {name} | {n} | {acc['new']:.2f} | {acc['old']:.2f} | {acc['majority']:.2f} |")
    wrong = [r for r in rows if r["new"] != r["truth"]]
    for r in wrong:
        print(f"  new rule wrong: {r['file']} {r['start']}-{r['end']} ({r['split']}): {r['new']}, judged {r['truth']}")
    if args.floor is not None:
        held = scores["held-out"]
        if held["new"] < args.floor or held["new"] <= held["majority"]:
            print(
                f"shot-types-eval: held-out accuracy {held['new']:.2f} is below the floor {args.floor} "
                f"or not above the majority rule's {held['majority']:.2f}",
                file=sys.stderr,
            )
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
