#!/usr/bin/env python3
"""Scores scene search on real footage against ground truth judged by eye.

    python3 scripts/scene_search_eval.py RESULTS [--truth data/eval/scene-search.json]
        [--floor-method fused] [--floor-metric hit@3] [--floor X] [--json] [--per-query]
    python3 scripts/scene_search_eval.py --check      # the ground truth alone: ids, channels, halves, spans
    python3 scripts/scene_search_eval.py --self-test  # the arithmetic, on synthetic data

The ground truth (data/eval/scene-search.json) lists videos, each with its queries; a query has an
id, the text a user would type, the channel that mostly answers it (seen, said, written, heard,
mixed), its half (tune or held_out) and its relevant spans in seconds of that video.

RESULTS is what the runner writes:

    {"machine": "...", "scope": "catalog",
     "scenes": {"<video>": [[start, end], ...]},
     "methods": {"<method>": {"<query id>": [{"video": "<video>", "start": s, "end": e}, ...]}}}

each method's list best first. "scope" (optional, default "catalog") says whether a query searched
every video ("catalog") or only its own ("video"); the chance baseline draws from the same pool.

Rules:
- A returned scene is relevant to a query when it is in the query's video and overlaps the union
  of the query's spans by at least 2 s, or by at least half of the scene's length, or by at least
  half of one of the spans (a short moment inside a long scene still counts when the scene holds
  most of it).
- hit@k: the share of queries with a relevant scene among the first k returned.
- recall@10: per query, the share of its spans touched (overlap > 0) by a relevant scene among the
  first 10; averaged over queries.
- MRR: the mean over queries of 1 / rank of the first relevant scene (0 when none is returned).
- A query a method did not answer scores 0 everywhere (and is counted in the output).
- chance: for each query, the scenes of the pool in random order, averaged over CHANCE_DRAWS
  seeded orders (the same every run): what ranking with no model at all gives.
Figures are given per method, per half (tune, held_out, all) and per channel. The floor is
checked on the held_out half only: exit status 1 when the floor method's figure is below it, 2 on
bad input. Standard library only.
"""

import argparse
import json
import math
import os
import random
import sys
import tempfile

CHANNELS = ("seen", "said", "written", "heard", "mixed")
HALVES = ("tune", "held_out")
METRICS = ("hit@1", "hit@3", "recall@10", "mrr")
MIN_OVERLAP_S = 2.0
CHANCE_DRAWS = 200
CHANCE_SEED = "kino-scene-search"
EPS = 1e-6
DEFAULT_TRUTH = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "eval", "scene-search.json"))


class InputError(Exception):
    pass


# --- ground truth ------------------------------------------------------------------------------------


def merged(spans):
    """The union of [start, end] spans as sorted, disjoint spans."""
    out = []
    for s, e in sorted((float(a), float(b)) for a, b in spans):
        if out and s <= out[-1][1] + EPS:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def load_truth(path):
    with open(path) as f:
        doc = json.load(f)
    return parse_truth(doc, path)


def parse_truth(doc, where="ground truth"):
    """The queries of the ground truth as a list of dicts (with 'video'), validated."""
    queries, seen_ids, errors = [], set(), []
    videos = doc.get("videos")
    if not isinstance(videos, list) or not videos:
        raise InputError(f"{where}: 'videos' must be a non-empty list")
    for v in videos:
        name = v.get("name")
        if not name:
            errors.append("a video without a name")
            continue
        duration = v.get("duration")
        for q in v.get("queries", []):
            qid = q.get("id")
            if not qid:
                errors.append(f"{name}: a query without an id")
                continue
            if qid in seen_ids:
                errors.append(f"{qid}: duplicate id")
            seen_ids.add(qid)
            if not str(q.get("text", "")).strip():
                errors.append(f"{qid}: empty text")
            if q.get("channel") not in CHANNELS:
                errors.append(f"{qid}: channel {q.get('channel')!r} is not one of {', '.join(CHANNELS)}")
            if q.get("half") not in HALVES:
                errors.append(f"{qid}: half {q.get('half')!r} is not one of {', '.join(HALVES)}")
            spans = q.get("relevant")
            if not isinstance(spans, list) or not spans:
                errors.append(f"{qid}: 'relevant' must be a non-empty list of [start, end]")
                continue
            for span in spans:
                if not (isinstance(span, list) and len(span) == 2 and all(isinstance(x, (int, float)) for x in span)):
                    errors.append(f"{qid}: span {span!r} is not [start, end]")
                elif not 0 <= span[0] < span[1]:
                    errors.append(f"{qid}: span {span!r} must have 0 <= start < end")
                elif duration is not None and span[1] > duration + 0.05:
                    errors.append(f"{qid}: span {span!r} ends after the video ({duration} s)")
            queries.append(dict(q, video=name))
    if errors:
        raise InputError(f"{where}: " + "; ".join(errors))
    return queries


# --- scoring -----------------------------------------------------------------------------------------


def overlap(a0, a1, b0, b1):
    return max(0.0, min(a1, b1) - max(a0, b0))


def is_relevant(start, end, spans):
    """The overlap rule (see the module's doc); spans must be merged."""
    length = end - start
    if length <= 0:
        return any(s <= start <= e for s, e in spans)
    total = sum(overlap(start, end, s, e) for s, e in spans)
    if total >= MIN_OVERLAP_S - EPS or total >= 0.5 * length - EPS:
        return True
    return any(overlap(start, end, s, e) >= 0.5 * (e - s) - EPS for s, e in spans)


def score_ranking(query, ranking):
    """hit@1, hit@3, recall@10 and reciprocal rank of one query's ranked scenes."""
    spans = merged(query["relevant"])
    raw = [list(map(float, s)) for s in query["relevant"]]
    flags = []
    for item in ranking:
        rel = item["video"] == query["video"] and is_relevant(float(item["start"]), float(item["end"]), spans)
        flags.append(rel)
    first = next((i for i, f in enumerate(flags) if f), None)
    touched = set()
    for item, rel in zip(ranking[:10], flags[:10]):
        if rel:
            s, e = float(item["start"]), float(item["end"])
            touched.update(i for i, (a, b) in enumerate(raw) if overlap(s, e, a, b) > 0)
    return {
        "hit@1": 1.0 if first is not None and first < 1 else 0.0,
        "hit@3": 1.0 if first is not None and first < 3 else 0.0,
        "recall@10": len(touched) / len(raw),
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
        "first_relevant_rank": None if first is None else first + 1,
    }


def chance_scores(query, scenes, scope, draws=CHANCE_DRAWS):
    """Expected figures of a random order of the pool, over `draws` seeded orders."""
    if scope == "video":
        pool = [{"video": query["video"], "start": s, "end": e} for s, e in scenes.get(query["video"], [])]
    else:
        pool = [{"video": v, "start": s, "end": e} for v in sorted(scenes) for s, e in scenes[v]]
    sums = dict.fromkeys(METRICS, 0.0)
    if not pool:
        return sums
    for d in range(draws):
        order = list(pool)
        random.Random(f"{CHANCE_SEED}:{query['id']}:{d}").shuffle(order)
        got = score_ranking(query, order)
        for m in METRICS:
            sums[m] += got[m]
    return {m: sums[m] / draws for m in METRICS}


def aggregate(queries, per_query):
    """figures[half][channel] = {n, metrics...}; half and channel include 'all'."""
    out = {}
    for half in HALVES + ("all",):
        out[half] = {}
        for channel in ("all",) + CHANNELS:
            chosen = [
                q for q in queries if (half == "all" or q["half"] == half) and (channel == "all" or q["channel"] == channel)
            ]
            if not chosen:
                continue
            row = {"n": len(chosen)}
            for m in METRICS:
                row[m] = sum(per_query[q["id"]][m] for q in chosen) / len(chosen)
            out[half][channel] = row
    return out


def evaluate(queries, results):
    methods = results.get("methods")
    if not isinstance(methods, dict) or not methods:
        raise InputError("results: 'methods' must be a non-empty object")
    scenes = results.get("scenes") or {}
    scope = results.get("scope", "catalog")
    if scope not in ("catalog", "video"):
        raise InputError(f"results: scope {scope!r} must be 'catalog' or 'video'")
    if "chance" in methods:
        raise InputError("results: 'chance' is the baseline's name; rename that method")
    ids = {q["id"] for q in queries}
    report = {"scope": scope, "machine": results.get("machine"), "methods": {}, "queries": {}}
    for name, answers in methods.items():
        if not isinstance(answers, dict):
            raise InputError(f"results: method {name!r} must map query ids to lists")
        per_query, missing = {}, []
        for q in queries:
            ranking = answers.get(q["id"])
            if ranking is None:
                missing.append(q["id"])
                ranking = []
            for item in ranking:
                if not all(k in item for k in ("video", "start", "end")):
                    raise InputError(f"results: {name}/{q['id']}: an entry lacks video, start or end: {item!r}")
            per_query[q["id"]] = score_ranking(q, ranking)
        report["methods"][name] = {
            "figures": aggregate(queries, per_query),
            "unanswered": missing,
            "unknown_queries": sorted(set(answers) - ids),
        }
        for qid, got in per_query.items():
            report["queries"].setdefault(qid, {})[name] = got
    if scenes:
        per_query = {q["id"]: chance_scores(q, scenes, scope) for q in queries}
        report["methods"]["chance"] = {"figures": aggregate(queries, per_query), "unanswered": [], "unknown_queries": []}
        for qid, got in per_query.items():
            report["queries"].setdefault(qid, {})["chance"] = got
    return report


# --- output ------------------------------------------------------------------------------------------


def table(report, half):
    lines = []
    names = list(report["methods"])
    head = f"{'method':<22}{'channel':<9}{'n':>4}" + "".join(f"{m:>11}" for m in METRICS)
    lines.append(head)
    lines.append("-" * len(head))
    for name in names:
        figures = report["methods"][name]["figures"].get(half, {})
        for channel in ("all",) + CHANNELS:
            row = figures.get(channel)
            if not row:
                continue
            label = name if channel == "all" else ""
            lines.append(f"{label:<22}{channel:<9}{row['n']:>4}" + "".join(f"{row[m]:>11.3f}" for m in METRICS))
    return "\n".join(lines)


def print_report(report, queries, per_query_listing):
    title = {"tune": "tune half (thresholds may be set here)", "held_out": "held-out half (never tuned on)", "all": "all queries"}
    print(f"scene search: {len(queries)} queries, scope {report['scope']}" + (f", machine {report['machine']}" if report["machine"] else ""))
    for half in ("held_out", "tune", "all"):
        print(f"\n{title[half]}")
        print(table(report, half))
    for name, m in report["methods"].items():
        if m["unanswered"]:
            print(f"\nnote: {name} answered no list for {len(m['unanswered'])} queries (scored 0): {', '.join(m['unanswered'])}")
        if m["unknown_queries"]:
            print(f"note: {name} answered {len(m['unknown_queries'])} ids not in the ground truth (ignored): {', '.join(m['unknown_queries'])}")
    if per_query_listing:
        names = [n for n in report["methods"] if n != "chance"]
        print("\nfirst relevant rank per query (- = none)")
        print(f"{'query':<26}{'half':<10}{'channel':<9}" + "".join(f"{n[:12]:>13}" for n in names))
        for q in queries:
            ranks = [report["queries"][q["id"]][n]["first_relevant_rank"] for n in names]
            print(f"{q['id']:<26}{q['half']:<10}{q['channel']:<9}" + "".join(f"{('-' if r is None else r):>13}" for r in ranks))


def check_floor(report, method, metric, floor):
    """(ok, message) for the held-out figure of `method` against `floor`."""
    if method not in report["methods"]:
        raise InputError(f"the floor's method {method!r} is not in the results (methods: {', '.join(report['methods'])})")
    if metric not in METRICS:
        raise InputError(f"the floor's metric {metric!r} is not one of {', '.join(METRICS)}")
    row = report["methods"][method]["figures"].get("held_out", {}).get("all")
    if row is None:
        raise InputError("the ground truth has no held_out query")
    value = row[metric]
    if value + EPS < floor:
        return False, f"FAIL: {method} {metric} on the held-out half is {value:.3f}, below the floor {floor:.3f} ({row['n']} queries)"
    return True, f"PASS: {method} {metric} on the held-out half is {value:.3f}, floor {floor:.3f} ({row['n']} queries)"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results", nargs="?", help="the runner's results JSON")
    p.add_argument("--truth", default=DEFAULT_TRUTH, help="ground truth (default data/eval/scene-search.json)")
    p.add_argument("--floor-method", default="fused")
    p.add_argument("--floor-metric", default="hit@3", choices=METRICS)
    p.add_argument("--floor", type=float, default=None, help="held-out floor (default: $KINO_SEARCH_FLOOR; none when unset)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--per-query", action="store_true", help="also list each query's first relevant rank per method")
    p.add_argument("--check", action="store_true", help="validate the ground truth and print its counts")
    p.add_argument("--self-test", action="store_true", help="check the arithmetic on synthetic data")
    args = p.parse_args(argv)

    if args.self_test:
        return self_test()
    try:
        queries = load_truth(args.truth)
        if args.check:
            counts = {}
            for q in queries:
                counts[(q["channel"], q["half"])] = counts.get((q["channel"], q["half"]), 0) + 1
            print(f"{args.truth}: {len(queries)} queries over {len({q['video'] for q in queries})} videos")
            for c in CHANNELS:
                print(f"  {c:<8} tune {counts.get((c, 'tune'), 0):>3}  held_out {counts.get((c, 'held_out'), 0):>3}")
            return 0
        if not args.results:
            p.error("RESULTS is required (or --check / --self-test)")
        floor = args.floor
        if floor is None and os.environ.get("KINO_SEARCH_FLOOR", "").strip():
            try:
                floor = float(os.environ["KINO_SEARCH_FLOOR"])
            except ValueError:
                raise InputError(f"KINO_SEARCH_FLOOR={os.environ['KINO_SEARCH_FLOOR']!r} is not a number")
        with open(args.results) as f:
            results = json.load(f)
        report = evaluate(queries, results)
        verdict = None
        if floor is not None:
            verdict = check_floor(report, args.floor_method, args.floor_metric, floor)
    except (InputError, OSError, json.JSONDecodeError) as e:
        print(f"scene_search_eval: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {k: report[k] for k in ("scope", "machine")}
        out["figures"] = {n: m["figures"] for n, m in report["methods"].items()}
        out["unanswered"] = {n: m["unanswered"] for n, m in report["methods"].items() if m["unanswered"]}
        out["queries"] = report["queries"]
        if verdict is not None:
            out["floor"] = {"method": args.floor_method, "metric": args.floor_metric, "floor": floor, "pass": verdict[0]}
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        print_report(report, queries, args.per_query)
    if verdict is not None:
        print(verdict[1], file=sys.stderr if args.json else sys.stdout)
        return 0 if verdict[0] else 1
    return 0


# --- self-test ---------------------------------------------------------------------------------------


def self_test():
    failures = []

    def check(what, got, want):
        ok = (abs(got - want) < 1e-9) if isinstance(want, float) else got == want
        if not ok:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    # The overlap rule.
    check("half of the scene", is_relevant(0, 10, merged([[4, 9]])), True)  # 5 s of 10
    check("2 s of a long scene", is_relevant(0, 30, merged([[0, 2]])), True)
    check("1.9 s of a long scene, 1.9 s of a 10 s span", is_relevant(0, 30, merged([[28.1, 38.1]])), False)
    check("1 s of a 3 s scene, of a 4 s span", is_relevant(0, 3, merged([[2, 6]])), False)
    check("1.5 s of a 3 s scene", is_relevant(0, 3, merged([[1.5, 4]])), True)
    check("a whole short span in a long scene", is_relevant(0, 60, merged([[10, 11]])), True)
    check("half a short span", is_relevant(0, 60, merged([[59.5, 60.5]])), True)
    check("under half a short span", is_relevant(0, 60, merged([[59.6, 60.6]])), False)
    check("union of two spans", is_relevant(10, 22, merged([[0, 11.2], [21.1, 40]])), True)  # 1.2 + 0.9 s
    check("one of those spans alone", is_relevant(10, 22, merged([[0, 11.2]])), False)
    check("touching spans merge", merged([[0, 1], [1, 2], [5, 6]]), [[0.0, 2.0], [5.0, 6.0]])
    check("no overlap", is_relevant(10, 20, merged([[0, 10]])), False)

    # A small catalog: two videos, four queries, one per half and channel pair.
    truth = {
        "videos": [
            {
                "name": "a",
                "duration": 100,
                "queries": [
                    {"id": "q1", "text": "t", "channel": "seen", "half": "tune", "relevant": [[10, 20]]},
                    {"id": "q2", "text": "t", "channel": "seen", "half": "held_out", "relevant": [[30, 31], [70, 80]]},
                    {"id": "q3", "text": "t", "channel": "written", "half": "held_out", "relevant": [[50, 60]]},
                ],
            },
            {
                "name": "b",
                "duration": 40,
                "queries": [{"id": "q4", "text": "t", "channel": "said", "half": "tune", "relevant": [[0, 5]]}],
            },
        ]
    }
    queries = parse_truth(truth)
    scenes = {"a": [[0, 10], [10, 20], [20, 40], [40, 60], [60, 100]], "b": [[0, 20], [20, 40]]}

    def item(v, s, e):
        return {"video": v, "start": s, "end": e}

    results = {
        "machine": "test",
        "scenes": scenes,
        "methods": {
            "m": {
                # q1: relevant at rank 1.
                "q1": [item("a", 10, 20), item("a", 0, 10)],
                # q2: rank 1 wrong video, rank 2 [20, 40] overlaps [30, 31] by 1 s (1 of 1 s span:
                # relevant, touches span 0); rank 3 [60, 100] overlaps [70, 80] by 10 s (touches span 1).
                "q2": [item("b", 0, 20), item("a", 20, 40), item("a", 60, 100)],
                # q3: relevant only at rank 4 (hit@3 = 0, RR = 1/4); [0, 10] at rank 1 is not.
                "q3": [item("a", 0, 10), item("a", 10, 20), item("a", 20, 40), item("a", 40, 60)],
                # q4: absent: scored 0.
                "ignored": [item("a", 0, 10)],
            }
        },
    }
    report = evaluate(queries, results)
    pq = report["queries"]
    check("q1 hit@1", pq["q1"]["m"]["hit@1"], 1.0)
    check("q1 mrr", pq["q1"]["m"]["mrr"], 1.0)
    check("q2 hit@1", pq["q2"]["m"]["hit@1"], 0.0)
    check("q2 hit@3", pq["q2"]["m"]["hit@3"], 1.0)
    check("q2 mrr", pq["q2"]["m"]["mrr"], 0.5)
    check("q2 recall@10", pq["q2"]["m"]["recall@10"], 1.0)
    check("q3 hit@3", pq["q3"]["m"]["hit@3"], 0.0)
    check("q3 mrr", pq["q3"]["m"]["mrr"], 0.25)
    check("q3 recall@10", pq["q3"]["m"]["recall@10"], 1.0)
    check("q4 mrr (unanswered)", pq["q4"]["m"]["mrr"], 0.0)
    m = report["methods"]["m"]
    check("unanswered", m["unanswered"], ["q4"])
    check("unknown", m["unknown_queries"], ["ignored"])
    f = m["figures"]
    check("held_out n", f["held_out"]["all"]["n"], 2)
    check("held_out hit@3", f["held_out"]["all"]["hit@3"], 0.5)  # q2 yes, q3 no
    check("held_out mrr", f["held_out"]["all"]["mrr"], (0.5 + 0.25) / 2)
    check("tune hit@1", f["tune"]["all"]["hit@1"], 0.5)  # q1 yes, q4 unanswered
    check("tune said n", f["tune"]["said"]["n"], 1)
    check("held_out written mrr", f["held_out"]["written"]["mrr"], 0.25)
    check("all n", f["all"]["all"]["n"], 4)
    check("no said in held_out", "said" in f["held_out"], False)

    # recall@10 counts spans touched by relevant scenes only, among the first 10.
    q = {"id": "r", "video": "a", "relevant": [[0, 10], [50, 60], [90, 91]]}
    ranking = [item("a", 0, 10)] + [item("b", 0, 1)] * 9 + [item("a", 50, 60)]
    check("recall@10 cut at 10", score_ranking(q, ranking)["recall@10"], 1 / 3)
    check("a relevant scene touches every span it overlaps",
          score_ranking(q, [item("a", 40, 100)])["recall@10"], 2 / 3)  # 11 s in all: relevant
    check("a touch by an irrelevant scene does not count",
          score_ranking(q, [item("a", 9, 40)])["recall@10"], 0.0)  # 1 s of [0, 10] only

    # chance: every scene relevant -> 1; none -> 0; one of two -> expected 0.5 at hit@1.
    all_rel = {"id": "c1", "video": "a", "relevant": [[0, 100]]}
    check("chance all relevant", chance_scores(all_rel, {"a": [[0, 50], [50, 100]]}, "catalog")["hit@1"], 1.0)
    none_rel = {"id": "c2", "video": "b", "relevant": [[0, 5]]}
    check("chance none relevant", chance_scores(none_rel, {"a": [[0, 50]]}, "catalog")["mrr"], 0.0)
    half = chance_scores({"id": "c3", "video": "a", "relevant": [[0, 10]]}, {"a": [[0, 10], [10, 20]]}, "video", draws=2000)
    if not abs(half["hit@1"] - 0.5) < 0.05 or not abs(half["mrr"] - 0.75) < 0.03:
        failures.append(f"chance of one in two: hit@1 {half['hit@1']:.3f} (want ~0.5), mrr {half['mrr']:.3f} (want ~0.75)")
    check("chance is seeded", chance_scores(all_rel, scenes, "catalog"), chance_scores(all_rel, scenes, "catalog"))
    check("chance scope video", chance_scores(none_rel, scenes, "video")["hit@3"], 1.0)  # b's [0, 20] holds [0, 5]

    # Floor and exit status, through main().
    with tempfile.TemporaryDirectory() as tmp:
        tpath, rpath = os.path.join(tmp, "truth.json"), os.path.join(tmp, "results.json")
        with open(tpath, "w") as fh:
            json.dump(truth, fh)
        with open(rpath, "w") as fh:
            json.dump(dict(results, methods={"fused": results["methods"]["m"]}), fh)
        quiet = open(os.devnull, "w")
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = quiet
        try:
            codes = {
                "floor met": main([rpath, "--truth", tpath, "--floor", "0.5"]),
                "floor missed": main([rpath, "--truth", tpath, "--floor", "0.51"]),
                "floor on mrr": main([rpath, "--truth", tpath, "--floor-metric", "mrr", "--floor", "0.375"]),
                "unknown floor method": main([rpath, "--truth", tpath, "--floor-method", "nope", "--floor", "0.1"]),
                "json": main([rpath, "--truth", tpath, "--json"]),
            }
            os.environ["KINO_SEARCH_FLOOR"] = "0.9"
            try:
                codes["env floor"] = main([rpath, "--truth", tpath])
            finally:
                del os.environ["KINO_SEARCH_FLOOR"]
            bad = dict(truth, videos=[dict(truth["videos"][0], queries=[dict(truth["videos"][0]["queries"][0], half="x")])])
            with open(tpath, "w") as fh:
                json.dump(bad, fh)
            codes["bad truth"] = main([rpath, "--truth", tpath])
        finally:
            sys.stdout, sys.stderr = saved
            quiet.close()
        want = {"floor met": 0, "floor missed": 1, "floor on mrr": 0, "unknown floor method": 2, "json": 0, "env floor": 1, "bad truth": 2}
        for k, v in want.items():
            check(f"exit status, {k}", codes[k], v)

    # The repository's ground truth parses and has both halves of every channel it uses.
    if os.path.exists(DEFAULT_TRUTH):
        try:
            real = load_truth(DEFAULT_TRUTH)
            for c in {q["channel"] for q in real}:
                for h in HALVES:
                    if not any(q["channel"] == c and q["half"] == h for q in real):
                        failures.append(f"ground truth: channel {c} has no {h} query")
        except InputError as e:
            failures.append(str(e))

    if failures:
        print("scene_search_eval self-test: FAILED")
        for f in failures:
            print("  " + f)
        return 1
    print("scene_search_eval self-test: ok (overlap rule, hits, recall@10, MRR, halves and channels, chance, floor and exit status)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
