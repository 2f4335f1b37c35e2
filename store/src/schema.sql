-- kino-server schema, migration 1 (see migrations.rs: later changes are new migrations, never
-- edits of this file). Every row belongs to one organisation.
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orgs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
    hash TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    prefix TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS catalogs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (org_id, name)
);
CREATE TABLE IF NOT EXISTS items (
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    id TEXT NOT NULL,
    service_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE TABLE IF NOT EXISTS signals (
    org_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    body BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    -- 1 while the body is a media analysis's fast pass (speech recognition still to come).
    partial INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, item_id)
);
CREATE TABLE IF NOT EXISTS tasks (
    org_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    product TEXT NOT NULL,
    version TEXT NOT NULL,
    active INTEGER NOT NULL,
    options TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (org_id, item_id, product, version)
);
CREATE TABLE IF NOT EXISTS results (
    org_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    product TEXT NOT NULL,
    version TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL,
    data TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (org_id, item_id, product, version)
);
CREATE INDEX IF NOT EXISTS results_by_time ON results (org_id, product, updated_at);
CREATE TABLE IF NOT EXISTS jobs (
    org_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    product TEXT NOT NULL,
    version TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (org_id, item_id, product, version)
);
CREATE TABLE IF NOT EXISTS generations (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    state TEXT NOT NULL,
    error TEXT NOT NULL,
    data TEXT,
    created_at TEXT NOT NULL,
    request TEXT,
    fingerprint TEXT
);
CREATE TABLE IF NOT EXISTS oauth_clients (
    client_id TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
-- The portal: smartlists with their current membership, recipes, creative assets.
CREATE TABLE IF NOT EXISTS smartlists (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    catalog_id INTEGER NOT NULL REFERENCES catalogs(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    type TEXT NOT NULL,
    purpose TEXT NOT NULL,
    is_ai_generated INTEGER NOT NULL,
    creator TEXT NOT NULL,
    filter TEXT NOT NULL,
    published_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS smartlists_by_org ON smartlists (org_id, created_at);
CREATE TABLE IF NOT EXISTS smartlist_members (
    smartlist_id TEXT NOT NULL REFERENCES smartlists(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    PRIMARY KEY (smartlist_id, position)
);
CREATE TABLE IF NOT EXISTS recipes (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    catalog_id INTEGER NOT NULL REFERENCES catalogs(id),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    type TEXT NOT NULL,
    creator TEXT NOT NULL,
    config TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    test_runs_count INTEGER NOT NULL DEFAULT 0,
    runs INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    followup_items TEXT NOT NULL DEFAULT '[]',
    published_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS recipes_by_org ON recipes (org_id, created_at);
CREATE TABLE IF NOT EXISTS creative_assets (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    recipe_id TEXT NOT NULL REFERENCES recipes(id),
    run_number INTEGER NOT NULL,
    asset_index INTEGER NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    item_id TEXT NOT NULL,
    title TEXT NOT NULL,
    start_time REAL NOT NULL,
    stop_time REAL NOT NULL,
    metadata TEXT NOT NULL,
    logo_data TEXT,
    image_uri TEXT,
    small_image_uri TEXT,
    video_uri TEXT,
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS creative_assets_by_org ON creative_assets (org_id, created_at);
CREATE INDEX IF NOT EXISTS creative_assets_by_recipe ON creative_assets (recipe_id, run_number, asset_index);
-- Portal webhooks. `secret` is the signing secret: a credential kept retrievably (it keys every
-- signature), like the token key file.
CREATE TABLE IF NOT EXISTS webhooks (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL REFERENCES orgs(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_by_org ON webhooks (org_id);
-- One row per delivery attempt: the exact body bytes are stored at queueing time, so a
-- redelivery sends the same bytes. `state` is pending, sending, succeeded or failed.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY,
    org_id INTEGER NOT NULL,
    webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    body BLOB NOT NULL,
    state TEXT NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER,
    error TEXT,
    attempted_at TEXT,
    created_at TEXT NOT NULL,
    redelivery_of TEXT
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_state ON webhook_deliveries (state);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id);
-- Portal request counters, one row per organisation: the count of the current fixed window
-- (`window_start`, seconds since the epoch). Kept here so a restart does not reset them.
CREATE TABLE IF NOT EXISTS rate_limits (
    org_id INTEGER PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
);
