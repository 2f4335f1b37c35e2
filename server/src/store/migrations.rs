//! Versioned schema migrations, applied in order when the store opens, for each database.
//!
//! Each migration has a number, the same for SQLite and PostgreSQL, and runs once, in a
//! transaction that also records it (a row in `schema_migrations` with its name and time, and on
//! SQLite the `user_version`). Two processes starting at once on one database apply it once: the
//! second waits for the first (SQLite's `BEGIN IMMEDIATE`, a PostgreSQL advisory lock), then
//! finds it done. A database made by a newer kino (a higher version than this build
//! knows) is refused with a clear error instead of being used with a schema it does not
//! understand. Changing the schema means appending a migration, never editing one.
//!
//! Databases from before versioning (version 0 with tables present) are brought to migration 1
//! by adding the columns those versions lacked, then recorded as version 1.

use rusqlite::{Connection, TransactionBehavior, params};

use super::db::{Conn, DbError};

/// One schema change.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its number, from 1, without gaps.
    pub version: u32,
    /// What it does.
    pub name: &'static str,
    /// The SQL, run as one batch.
    pub sql: &'static str,
}

/// The SQLite migrations, in order.
pub const SQLITE: &[Migration] = &[
    Migration { version: 1, name: "initial schema", sql: include_str!("schema.sql") },
    Migration {
        version: 2,
        name: "signals.version: bumped by every store, so that a replica sees its cached signals are stale",
        sql: "ALTER TABLE signals ADD COLUMN version INTEGER NOT NULL DEFAULT 1;",
    },
    Migration {
        version: 3,
        name: "leases: one holder at a time for a role (the webhook dispatcher), taken over when it expires",
        sql: "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);",
    },
    Migration { version: 4, name: OWNERS, sql: OWNERS_SQL },
];

const OWNERS: &str = "owners: the process that claimed a job, a render or a recipe run, recovered only once that \
     process's lease has lapsed";
const OWNERS_SQL: &str = "ALTER TABLE jobs ADD COLUMN owner TEXT; ALTER TABLE generations ADD COLUMN owner TEXT; \
     ALTER TABLE recipes ADD COLUMN owner TEXT;";

/// The PostgreSQL migrations, in order: the same versions as [`SQLITE`], in PostgreSQL's SQL.
pub const POSTGRES: &[Migration] = &[
    Migration { version: 1, name: "initial schema", sql: include_str!("schema_postgres.sql") },
    Migration {
        version: 2,
        name: SQLITE[1].name,
        sql: "ALTER TABLE signals ADD COLUMN version BIGINT NOT NULL DEFAULT 1;",
    },
    Migration {
        version: 3,
        name: SQLITE[2].name,
        sql: "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL);",
    },
    Migration { version: 4, name: OWNERS, sql: OWNERS_SQL },
];

/// The schema version this build writes and understands.
pub fn latest() -> u32 {
    SQLITE.last().map_or(0, |m| m.version)
}

/// The key of the advisory lock that migrations hold on PostgreSQL.
const MIGRATION_LOCK: i64 = 0x6b69_6e6f_0001;

/// Why migrations could not run.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The database failed.
    #[error(transparent)]
    Database(#[from] DbError),
    /// The database was migrated by a newer kino.
    #[error(
        "the database is at schema version {found}, newer than this kino-server understands ({supported}): run the newer version, or restore a backup"
    )]
    Newer {
        /// The database's version.
        found: u32,
        /// This build's latest.
        supported: u32,
    },
}

impl From<rusqlite::Error> for MigrationError {
    fn from(e: rusqlite::Error) -> Self {
        MigrationError::Database(e.into())
    }
}

fn version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

/// Applies every migration the database lacks; returns the versions applied now.
pub fn apply(conn: &mut Connection) -> Result<Vec<u32>, MigrationError> {
    let supported = latest();
    let found = version(conn)?;
    if found > supported {
        return Err(MigrationError::Newer { found, supported });
    }
    let mut applied = Vec::new();
    for m in SQLITE {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have applied it meanwhile.
        let now = version(&tx)?;
        if now > supported {
            return Err(MigrationError::Newer { found: now, supported });
        }
        if now >= m.version {
            continue;
        }
        let unversioned = now == 0
            && m.version == 1
            && tx.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'orgs'", [], |r| {
                r.get::<_, i64>(0)
            })? > 0;
        tx.execute_batch(m.sql)?;
        if m.version == 1 {
            // The tables of the schema file lack the columns that were added one by one before
            // migrations were versioned (in new and old databases alike), and the indexes on them.
            add_missing_columns(&tx)?;
            tx.execute_batch(
                "CREATE INDEX IF NOT EXISTS generations_open ON generations (org_id, state, fingerprint);
                 CREATE INDEX IF NOT EXISTS generations_queue ON generations (state, created_at);",
            )?;
        }
        let name = if unversioned {
            format!("{} (upgraded from an unversioned database)", m.name)
        } else {
            m.name.to_string()
        };
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![m.version, name, super::now()],
        )?;
        tx.pragma_update(None, "user_version", m.version)?;
        tx.commit()?;
        applied.push(m.version);
    }
    Ok(applied)
}

/// Applies every PostgreSQL migration the database lacks, in the read-committed transaction
/// `conn` is in; returns the versions applied now.
pub fn apply_postgres(conn: &mut Conn<'_>) -> Result<Vec<u32>, MigrationError> {
    use super::db::params;
    // Read committed (see `Store::connect`): after the lock, the next statements see what the
    // process that held it committed.
    conn.execute("SELECT pg_advisory_xact_lock(?1)", params![MIGRATION_LOCK])?;
    conn.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    )?;
    let found: u32 =
        conn.query_row("SELECT CAST(COALESCE(MAX(version), 0) AS BIGINT) FROM schema_migrations", params![], |r| {
            r.get(0)
        })?;
    let supported = latest();
    if found > supported {
        return Err(MigrationError::Newer { found, supported });
    }
    let mut applied = Vec::new();
    for m in POSTGRES.iter().filter(|m| m.version > found) {
        conn.batch(m.sql)?;
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![m.version, m.name, super::now()],
        )?;
        applied.push(m.version);
    }
    Ok(applied)
}

/// The columns that versions before migrations added one by one (`CREATE TABLE IF NOT EXISTS`
/// leaves an old table as it was, and the schema file never gained them).
fn add_missing_columns(conn: &Connection) -> rusqlite::Result<()> {
    // Whether the column is missing from a table that exists.
    let lacks = |table: &str, column: &str| -> rusqlite::Result<bool> {
        let mut st = conn.prepare(&format!("PRAGMA table_info({table})"))?;
        let names: Vec<String> = st.query_map([], |r| r.get(1))?.collect::<rusqlite::Result<_>>()?;
        Ok(!names.is_empty() && !names.iter().any(|n| n == column))
    };
    for (table, column, definition) in [
        ("catalogs", "generation_enabled", "INTEGER NOT NULL DEFAULT 0"),
        ("recipes", "followup_items", "TEXT NOT NULL DEFAULT '[]'"),
        ("results", "models", "TEXT NOT NULL DEFAULT ''"),
        ("signals", "partial", "INTEGER NOT NULL DEFAULT 0"),
        ("generations", "request", "TEXT"),
        ("generations", "fingerprint", "TEXT"),
    ] {
        if lacks(table, column)? {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {definition}"))?;
        }
    }
    Ok(())
}
