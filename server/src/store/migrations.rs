//! Versioned schema migrations, applied in order when the store opens.
//!
//! Each migration has a number and runs once, in its own `BEGIN IMMEDIATE` transaction that also
//! records it (SQLite's `user_version`, and a row in `schema_migrations` with its name and time),
//! so two processes starting at once on one database apply it once: the second waits for the
//! first, then finds it done. A database made by a newer kino (a higher version than this build
//! knows) is refused with a clear error instead of being used with a schema it does not
//! understand. Changing the schema means appending a migration, never editing one.
//!
//! Databases from before versioning (version 0 with tables present) are brought to migration 1
//! by adding the columns those versions lacked, then recorded as version 1.

use rusqlite::{Connection, TransactionBehavior, params};

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
];

/// The schema version this build writes and understands.
pub fn latest() -> u32 {
    SQLITE.last().map_or(0, |m| m.version)
}

/// Why migrations could not run.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The database failed.
    #[error(transparent)]
    Database(#[from] rusqlite::Error),
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
