//! The connections behind [`Store`]: an embedded SQLite file (the default), or a PostgreSQL
//! server that any number of `kino-server` processes share.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};
use std::time::Duration;

use rusqlite::Connection;

use super::db::{Conn, DbError, DbResult, PgTarget, block_on};

/// Results of the storage layer.
pub type StoreResult<T> = Result<T, StoreError>;

/// A storage failure; callers only log it (the SQL stays in this module).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database failed.
    #[error("database: {0}")]
    Database(#[from] DbError),
    /// The database's schema is newer than this build's (see [`super::migrations`]).
    #[error("database: {0}")]
    Schema(String),
    /// The database cannot be used as given (a malformed URL, a file that cannot be created).
    #[error("database: {0}")]
    Config(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Database(e.into())
    }
}

impl From<r2d2::Error> for StoreError {
    fn from(e: r2d2::Error) -> Self {
        StoreError::Database(e.into())
    }
}

impl From<super::migrations::MigrationError> for StoreError {
    fn from(e: super::migrations::MigrationError) -> Self {
        match e {
            super::migrations::MigrationError::Database(e) => StoreError::Database(e),
            newer => StoreError::Schema(newer.to_string()),
        }
    }
}

/// The database: SQLite ([`Store::open`]) or PostgreSQL ([`Store::connect`]), behind the same
/// operations. Every write runs in one transaction (serializable on PostgreSQL, retried when it
/// loses a race with another process); every read in a read-only transaction that sees one
/// snapshot.
#[derive(Debug)]
pub struct Store {
    backend: Backend,
    /// This store's name among the processes sharing the database (`<pid>-<random>`): the owner
    /// recorded on what it claims, alive while its lease `process:<owner>` is renewed.
    owner: String,
    /// Database calls made through this store (each a transaction or a one-statement read):
    /// what a request costs the database, for measurements ([`Store::calls`]).
    calls: AtomicU64,
}

/// A process's name among those sharing the database: `<pid>-<random>`.
fn new_owner() -> String {
    format!("{}-{}", std::process::id(), crate::ids::random_hex(8))
}

#[derive(Debug)]
enum Backend {
    /// Writes go through one connection (SQLite has one writer at a time anyway, and this keeps a
    /// transaction from meeting another writer's lock half-way); reads go to any of [`READERS`]
    /// `query_only` connections.
    Sqlite { writer: Mutex<Connection>, readers: Vec<Mutex<Connection>>, next_reader: AtomicUsize },
    /// A pool of connections, driven by a small runtime of their own so that a call works from
    /// any thread, async or not.
    Postgres { pool: r2d2::Pool<PgManager>, _runtime: PgRuntime },
}

/// How many connections serve reads (SQLite).
pub const READERS: usize = 4;

/// The most connections one process opens to PostgreSQL.
pub const POSTGRES_POOL: u32 = 16;

/// How often a write transaction that lost a race with another process runs again.
const RETRIES: u32 = 8;

/// Creates the database file with mode 0600 when absent (SQLite gives its journal files the
/// database file's mode), and makes an existing one private.
///
/// An existing database is never opened here: closing a descriptor of it would release the
/// POSIX locks that another store of this process holds on it (SQLite's locking rests on them),
/// so it is created with `O_EXCL` and otherwise only has its mode checked (`private_file`).
fn create_private(path: &Path) -> std::io::Result<()> {
    // A device node, FIFO or symbolic link given as the database is refused before it is opened.
    crate::private::check_regular_file(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    crate::private::private_file(path)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Store {
    /// Opens (creating when absent) the SQLite database at `path` and applies the migrations.
    /// The file and its `-wal` and `-shm` companions are private (mode 0600): they hold the
    /// catalog and sealed webhook secrets.
    pub fn open(path: &Path) -> StoreResult<Store> {
        create_private(path).map_err(|e| StoreError::Config(format!("{}: {e}", path.display())))?;
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(Duration::from_secs(5))?;
        let applied = super::migrations::apply(&mut conn)?;
        if !applied.is_empty() {
            tracing::info!(?applied, version = super::migrations::latest(), "database schema migrated");
        }
        for suffix in ["-wal", "-shm"] {
            let companion = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
            if let Err(e) = crate::private::private_file(&companion) {
                tracing::warn!(file = %companion.display(), error = %e, "cannot make a database file private");
            }
        }
        let readers = (0..READERS)
            .map(|_| {
                let reader = Connection::open(path)?;
                reader.pragma_update(None, "query_only", "ON")?;
                reader.busy_timeout(Duration::from_secs(5))?;
                Ok(Mutex::new(reader))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Store {
            backend: Backend::Sqlite { writer: Mutex::new(conn), readers, next_reader: AtomicUsize::new(0) },
            owner: new_owner(),
            calls: AtomicU64::new(0),
        })
    }

    /// Connects to the PostgreSQL database at `url` (`postgres://user:password@host:port/name`
    /// or the key-value form `host=... dbname=...`) and applies the migrations. Connections are
    /// unencrypted: run the database on a private network or the same host.
    pub fn connect(url: &str) -> StoreResult<Store> {
        let config: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError::Config(format!("--database-url: {e}")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("kino-postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Config(format!("cannot start the PostgreSQL runtime: {e}")))?;
        let manager = PgManager { config, runtime: runtime.handle().clone() };
        let pool = r2d2::Pool::builder()
            .max_size(POSTGRES_POOL)
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(30))
            .error_handler(Box::new(r2d2::LoggingErrorHandler))
            .build(manager)?;
        let mut migrate = |c: &mut Conn<'_>| {
            super::migrations::apply_postgres(c).map_err(|e| match e {
                super::migrations::MigrationError::Database(e) => e,
                newer => DbError::Other(newer.to_string()),
            })
        };
        let applied = match pool.get()?.transact(tokio_postgres::IsolationLevel::ReadCommitted, false, &mut migrate) {
            Err(DbError::Other(message)) => return Err(StoreError::Schema(message)),
            other => other?,
        };
        let store = Store {
            backend: Backend::Postgres { pool, _runtime: PgRuntime(Some(runtime)) },
            owner: new_owner(),
            calls: AtomicU64::new(0),
        };
        if !applied.is_empty() {
            tracing::info!(?applied, version = super::migrations::latest(), "database schema migrated");
        }
        Ok(store)
    }

    /// Opens `database`: a PostgreSQL URL (`postgres://` or `postgresql://`) connects to that
    /// server, anything else is a SQLite file.
    pub fn open_any(database: &str) -> StoreResult<Store> {
        if is_postgres_url(database) { Store::connect(database) } else { Store::open(Path::new(database)) }
    }

    /// This store's name among the processes sharing the database: the owner of what it claims.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Database calls made through this store so far (each a transaction or a one-statement
    /// read; a retried transaction counts once).
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Whether this store is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Postgres { .. })
    }

    /// Runs `f` in a write transaction and commits it. On PostgreSQL the transaction is
    /// serializable: when it loses a race with another process's, it is rolled back and `f`
    /// runs again (so `f` does nothing outside the database).
    pub(super) fn with<T>(&self, mut f: impl FnMut(&mut Conn<'_>) -> DbResult<T>) -> StoreResult<T> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        match &self.backend {
            Backend::Sqlite { writer, .. } => {
                let mut conn = lock(writer);
                let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                let out = f(&mut Conn::Sqlite(&tx))?;
                tx.commit()?;
                Ok(out)
            }
            Backend::Postgres { pool, .. } => {
                let mut conn = pool.get()?;
                let mut attempt = 0;
                loop {
                    match conn.transact(tokio_postgres::IsolationLevel::Serializable, false, &mut f) {
                        Err(e) if e.is_retryable() && attempt < RETRIES => {
                            attempt += 1;
                            std::thread::sleep(Duration::from_millis(2 << attempt.min(6)));
                        }
                        out => return Ok(out?),
                    }
                }
            }
        }
    }

    /// Runs `f`, a write of exactly one statement, which is atomic on its own: on PostgreSQL
    /// without a transaction around it (one round trip, and no serialization failure to retry on
    /// a row many processes update, such as a rate-limit counter: `INSERT ... ON CONFLICT DO
    /// UPDATE` locks the row and counts exactly); on SQLite as [`Store::with`].
    pub(super) fn write_one<T>(&self, f: impl FnOnce(&mut Conn<'_>) -> DbResult<T>) -> StoreResult<T> {
        match &self.backend {
            Backend::Sqlite { .. } => {
                // Counted by `with`.
                let mut f = Some(f);
                self.with(|c| f.take().map_or(Err(DbError::NoRows), |f| f(c)))
            }
            Backend::Postgres { pool, .. } => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                Ok(pool.get()?.each(f)?)
            }
        }
    }

    /// Runs `f`, a read of one statement. On PostgreSQL the statement runs on its own (one round
    /// trip; a statement always sees one snapshot); a read of several statements that must agree
    /// uses [`Store::read_snapshot`]. On SQLite every read is a transaction on a free reading
    /// connection (the next one in turn when all are busy); they are `query_only`, so a write
    /// here is an error, not a race.
    pub(super) fn read<T>(&self, f: impl FnOnce(&mut Conn<'_>) -> DbResult<T>) -> StoreResult<T> {
        match &self.backend {
            Backend::Postgres { pool, .. } => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                Ok(pool.get()?.each(f)?)
            }
            Backend::Sqlite { .. } => self.read_snapshot(f),
        }
    }

    /// Runs `f` in a read-only transaction: its statements see one snapshot.
    pub(super) fn read_snapshot<T>(&self, f: impl FnOnce(&mut Conn<'_>) -> DbResult<T>) -> StoreResult<T> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        match &self.backend {
            Backend::Sqlite { readers, next_reader, .. } => {
                let start = next_reader.fetch_add(1, Ordering::Relaxed);
                let n = readers.len();
                let free = (0..n).find_map(|i| match readers[(start + i) % n].try_lock() {
                    Ok(conn) => Some(conn),
                    Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                    Err(TryLockError::WouldBlock) => None,
                });
                let mut conn = free.unwrap_or_else(|| lock(&readers[start % n]));
                let tx = conn.transaction()?;
                let out = f(&mut Conn::Sqlite(&tx))?;
                tx.commit()?;
                Ok(out)
            }
            Backend::Postgres { pool, .. } => {
                let mut f = Some(f);
                let mut once = |c: &mut Conn<'_>| match f.take() {
                    Some(f) => f(c),
                    None => Err(DbError::NoRows),
                };
                Ok(pool.get()?.transact(tokio_postgres::IsolationLevel::RepeatableRead, true, &mut once)?)
            }
        }
    }
}

/// Whether `database` names a PostgreSQL server rather than a SQLite file.
pub fn is_postgres_url(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

/// Checks that `value` is a PostgreSQL URL the driver can read, with an error that names the
/// rule (and never echoes the password it may hold).
pub fn check_postgres_url(value: &str) -> Result<(), String> {
    if !is_postgres_url(value) {
        return Err("must be a PostgreSQL URL: postgres://user:password@host:port/name".into());
    }
    value.parse::<tokio_postgres::Config>().map(drop).map_err(|e| format!("not a valid PostgreSQL URL: {e}"))
}

/// The runtime that drives the PostgreSQL connections; let go without waiting (a store may be
/// dropped on an async thread, where waiting for a runtime is not allowed).
struct PgRuntime(Option<tokio::runtime::Runtime>);

impl std::fmt::Debug for PgRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgRuntime")
    }
}

impl Drop for PgRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// One PostgreSQL connection with its prepared statements.
pub(super) struct PgConnection {
    client: tokio_postgres::Client,
    statements: HashMap<String, tokio_postgres::Statement>,
}

impl PgConnection {
    /// Runs `f` in a transaction of `isolation` and commits it.
    fn transact<T>(
        &mut self,
        isolation: tokio_postgres::IsolationLevel,
        read_only: bool,
        f: &mut impl FnMut(&mut Conn<'_>) -> DbResult<T>,
    ) -> DbResult<T> {
        let PgConnection { client, statements } = self;
        let tx = block_on(client.build_transaction().isolation_level(isolation).read_only(read_only).start())?;
        let mut conn = Conn::Postgres { tx: PgTarget::Tx(tx), statements };
        let out = f(&mut conn)?;
        if let Conn::Postgres { tx: PgTarget::Tx(tx), .. } = conn {
            block_on(tx.commit())?;
        }
        Ok(out)
    }

    /// Runs `f` with each statement its own transaction (autocommit).
    fn each<T>(&mut self, f: impl FnOnce(&mut Conn<'_>) -> DbResult<T>) -> DbResult<T> {
        let PgConnection { client, statements } = self;
        f(&mut Conn::Postgres { tx: PgTarget::Auto(client), statements })
    }
}

#[derive(Debug)]
struct PgManager {
    config: tokio_postgres::Config,
    runtime: tokio::runtime::Handle,
}

impl r2d2::ManageConnection for PgManager {
    type Connection = PgConnection;
    type Error = DbError;

    fn connect(&self) -> Result<PgConnection, DbError> {
        let config = self.config.clone();
        let connecting = self.runtime.spawn(async move { config.connect(tokio_postgres::NoTls).await });
        let (client, connection) = block_on(connecting).map_err(|e| DbError::Other(format!("connecting: {e}")))??;
        self.runtime.spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!(error = %e, "a PostgreSQL connection closed");
            }
        });
        Ok(PgConnection { client, statements: HashMap::new() })
    }

    fn is_valid(&self, conn: &mut PgConnection) -> Result<(), DbError> {
        Ok(block_on(conn.client.simple_query("")).map(|_| ())?)
    }

    fn has_broken(&self, conn: &mut PgConnection) -> bool {
        conn.client.is_closed()
    }
}

#[cfg(test)]
mod tests {
    use super::super::db::params;
    use super::super::{OrgId, migrations};
    use super::*;

    #[test]
    fn reads_run_beside_a_held_writer_and_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(&dir.path().join("kino.sqlite3")).unwrap());
        let (org, _) = store.ensure_org("acme").unwrap();
        // The writer is busy (held here, as a long write would hold it): a read still answers.
        let Backend::Sqlite { writer, .. } = &store.backend else { unreachable!() };
        let held = writer.lock().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = store.clone();
        std::thread::spawn(move || tx.send(reader.org_by_name("acme").unwrap()).unwrap());
        let found = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("a read waited for the writer");
        assert_eq!(found, Some(org));
        drop(held);
        // A write slipped into a read is refused by the connection, not raced.
        let e = store
            .read(|c| c.execute("INSERT INTO orgs (name, created_at) VALUES ('x', 'now')", params![]))
            .unwrap_err();
        assert!(e.to_string().contains("readonly") || e.to_string().contains("read-only"), "{e}");
        assert_eq!(store.org_by_name("x").unwrap(), None);
    }

    #[test]
    fn a_database_of_an_earlier_version_gains_the_new_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite3");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "CREATE TABLE orgs (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
                 CREATE TABLE catalogs (id INTEGER PRIMARY KEY AUTOINCREMENT, org_id INTEGER NOT NULL, name TEXT NOT NULL,
                     created_at TEXT NOT NULL, UNIQUE (org_id, name));
                 INSERT INTO orgs (name, created_at) VALUES ('acme', 'then');
                 INSERT INTO catalogs (org_id, name, created_at) VALUES (1, 'acme', 'then');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert!(!store.catalog_generation(OrgId(1), "acme").unwrap(), "off for existing catalogs");
        assert!(store.set_catalog_generation(OrgId(1), "acme", true).unwrap());
        assert!(store.catalog_generation(OrgId(1), "acme").unwrap());
        drop(store);
        assert!(Store::open(&path).unwrap().catalog_generation(OrgId(1), "acme").unwrap(), "migration runs once");
        let c = Connection::open(&path).unwrap();
        let version: u32 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, migrations::latest());
        let name: String =
            c.query_row("SELECT name FROM schema_migrations WHERE version = 1", [], |r| r.get(0)).unwrap();
        assert!(name.contains("upgraded from an unversioned database"), "{name}");
    }

    #[test]
    fn migrations_run_once_and_a_newer_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kino.sqlite3");
        let fresh = Store::open(&path).unwrap();
        fresh
            .all_results(OrgId(1), crate::vocabulary::Product::Similar)
            .expect("a new database has every column the queries read");
        drop(fresh);
        drop(Store::open(&path).unwrap());
        let c = Connection::open(&path).unwrap();
        let rows: i64 = c.query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, i64::from(migrations::latest()), "each migration recorded once");
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let e = Store::open(&path).unwrap_err().to_string();
        assert!(e.contains("schema version 99") && e.contains("newer"), "{e}");
    }

    /// SQLite's locks on `-shm` tell other processes (`kino-server admin ...`) that the shared
    /// memory is in use; a process that finds none truncates it, and a service whose locks were
    /// lost dies with SIGBUS on its next write. Opening the store (twice in one process, with the
    /// companions' modes to tighten) must keep every lock the first store holds.
    #[cfg(target_os = "linux")]
    #[test]
    fn opening_the_store_keeps_sqlites_locks() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kino.sqlite3");
        let shm = dir.path().join("kino.sqlite3-shm");
        let locks = |file: &Path| crate::private::posix_locks_held(std::fs::metadata(file).unwrap().ino());
        let store = Store::open(&path).unwrap();
        store.ensure_org("acme").unwrap();
        assert!(locks(&shm) > 0, "SQLite holds a lock on -shm while a connection is open");
        for file in [&path, &shm] {
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let again = Store::open(&path).unwrap();
        assert!(locks(&shm) > 0, "the second store's checks released none of the first's locks");
        for file in [&path, &shm] {
            assert_eq!(std::fs::metadata(file).unwrap().permissions().mode() & 0o777, 0o600, "{}", file.display());
        }
        again.ensure_org("acme").unwrap();
        store.ensure_org("acme").unwrap();
    }
}
