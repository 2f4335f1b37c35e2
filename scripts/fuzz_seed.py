"""Helpers of scripts/fuzz-api.sh (standard library only).

seed BASE DATA_DIR KEY ADMIN CLIENT_ID CLIENT_SECRET OUT
    Creates, through the service's own API, the resources whose ids only exist at run time (an
    item with signals, smartlists, recipes and their creative assets, webhooks and a delivery, a
    finished generation, files in the bucket, a failed task), waits for the demo catalog to be
    processed, and writes /openapi.json to OUT with those ids as the examples of the operations
    that need them, so that schemathesis's examples phase reaches every operation's success path.
    Operations that change or delete a resource get a resource of their own.

coverage DOC HAR...
    Maps every request of the HAR files to its operation and fails unless every operation of DOC
    got at least one 2xx answer.
"""

import json
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

DEADLINE = 300  # seconds for background work (processing, recipe runs, renders) on a busy machine


def call(base, method, path, body=None, headers=None, ok=(200, 201, 202)):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("content-type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    value = json.loads(raw) if raw else None
    if ok and status not in ok:
        raise SystemExit(f"seeding: {method} {path} answered {status}: {raw[:300]!r}")
    return status, value


def until(what, check):
    start = time.monotonic()
    end = start + DEADLINE
    while time.monotonic() < end:
        result = check()
        if result:
            print(f"seeding: {what} took {time.monotonic() - start:.1f} s", flush=True)
            return result
        time.sleep(0.3)
    raise SystemExit(f"seeding: timed out waiting for {what}")


def small_signals(inventory_id):
    n = 20
    ramp = [round(i / n, 3) for i in range(n)]
    return {
        "format": "kino.signals/1", "inventory_id": inventory_id, "duration": float(n), "fps": 24.0,
        "frame_width": 640, "frame_height": 360, "step": 1.0,
        "timelines": {"relevance": ramp, "nudity": [0.0] * n, "blood_gore": [0.0] * n, "profanity": [0.0] * n,
                      "brightness": [0.5] * n, "clip_types": {}},
        "shots": [5.0, 12.0], "speech": [[2.0, 4.0]], "characters": [{"rank": 0, "spans": [[0.0, 20.0]]}],
    }


def seed(base, data_dir, key, admin, client_id, client_secret, out):
    api = {"X-API-Key": key}
    adm = {"authorization": f"Bearer {admin}"}
    org = "/admin/v1/orgs/demo"

    # The demo catalog processed, and one failed task (fingerprint: the demo's generated signals have no
    # audio fingerprint).
    call(base, "POST", "/tasks/catalog-item/tt-demo-001/product/fingerprint/version/1.0.0", {}, api)

    def processed():
        _, tasks = call(base, "GET", "/tasks/catalog-item/tt-demo-001", headers=api)
        return all(t["task_status"]["status"] != "pending" for t in tasks)

    until("the demo item's tasks", processed)

    # Items of their own for the analysis input and for deletion.
    for item in ("fuzz-film", "fuzz-delete"):
        call(base, "PUT", "/catalog/v1/item", {"id": item, "type": "standalone", "title": item}, api)
    signals = small_signals("fuzz-film")
    # An item with an audio fingerprint, for the fingerprint products and the duplicate search.
    call(base, "PUT", "/catalog/v1/item", {"id": "fuzz-print", "type": "standalone", "title": "fuzz-print"}, api)
    printed = small_signals("fuzz-print")
    printed["audio_fingerprint"] = {"hop": 0.1, "hashes": [(i * 2654435761) % 4294967296 | 1 for i in range(200)]}
    # And a transcript, for the content summary (the demo's generated signals have none, so the
    # demo does not ask for it).
    printed["transcript"] = {"language": "en", "segments": [
        {"start": 2.0, "end": 3.0, "text": "The harbour is closed tonight.", "words": []},
        {"start": 3.0, "end": 4.0, "text": "We leave at dawn for the islands.", "words": []},
    ]}
    call(base, "PUT", "/analysis/v1/item/standalone/fuzz-print", printed, api)
    for product in ("fingerprint", "fingerprintplus", "markers", "content_summary"):
        call(base, "POST", f"/tasks/catalog-item/fuzz-print/product/{product}/version/1.0.0", {}, api)

    def fingerprinted():
        _, tasks = call(base, "GET", "/tasks/catalog-item/fuzz-print", headers=api)
        return all(t["task_status"]["status"] == "ready" for t in tasks)

    until("the fingerprint tasks", fingerprinted)

    # A finished generation (the demo items have no media files: it fails, which answers 200).
    _, answer = call(base, "GET", "/results/jitpreviews/v2/tt-demo-001?catalog=demo&trigger_generation=true"
                     "&number_of_top_candidates=1", headers=api)
    gen_id = answer["data"]["gen_id"]
    until("the generation", lambda: call(base, "GET", f"/results/jitpreviews/v2/gen/{gen_id}/status?catalog=demo",
                                         headers=api, ok=None)[0] == 200)

    def smartlist(title):
        body = {"title": title, "catalog": "demo", "creator": "fuzz@example.com", "filter": {}, "published": True}
        return call(base, "POST", f"{org}/smartlists", body, adm)[1]["id"]

    lists = {name: smartlist(name) for name in ("main", "delete", "publish")}

    def recipe(title, published):
        body = {"title": title, "type": "thumbnails", "catalog": "demo", "creator": "fuzz@example.com",
                "config": {"inventory_ids": ["tt-demo-001"], "data_only": True}, "published": published}
        rid = call(base, "POST", f"{org}/recipes", body, adm)[1]["id"]
        until(f"recipe {title}", lambda: call(base, "GET", f"{org}/recipes/{rid}", headers=adm)[1]["status"] != "running")
        return rid

    recipes = {"main": recipe("main", True), "run": recipe("run", False), "publish": recipe("publish", False)}
    _, assets = call(base, "GET", f"{org}/recipes/{recipes['main']}/creative-assets", headers=adm)
    asset_id = assets[0]["id"]

    def webhook():
        body = {"url": f"{base}/health", "events": ["recipe.completed"], "enabled": True}
        return call(base, "POST", f"{org}/webhooks", body, adm)[1]["id"]

    hooks = {"main": webhook(), "delete": webhook()}
    _, delivery = call(base, "POST", f"{org}/webhooks/{hooks['main']}/test", headers=adm)
    # A throwaway API key whose revocation is the example of DELETE .../api-keys/{id} (by prefix).
    _, throwaway = call(base, "POST", f"{org}/api-keys", headers=adm)

    # Files in the bucket, as a render leaves them.
    bucket = Path(data_dir) / "bucket"
    for rel in (f"gen/{gen_id}/clip-0.mp4", f"creative-assets/{recipes['main']}/{asset_id}.mp4"):
        (bucket / rel).parent.mkdir(parents=True, exist_ok=True)
        (bucket / rel).write_bytes(b"\x00\x00\x00\x18ftypmp42")

    _, doc = call(base, "GET", "/openapi.json")
    paths = doc["paths"]

    def example(path, method, name, value):
        for p in paths[path][method].get("parameters", []):
            if p["name"] == name:
                p["example"] = value
                return
        raise SystemExit(f"seeding: no parameter {name} in {method} {path}")

    def body_example(path, method, value):
        for media in paths[path][method]["requestBody"]["content"].values():
            media["example"] = value
            media.pop("examples", None)

    task = "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}"
    example(task + "/reset", "put", "product", "fingerprint")
    example("/catalog/v1/delete/{item_type}/{id}", "put", "id", "fuzz-delete")
    example("/analysis/v1/item/{item_type}/{id}", "put", "id", "fuzz-film")
    for path in ("/results/fingerprint/v1/{inventory_id}", "/results/fingerprint/v1/status/{inventory_id}",
                 "/results/fingerprintplus/v3/{inventory_id}", "/results/fingerprintplus/v3/status/{inventory_id}",
                 "/results/fingerprintplus/v3/duplicates/{inventory_id}"):
        example(path, "get", "inventory_id", "fuzz-print")
    body_example("/analysis/v1/item/{item_type}/{id}", "put", signals)
    example("/results/jitpreviews/v2/gen/{gen_id}/status", "get", "gen_id", gen_id)
    example("/media/gen/{gen_id}/{file}", "get", "gen_id", gen_id)
    example("/media/creative-assets/{recipe_id}/{file}", "get", "recipe_id", recipes["main"])
    example("/media/creative-assets/{recipe_id}/{file}", "get", "file", f"{asset_id}.mp4")
    # Search by example: a scene of the demo title (its scenes start at 0); pictures are fuzzed as bytes.
    paths["/search/v1/scenes"]["post"]["requestBody"]["content"]["application/json"]["example"] = {
        "item_id": "tt-demo-001", "start_ts": 0}
    paths["/search/v1/scenes"]["post"]["requestBody"]["content"]["application/json"].pop("examples", None)
    body_example("/oauth/token", "post", {"client_id": client_id, "client_secret": client_secret,
                                          "grant_type": "client_credentials"})
    for path in ("/smartlists/{id}", "/smartlists/{id}/assets"):
        example(path, "get", "id", lists["main"])
    example("/recipes/{id}", "get", "id", recipes["main"])
    example("/creative-assets/{id}", "get", "id", asset_id)
    admin_ids = {
        ("/admin/v1/orgs/{org}/smartlists/{id}", "get"): lists["main"],
        ("/admin/v1/orgs/{org}/smartlists/{id}", "patch"): lists["main"],
        ("/admin/v1/orgs/{org}/smartlists/{id}", "delete"): lists["delete"],
        ("/admin/v1/orgs/{org}/smartlists/{id}/publish", "post"): lists["publish"],
        ("/admin/v1/orgs/{org}/smartlists/{id}/unpublish", "post"): lists["publish"],
        ("/admin/v1/orgs/{org}/smartlists/{id}/assets", "get"): lists["main"],
        ("/admin/v1/orgs/{org}/recipes/{id}", "get"): recipes["main"],
        ("/admin/v1/orgs/{org}/recipes/{id}", "patch"): recipes["publish"],
        ("/admin/v1/orgs/{org}/recipes/{id}/publish", "post"): recipes["publish"],
        ("/admin/v1/orgs/{org}/recipes/{id}/unpublish", "post"): recipes["publish"],
        ("/admin/v1/orgs/{org}/recipes/{id}/run", "post"): recipes["run"],
        ("/admin/v1/orgs/{org}/recipes/{id}/creative-assets", "get"): recipes["main"],
        ("/admin/v1/orgs/{org}/webhooks/{id}", "delete"): hooks["delete"],
        ("/admin/v1/orgs/{org}/webhooks/{id}/enable", "post"): hooks["main"],
        ("/admin/v1/orgs/{org}/webhooks/{id}/disable", "post"): hooks["main"],
        ("/admin/v1/orgs/{org}/webhooks/{id}/test", "post"): hooks["main"],
        ("/admin/v1/orgs/{org}/webhooks/{id}/deliveries", "get"): hooks["main"],
        ("/admin/v1/orgs/{org}/webhook-deliveries/{id}/redeliver", "post"): delivery["id"],
        ("/admin/v1/orgs/{org}/api-keys/{id}", "delete"): throwaway["key"][:13],
    }
    for (path, method), value in admin_ids.items():
        example(path, method, "id", value)
    # A recipe change that keeps the recipe valid: the example body of creation.
    body_example("/admin/v1/orgs/{org}/recipes/{id}", "patch", {"title": "renamed", "published": False})
    body_example("/admin/v1/orgs/{org}/smartlists/{id}", "patch", {"title": "renamed"})
    Path(out).write_text(json.dumps(doc))
    print(f"seeded: item fuzz-film, generation {gen_id}, smartlists {sorted(lists.values())}, "
          f"recipes {sorted(recipes.values())}, webhooks {sorted(hooks.values())}")


def coverage(doc_path, hars):
    doc = json.loads(Path(doc_path).read_text())
    templates = []
    for path, item in doc["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"
        literal = sum(1 for s in path.split("/") if s and not s.startswith("{"))
        for method in item:
            templates.append((method.upper(), path, re.compile(pattern), literal))
    reached = {(m, p): set() for m, p, _, _ in templates}
    for har in hars:
        for entry in json.loads(Path(har).read_text())["log"]["entries"]:
            method = entry["request"]["method"].upper()
            url = entry["request"]["url"]
            path = "/" + url.split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
            path = urllib.request.unquote(path) if "%2F" not in path else path
            matches = [(lit, p) for m, p, rx, lit in templates if m == method and rx.match(path)]
            if matches:
                reached[(method, max(matches)[1])].add(entry["response"]["status"])
    missing = sorted(f"{m} {p} (got {sorted(s) or 'nothing'})" for (m, p), s in reached.items()
                     if not any(200 <= c < 300 for c in s))
    total = len(reached)
    print(f"schemathesis reached the success path of {total - len(missing)} of {total} operations")
    if missing:
        print("no 2xx for:\n  " + "\n  ".join(missing), file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "seed":
        seed(*args)
    elif command == "coverage":
        coverage(args[0], args[1:])
    else:
        raise SystemExit(__doc__)
