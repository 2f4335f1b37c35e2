#!/usr/bin/env python3
"""The binge-marker evaluation's helper (issue 36; scripts/binge-eval.sh runs it).

    binge_eval.py truth SEASON_JSON [--update]      # the ground truth derived from the pieces
    binge_eval.py cut SEASON_JSON BBB_MP4 OUTDIR     # cut the season and the film, write OUTDIR/truth.json
    binge_eval.py stamp SEASON_JSON                  # names a cut: hash of the season, the cutting code, ffmpeg
    binge_eval.py measure SEASON_JSON OUTDIR BASE_URL API_KEY LOG [--deadline S]

SEASON_JSON (data/eval/binge-season.json) lists each episode as pieces of the source film in
frames at 24 fps. `cut` checks that the cut keeps kino's documented bounds (each episode's intro and
recap inside its first quarter, the credits at most 30 % of it, nothing else shared inside a
search window), re-encodes every episode frame-exactly through one trim/concat filter graph and
checks the durations. `measure` ingests a series, a season, the episodes and the film through the
catalog API with `asset_info.file_uri`, requests their `markers` tasks, polls until every one is
ready with the whole season compared, and prints a table per marker. Standard library only."""

import hashlib
import json
import pathlib
import re
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

FPS = 24
MARGIN = 5.0  # seconds a marker must lie inside an episode's search window


def load(path):
    return json.loads(pathlib.Path(path).read_text())


def layout(ep):
    """(role, source from, source to, output from, output to) of each piece, seconds."""
    out, t = [], 0.0
    for p in ep["pieces"]:
        a, b = p["from"] / FPS, p["to"] / FPS
        out.append((p["role"], a, b, t, t + b - a))
        t += b - a
    return out


def r3(x):
    return None if x is None else round(x, 3)


def truth_of(doc, ep):
    marks = doc["source_landmarks"]
    pieces = layout(ep)
    duration = pieces[-1][4]
    intro = [p for p in pieces if p[0] == "intro"]
    recap = [p for p in pieces if p[0] == "recap"]
    parts = [p for p in pieces if p[0] == "credits"]
    credits, final = parts[0], parts[-1]  # a mid-credits scene splits the roll in two pieces
    mid = [p for p in pieces if p[0] == "mid_credits"]
    text = marks["credits_text_frame"] / FPS
    last = min(final[2], marks["credits_last_card_end_frame"] / FPS)
    t = {
        "duration": r3(duration),
        "search_window_end": r3(duration / 4),
        "intro_start": r3(intro[0][3]) if intro else None,
        "intro_end": r3(intro[0][4]) if intro else None,
        "recap_start": r3(recap[0][3]) if recap else None,
        "recap_end": r3(recap[-1][4]) if recap else None,
        "credits_splice": r3(credits[3]),
        "credits_start": r3(credits[3] + text - credits[1]),
        "credits_end": r3(final[3] + last - final[1]),
        "mid_credits_start": r3(mid[0][3]) if mid else None,
        "mid_credits_end": r3(mid[0][4]) if mid else None,
        "post_credits_start": None,
        "post_credits_end": None,
    }
    post = marks["post_credits_scene_frame"] / FPS
    if final[2] > post:  # the piece runs on into the film's post-credits scene
        t["post_credits_start"] = r3(final[3] + post - final[1])
        t["post_credits_end"] = r3(final[4])
    if ep.get("fade_out_frames"):
        t["fade_out"] = [r3(duration - ep["fade_out_frames"] / FPS), r3(duration)]
    return t


def bare_truth(duration):
    """The truth of a film without end credits: every marker none."""
    keys = ("intro_start", "intro_end", "recap_start", "recap_end", "credits_splice", "credits_start", "credits_end",
            "mid_credits_start", "mid_credits_end", "post_credits_start", "post_credits_end")
    return {"duration": r3(duration), "search_window_end": r3(min(duration / 4, 600)), **{k: None for k in keys}}


def film_truth(doc, duration):
    """The whole film's truth: its credits and post-credits scene from the source's landmarks."""
    marks = doc["source_landmarks"]
    return {**bare_truth(duration),
            "credits_start": r3(marks["credits_text_frame"] / FPS),
            "credits_end": r3(marks["credits_last_card_end_frame"] / FPS),
            "post_credits_start": r3(marks["post_credits_scene_frame"] / FPS), "post_credits_end": r3(duration)}


def films(doc):
    """The ids of the standalone films: the whole film, and the film without credits when listed."""
    return [doc["film"]["id"]] + ([doc["film_without_credits"]["id"]] if "film_without_credits" in doc else [])


def truth(doc):
    return {ep["id"]: truth_of(doc, ep) for ep in doc["episodes"]}


def check(doc):
    """Problems with the season's construction (empty when it keeps kino's documented bounds)."""
    problems = []
    eps = doc["episodes"]
    lay = {ep["id"]: layout(ep) for ep in eps}
    num = {ep["id"]: ep["episode_number"] for ep in eps}
    tr = truth(doc)
    for ep in eps:
        t = tr[ep["id"]]
        w = t["search_window_end"]
        for k in ("intro_end", "recap_end"):
            if t[k] is not None and t[k] > w - MARGIN:
                problems.append(f"{ep['id']}: {k} {t[k]} is not {MARGIN} s inside the search window (first quarter, {w} s)")
        mid = (t["mid_credits_end"] - t["mid_credits_start"]) if t["mid_credits_start"] is not None else 0.0
        share = (t["credits_end"] - t["credits_start"] - mid) / t["duration"]
        if share > 0.29:
            problems.append(f"{ep['id']}: the credits are {share:.0%} of the episode (kino counts at most 30 %)")

    def window(i):  # each piece of episode i but its intro, and its part inside i's search window
        w = tr[i]["search_window_end"]
        return [(r, a, b, a + min(o1, w) - o0 if o0 < w else a) for r, a, b, o0, o1 in lay[i] if r != "intro"]

    def overlap(a, b, x, y):
        return min(b, y) - max(a, x) > 1 / FPS

    for i in lay:
        for role, a, _, b in window(i):
            for j in lay:
                if j == i or b <= a:
                    continue
                for r2, x, y, y_in in window(j):
                    if not overlap(a, b, x, y):
                        continue
                    # A recap repeats an earlier episode; anything else inside a window must be the
                    # episode's own: earlier episodes are searched whole for recaps, the other
                    # episodes' windows for the intro.
                    recap_pair = (role == "recap" and num[j] < num[i]) or (r2 == "recap" and num[j] > num[i])
                    if not recap_pair and (num[j] < num[i] or overlap(a, b, x, y_in)):
                        problems.append(f"{i} window {role} {a:.3f}-{b:.3f} also in {j} ({r2} {x:.3f}-{y:.3f})")
    return problems


# --- cutting (what `stamp` hashes, with the season and ffmpeg's version) -------------------------

def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return float(out)


def encode_args(doc):
    return ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", "-r", str(FPS),
            "-c:a", "aac", "-b:a", "128k", "-ar", "44100", "-ac", "2"]


def cut_episode(doc, ep, src, out):
    scale = doc["encode"]["scale"]
    graph, inputs = "", ""
    pieces = layout(ep)
    for n, (_, a, b, _, _) in enumerate(pieces):
        graph += f"[0:v]trim=start={a:.6f}:end={b:.6f},setpts=PTS-STARTPTS[v{n}];"
        graph += f"[0:a]atrim=start={a:.6f}:end={b:.6f},asetpts=PTS-STARTPTS[a{n}];"
        inputs += f"[v{n}][a{n}]"
    graph += f"{inputs}concat=n={len(pieces)}:v=1:a=1[vc][ac];"
    total = pieces[-1][4]
    fade = ep.get("fade_out_frames", 0) / FPS
    if fade:
        st = total - fade
        graph += f"[vc]fade=t=out:st={st:.6f}:d={fade:.6f},scale={scale}[vo];[ac]afade=t=out:st={st:.6f}:d={fade:.6f}[ao]"
    else:
        graph += f"[vc]scale={scale}[vo];[ac]anull[ao]"
    ffmpeg("-i", str(src), "-filter_complex", graph, "-map", "[vo]", "-map", "[ao]", *encode_args(doc), str(out))
    return total


def cmd_cut(season, src, outdir):
    doc = load(season)
    problems = check(doc)
    if problems:
        sys.exit("binge-eval: the season breaks kino's documented bounds:\n  " + "\n  ".join(problems))
    stored = doc.get("truth", {})
    derived = truth(doc)
    if {k: v for k, v in stored.items() if k not in films(doc)} != derived:
        sys.exit(f"binge-eval: the truth in {season} differs from its pieces (run: binge_eval.py truth {season} --update)")
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    result = {}
    for ep in doc["episodes"]:
        out = outdir / f"{ep['id']}.mp4"
        started = time.monotonic()
        expected = cut_episode(doc, ep, src, out)
        got = probe(out)
        if abs(got - expected) > 1.5 / FPS:
            sys.exit(f"binge-eval: {out.name} lasts {got:.3f} s, its pieces {expected:.3f} s")
        print(f"  {out.name}: {got:.3f} s (pieces {expected:.3f} s), cut in {time.monotonic() - started:.0f} s", file=sys.stderr)
        result[ep["id"]] = derived[ep["id"]]
    film = outdir / f"{doc['film']['id']}.mp4"
    started = time.monotonic()
    ffmpeg("-i", str(src), "-vf", f"scale={doc['encode']['scale']}", *encode_args(doc), str(film))
    d = probe(film)
    print(f"  {film.name}: {d:.3f} s, cut in {time.monotonic() - started:.0f} s", file=sys.stderr)
    ft = film_truth(doc, d)
    if doc["film"]["id"] in stored and stored[doc["film"]["id"]]["credits_start"] != ft["credits_start"]:
        sys.exit("binge-eval: the film's stored truth differs")
    result[doc["film"]["id"]] = ft
    bare = doc.get("film_without_credits")
    if bare:
        out = outdir / f"{bare['id']}.mp4"
        ffmpeg("-i", str(src), "-vf", f"scale={doc['encode']['scale']}", "-frames:v", str(bare["to"]),
               "-t", f"{bare['to'] / FPS:.6f}", *encode_args(doc), str(out))
        got = probe(out)
        if abs(got - bare["to"] / FPS) > 1.5 / FPS:
            sys.exit(f"binge-eval: {out.name} lasts {got:.3f} s, not {bare['to'] / FPS:.3f} s")
        print(f"  {out.name}: {got:.3f} s", file=sys.stderr)
        result[bare["id"]] = bare_truth(bare["to"] / FPS)
    (outdir / "truth.json").write_text(json.dumps(result, indent=1) + "\n")


def cmd_truth(season, update):
    doc = load(season)
    t = truth(doc)
    t[doc["film"]["id"]] = film_truth(doc, 596.474)
    if "film_without_credits" in doc:
        bare = doc["film_without_credits"]
        t[bare["id"]] = bare_truth(bare["to"] / FPS)
    if update:
        doc["truth"] = t
        pathlib.Path(season).write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(t, indent=1))
    for p in check(doc):
        print("problem:", p, file=sys.stderr)


def cmd_stamp(season):
    """A short hash naming a cut season: the season, this file's cutting code and ffmpeg's version."""
    own = pathlib.Path(__file__).read_text()
    code = own[own.index("# --- cutting"):own.index("# --- measuring")]
    version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    h = hashlib.sha256((pathlib.Path(season).read_text() + code + version).encode()).hexdigest()
    print(h[:12])


# --- measuring through the service ---------------------------------------------------------------

class Api:
    def __init__(self, base, key):
        self.base, self.key = base.rstrip("/"), key

    def call(self, method, path, body=None):
        sep = "&" if "?" in path else "?"
        url = f"{self.base}{path}{sep}key={urllib.parse.quote(self.key)}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as e:
            sys.exit(f"binge-eval: {method} {path} answered {e.code}: {e.read().decode()[:500]}")
        return json.loads(text) if text else None


def ingest(api, doc):
    series, season = doc["series"], doc["season"]
    api.call("PUT", "/catalog/v1/item", {"id": series["id"], "type": "series", "title": series["title"]})
    api.call("PUT", "/catalog/v1/item", {"id": season["id"], "type": "season", "title": "Season 1",
                                         "episodic_info": {"series_id": series["id"],
                                                           "season_number": season["season_number"]}})
    for ep in doc["episodes"]:
        api.call("PUT", "/catalog/v1/item", {
            "id": ep["id"], "type": "episode", "title": f"Episode {ep['episode_number']}",
            "episodic_info": {"series_id": series["id"], "season_id": season["id"],
                              "season_number": season["season_number"], "episode_number": ep["episode_number"]},
            "asset_info": {"file_uri": f"{ep['id']}.mp4"}})
    film = doc["film"]
    api.call("PUT", "/catalog/v1/item", {"id": film["id"], "type": "standalone", "title": "Big Buck Bunny",
                                         "release_year": 2008, "asset_info": {"file_uri": f"{film['id']}.mp4"}})
    if "film_without_credits" in doc:
        bare = doc["film_without_credits"]
        api.call("PUT", "/catalog/v1/item", {"id": bare["id"], "type": "standalone",
                                             "title": "Big Buck Bunny (without its credits)", "release_year": 2008,
                                             "asset_info": {"file_uri": f"{bare['id']}.mp4"}})


def wait(api, ids, n_episodes, film_ids, deadline):
    """Polls every item's markers task and markers until all are ready with the whole season
    compared; returns the markers and the seconds from the first request."""
    started = time.monotonic()
    for i in ids:
        api.call("POST", f"/tasks/catalog-item/{i}/product/markers/version/1.0.0", {})
    last_line, last_print = None, 0.0
    while True:
        states, answers = {}, {}
        for i in ids:
            s = api.call("GET", f"/tasks/catalog-item/{i}/product/markers/version/1.0.0")
            states[i] = s
            if s["status"] == "failed":
                sys.exit(f"binge-eval: the markers task of {i} failed: {s['error']}")
            answers[i] = api.call("GET", f"/results/markers/v1/asset/{i}")
        done = all(
            states[i]["status"] == "ready" and not answers[i]["not_yet_available"]
            and answers[i].get("episodes_compared") == (0 if i in film_ids else n_episodes - 1)
            for i in ids)
        elapsed = time.monotonic() - started
        line = "; ".join(f"{i}: {states[i]['status']}" + (f" ({states[i]['error']})" if states[i]["error"] else "")
                         + (f", compared {answers[i].get('episodes_compared')}" if states[i]["status"] == "ready" else "")
                         for i in ids)
        # A line when a state changes (progress percentages aside), else every 30 s.
        shape = re.sub(r"\d+% done", "", line)
        if shape != last_line or elapsed - last_print >= 30:
            print(f"  [{elapsed:6.0f} s] {line}", file=sys.stderr)
            last_line, last_print = shape, elapsed
        if done:
            return answers, elapsed
        if elapsed > deadline:
            sys.exit(f"binge-eval: not every markers task was ready after {deadline:.0f} s (KINO_EVAL_DEADLINE)")
        time.sleep(2)


def fmt(x):
    return "—" if x is None else f"{x:.2f}"


def table(title, rows, key, tolerance, truth_key=None):
    """rows: (label, predicted answer, truth); prints the per-item rows and the figures."""
    print(f"\n{title} (tolerance {tolerance:g} s)")
    print(f"| item | predicted | truth | error |")
    print(f"|---|---|---|---|")
    errors, missed, false, within, expected = [], 0, 0, 0, 0
    for label, pred, tr in rows:
        p, t = pred.get(key), tr.get(truth_key or key)
        if t is None and p is None:
            err = "none, none"
        elif t is None:
            false += 1
            err = "**false marker**"
        elif p is None:
            expected += 1
            missed += 1
            err = "**missed**"
        else:
            expected += 1
            e = p - t
            errors.append(abs(e))
            within += abs(e) <= tolerance
            err = f"{e:+.2f}"
        print(f"| {label} | {fmt(p)} | {fmt(t)} | {err} |")
    med = fmt(statistics.median(errors)) if errors else "—"
    worst = fmt(max(errors)) if errors else "—"
    share = f"{within}/{expected}" if expected else "—"
    print(f"found {expected - missed}/{expected}; median |error| {med} s; worst {worst} s; "
          f"within {tolerance:g} s: {share}; missed {missed}; false markers {false}")
    return {"found": expected - missed, "expected": expected, "median": med, "worst": worst, "within": share,
            "false": false}


def markers_time(log):
    """Per item: the markers jobs' compute times (ms) from the service's debug log."""
    times = {}
    try:
        lines = pathlib.Path(log).read_text().splitlines()
    except OSError:
        return times
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        f = rec.get("fields", {})
        if f.get("message") == "processed" and f.get("product") == "markers":
            times.setdefault(str(f.get("item")), []).append(int(f.get("elapsed_ms", 0)))
    return times


def cmd_measure(season, outdir, base, key, log, deadline):
    doc = load(season)
    tr = json.loads((pathlib.Path(outdir) / "truth.json").read_text())
    api = Api(base, key)
    ingest(api, doc)
    film_id = doc["film"]["id"]
    ids = [ep["id"] for ep in doc["episodes"]] + films(doc)
    answers, elapsed = wait(api, ids, len(doc["episodes"]), films(doc), deadline)
    labels = {ep["id"]: f"E{ep['episode_number']}" for ep in doc["episodes"]}
    labels[film_id] = "film"
    if "film_without_credits" in doc:
        labels[doc["film_without_credits"]["id"]] = "film without credits"
    tol = doc["tolerance_seconds"]
    all_rows = [(labels[i], answers[i], tr[i]) for i in ids]
    print("\nBinge markers on the Big Buck Bunny season (predicted by kino vs truth, seconds; "
          "'—' = none; error = predicted - truth)")
    summary = {
        "intro start": table("Intro start", all_rows, "intro_start", tol["intro"]),
        "intro end": table("Intro end", all_rows, "intro_end", tol["intro"]),
        "recap start": table("Recap start", all_rows, "recap_start", tol["recap"]),
        "recap end": table("Recap end", all_rows, "recap_end", tol["recap"]),
        "credits start": table("Credits start", all_rows, "credit_start", tol["credits"], "credits_start"),
        "credits end": table("Credits end", all_rows, "credit_end", tol["credits"], "credits_end"),
        "mid-credits start": table("Mid-credits scene start", all_rows, "mid_credits_start", tol["credits"]),
        "mid-credits end": table("Mid-credits scene end", all_rows, "mid_credits_end", tol["credits"]),
        "post-credits start": table("Post-credits scene start", all_rows, "post_credits_start", tol["credits"]),
        "post-credits end": table("Post-credits scene end", all_rows, "post_credits_end", tol["credits"]),
    }
    print("\nSummary")
    print("| marker | found | median abs error (s) | worst (s) | within tolerance | false markers |")
    print("|---|---|---|---|---|---|")
    for name, s in summary.items():
        print(f"| {name} | {s['found']}/{s['expected']} | {s['median']} | {s['worst']} | {s['within']} | {s['false']} |")
    cues = ", ".join(f"{label} {a.get('credits_cue') or 'none'}" for label, a, _ in all_rows)
    print(f"\ncredits found by (credits_cue): {cues}")
    times = markers_time(log)
    if times:
        per = ", ".join(f"{labels.get(i, i)} {'+'.join(str(t) for t in v)}" for i, v in sorted(times.items()))
        total = sum(sum(v) for v in times.values())
        print(f"\nmarkers computation (the service's own timing of each markers job, ms; an episode's job runs "
              f"again when another episode's signals arrive): {per}; {total} ms in all")
    else:
        print("\nmarkers computation time: not in the service's log (no debug line 'processed' for a markers job)")
    print(f"from the first markers request to every marker ready (includes the media analysis of "
          f"{len(ids)} files): {elapsed:.0f} s")
    (pathlib.Path(outdir) / "markers.json").write_text(json.dumps(answers, indent=1) + "\n")


def main(argv):
    if len(argv) >= 2 and argv[0] == "truth":
        return cmd_truth(argv[1], "--update" in argv[2:])
    if len(argv) == 2 and argv[0] == "stamp":
        return cmd_stamp(argv[1])
    if len(argv) == 4 and argv[0] == "cut":
        return cmd_cut(argv[1], argv[2], argv[3])
    if len(argv) in (6, 8) and argv[0] == "measure":
        deadline = float(argv[7]) if len(argv) == 8 and argv[6] == "--deadline" else 3600.0
        return cmd_measure(argv[1], argv[2], argv[3], argv[4], argv[5], deadline)
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
