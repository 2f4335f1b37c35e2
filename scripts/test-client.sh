#!/usr/bin/env bash
# The OpenAPI document as a client developer meets it: starts kino-server (debug build, a fresh
# data directory, the demo catalog), reads /openapi.json, validates it as OpenAPI 3.1
# (openapi-spec-validator), generates a Python client with openapi-python-client (pinned; any
# warning fails), and runs a short program with the generated client: ingest an item, store its
# signals, create a task, read the task and the previews as typed objects.
#
# Uses (and creates when missing) the repository's .venv, as scripts/test-python.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x .venv/bin/python ]; then "$python" -m venv .venv; fi
.venv/bin/python -m pip install --quiet "openapi-python-client==0.29.1" "openapi-spec-validator==0.9.0"
cargo build -q -p kino-server

dir="$(mktemp -d)"
port="${PORT:-18283}"
"${CARGO_TARGET_DIR:-target}"/debug/kino-server --data-dir "$dir/data" --bind "127.0.0.1:$port" >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 150); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
[ -n "$key" ] || { echo "the server did not start" >&2; cat "$dir/err.log" >&2; exit 1; }

.venv/bin/python - "$port" "$dir/openapi.json" <<'PY'
import sys, urllib.request
port, out = sys.argv[1:]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json") as r, open(out, "wb") as f:
    f.write(r.read())
PY
.venv/bin/openapi-spec-validator "$dir/openapi.json"

# Clips and images are bytes: the generator handles them as application/octet-stream (File).
printf 'content_type_overrides:\n  video/mp4: application/octet-stream\n  image/jpeg: application/octet-stream\n  image/png: application/octet-stream\n' >"$dir/generator.yaml"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/openapi-python-client generate --path "$dir/openapi.json" \
    --output-path "$dir/kino_api" --meta none --config "$dir/generator.yaml" --fail-on-warning \
    >"$dir/generate.log" 2>&1 || { cat "$dir/generate.log" >&2; echo "client generation failed or warned" >&2; exit 1; }
if grep -qi "warning" "$dir/generate.log"; then cat "$dir/generate.log" >&2; exit 1; fi

.venv/bin/python - "$dir" "$port" "$key" data/demo/signals/tt-demo-001.json <<'PY'
import json, sys
work, port, key, demo_signals = sys.argv[1:]
sys.path.insert(0, work)

from kino_api import AuthenticatedClient
from kino_api.api.catalog import get_item, put_signals, upsert_item
from kino_api.api.previews import search_clips
from kino_api.api.tasks import create_task, get_task
from kino_api.models import (
    CatalogItem, Clip, ClipsEnvelope, CreateTaskProduct, GetItemItemType, GetTaskProduct,
    ItemType, PutSignalsItemType, SearchClipsClipType, Signals, SignalsAccepted, TaskOptions, TaskStatus,
)

# The API key travels in the X-API-Key header (the query parameter `key` works too).
client = AuthenticatedClient(
    base_url=f"http://127.0.0.1:{port}", token=key, prefix="", auth_header_name="X-API-Key",
    raise_on_unexpected_status=True,
)
item_id = "client-film"

stored = upsert_item.sync_detailed(
    client=client, body=CatalogItem(id=item_id, type_=ItemType.STANDALONE, title="A film from the client", release_year=2001)
)
assert stored.status_code == 200 and stored.parsed is None, stored
item = get_item.sync(item_type=GetItemItemType.STANDALONE, id=item_id, client=client)
assert isinstance(item, CatalogItem) and item.title == "A film from the client", item

with open(demo_signals) as f:
    document = json.load(f)
document["inventory_id"] = item_id
accepted = put_signals.sync(item_type=PutSignalsItemType.STANDALONE, id=item_id, client=client, body=Signals.from_dict(document))
assert isinstance(accepted, SignalsAccepted) and accepted.samples > 0, accepted

task = create_task.sync(
    inventory_id=item_id, product=CreateTaskProduct.JITPREVIEWS, version="1.0.0", client=client,
    body=TaskOptions(priority="low"),
)
assert isinstance(task, TaskStatus) and task.status.value in ("pending", "ready"), task
again = get_task.sync(inventory_id=item_id, product=GetTaskProduct.JITPREVIEWS, version="1.0.0", client=client)
assert isinstance(again, TaskStatus), again

answer = search_clips.sync(
    inventory_id=item_id, client=client, catalog="demo", number_of_top_candidates=3, clip_length=20.0,
    clip_type=SearchClipsClipType.EXCITING,
)
assert isinstance(answer, ClipsEnvelope), answer
clips = answer.data.jitpreview
assert 1 <= len(clips) <= 3 and all(isinstance(c, Clip) for c in clips), clips
for c in clips:
    assert c.start_time < c.stop_time and c.clip_type.value == "Exciting" and c.inventory_id == item_id, c
print(f"generated client: item {item_id} stored, signals accepted ({accepted.samples} samples), task "
      f"{task.status.value}, {len(clips)} clips, the best {clips[0].start_time}-{clips[0].stop_time} s")
PY
if grep -q "panicked" "$dir/err.log"; then grep -A5 panicked "$dir/err.log" >&2; exit 1; fi
echo "client test passed"
