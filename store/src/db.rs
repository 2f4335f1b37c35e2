//! The two databases behind one small interface: SQL with numbered parameters (`?1`, `?2`, ...),
//! run on SQLite as written and on PostgreSQL with the parameters renamed (`$1`, `$2`, ...).
//!
//! The store's queries use the SQL both understand (`ON CONFLICT`, `RETURNING`, `CAST`,
//! `COALESCE`); the handful that cannot (JSON paths, `LEAST`, row order of insertion) ask the
//! connection for its [`Dialect`]. Values travel as [`Value`]: integers, reals, text, bytes and
//! NULL, converted to and from each column type, so a boolean stored as an integer in SQLite and
//! a `BIGINT` in PostgreSQL read back alike.

use std::collections::HashMap;
use std::fmt;

pub(super) use futures_executor::block_on;

/// A value bound to a parameter or read from a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer (booleans are 0 and 1).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// Why a statement failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed.
    #[error("{}", pg_message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// A pooled PostgreSQL connection could not be had.
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    /// Anything else: a schema newer than this build, a connection that could not be made.
    #[error("{0}")]
    Other(String),
    /// `query_row` found no row.
    #[error("query returned no rows")]
    NoRows,
    /// A column held a value of another type than the one read.
    #[error("column {column}: {message}")]
    Type {
        /// The column's index.
        column: usize,
        /// What was wrong.
        message: String,
    },
}

/// PostgreSQL's own message and detail (the driver's `Display` says only "db error").
fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{}: {} ({detail})", db.code().code(), db.message()),
            None => format!("{}: {}", db.code().code(), db.message()),
        },
        None => e.to_string(),
    }
}

impl DbError {
    /// Whether the transaction lost a race with another (a serialization failure or a
    /// deadlock) and runs again.
    pub(super) fn is_retryable(&self) -> bool {
        match self {
            DbError::Postgres(e) => e.code().is_some_and(|c| {
                *c == tokio_postgres::error::SqlState::T_R_SERIALIZATION_FAILURE
                    || *c == tokio_postgres::error::SqlState::T_R_DEADLOCK_DETECTED
            }),
            _ => false,
        }
    }
}

/// Results of statements.
pub type DbResult<T> = Result<T, DbError>;

/// `query_row`'s "no row" as `None`.
pub trait OptionalExtension<T> {
    /// `Ok(None)` for [`DbError::NoRows`].
    fn optional(self) -> DbResult<Option<T>>;
}

impl<T> OptionalExtension<T> for DbResult<T> {
    fn optional(self) -> DbResult<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(DbError::NoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A value that binds to a parameter.
pub trait ToValue {
    /// The value bound.
    fn to_value(&self) -> Value;
}

/// A value that reads from a column.
pub trait FromValue: Sized {
    /// The column's value as `Self`, or why not.
    fn from_value(v: &Value) -> Result<Self, String>;
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

macro_rules! integer {
    ($($t:ty),+) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
        impl FromValue for $t {
            fn from_value(v: &Value) -> Result<Self, String> {
                match v {
                    Value::Int(i) => <$t>::try_from(*i).map_err(|_| format!("{i} is out of range for {}", stringify!($t))),
                    other => Err(format!("expected an integer, found {}", other.kind())),
                }
            }
        }
    )+};
}

integer!(i64, i32, u16, u32, u64, usize);

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Int(i64::from(*self))
    }
}

impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Int(i) => Ok(*i != 0),
            other => Err(format!("expected a boolean, found {}", other.kind())),
        }
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}

impl ToValue for f32 {
    fn to_value(&self) -> Value {
        Value::Real(f64::from(*self))
    }
}

impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Real(f) => Ok(*f),
            Value::Int(i) => Ok(*i as f64),
            other => Err(format!("expected a number, found {}", other.kind())),
        }
    }
}

impl FromValue for f32 {
    fn from_value(v: &Value) -> Result<Self, String> {
        f64::from_value(v).map(|f| f as f32)
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            other => Err(format!("expected text, found {}", other.kind())),
        }
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> Value {
        Value::Blob(self.clone())
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Blob(b) => Ok(b.clone()),
            Value::Text(s) => Ok(s.as_bytes().to_vec()),
            other => Err(format!("expected bytes, found {}", other.kind())),
        }
    }
}

impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real",
            Value::Text(_) => "text",
            Value::Blob(_) => "bytes",
        }
    }
}

/// The parameters of a statement, in order: `params![a, b]` binds `?1` to `a` and `?2` to `b`.
macro_rules! params {
    ($($p:expr),* $(,)?) => {
        &[$($crate::db::ToValue::to_value(&$p)),*][..]
    };
}
pub(crate) use params;

/// One row of a result, read by column index.
#[derive(Debug)]
pub struct Row {
    values: Vec<Value>,
}

/// A column position (from 0).
pub trait ColumnIndex {
    /// The position.
    fn index(self) -> usize;
}

impl ColumnIndex for usize {
    fn index(self) -> usize {
        self
    }
}

impl Row {
    /// The column at `i` as `T`.
    pub fn get<I: ColumnIndex, T: FromValue>(&self, i: I) -> DbResult<T> {
        let column = i.index();
        let value = self
            .values
            .get(column)
            .ok_or_else(|| DbError::Type { column, message: format!("the row has {} columns", self.values.len()) })?;
        T::from_value(value).map_err(|message| DbError::Type { column, message })
    }
}

/// Which SQL a connection speaks, for the few statements the two write differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The column that orders rows of `webhooks`, `webhook_deliveries` and `generations` by
    /// insertion: SQLite's `rowid`, a `seq` identity column in PostgreSQL.
    pub fn insertion_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "rowid",
            Dialect::Postgres => "seq",
        }
    }

    /// The text at a JSON path (keys from the root) of a text column holding JSON, NULL when absent.
    pub fn json_text(self, column: &str, path: &[&str]) -> String {
        match self {
            Dialect::Sqlite => format!("json_extract({column}, '$.{}')", path.join(".")),
            Dialect::Postgres => format!("(CAST({column} AS jsonb) #>> '{{{}}}')", path.join(",")),
        }
    }

    /// The locking clause of a queue's claim: on PostgreSQL, rows of `table` that another
    /// transaction is claiming are skipped (so concurrent workers claim different rows instead of
    /// waiting for each other); SQLite has one writer, so nothing.
    pub fn skip_locked(self, table: &str) -> String {
        match self {
            Dialect::Sqlite => String::new(),
            Dialect::Postgres => format!(" FOR UPDATE OF {table} SKIP LOCKED"),
        }
    }

    /// The smaller of two values (`MIN(a, b)` in SQLite, `LEAST(a, b)` in PostgreSQL).
    pub fn least(self, a: &str, b: &str) -> String {
        match self {
            Dialect::Sqlite => format!("MIN({a}, {b})"),
            Dialect::Postgres => format!("LEAST({a}, {b})"),
        }
    }
}

/// A connection inside a transaction, of either database.
pub enum Conn<'a> {
    /// SQLite (the statement cache is the connection's own).
    Sqlite(&'a rusqlite::Connection),
    /// PostgreSQL, with the connection's prepared statements.
    Postgres { tx: PgTarget<'a>, statements: &'a mut HashMap<String, tokio_postgres::Statement> },
}

/// Where PostgreSQL statements run: in a transaction, or each on its own (autocommit: one round
/// trip for a read or a write that is one statement).
pub enum PgTarget<'a> {
    /// In a transaction, committed by the store.
    Tx(tokio_postgres::Transaction<'a>),
    /// Each statement its own transaction.
    Auto(&'a tokio_postgres::Client),
}

impl fmt::Debug for PgTarget<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PgTarget::Tx(_) => "PgTarget::Tx",
            PgTarget::Auto(_) => "PgTarget::Auto",
        })
    }
}

impl PgTarget<'_> {
    async fn prepare(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        match self {
            PgTarget::Tx(t) => t.prepare(sql).await,
            PgTarget::Auto(c) => c.prepare(sql).await,
        }
    }

    async fn execute(
        &self,
        st: &tokio_postgres::Statement,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, tokio_postgres::Error> {
        match self {
            PgTarget::Tx(t) => t.execute(st, params).await,
            PgTarget::Auto(c) => c.execute(st, params).await,
        }
    }

    async fn query(
        &self,
        st: &tokio_postgres::Statement,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        match self {
            PgTarget::Tx(t) => t.query(st, params).await,
            PgTarget::Auto(c) => c.query(st, params).await,
        }
    }

    async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        match self {
            PgTarget::Tx(t) => t.batch_execute(sql).await,
            PgTarget::Auto(c) => c.batch_execute(sql).await,
        }
    }
}

impl fmt::Debug for Conn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Conn::Sqlite(_) => "Conn::Sqlite",
            Conn::Postgres { .. } => "Conn::Postgres",
        })
    }
}

impl Conn<'_> {
    /// Which SQL it speaks.
    pub fn dialect(&self) -> Dialect {
        match self {
            Conn::Sqlite(_) => Dialect::Sqlite,
            Conn::Postgres { .. } => Dialect::Postgres,
        }
    }

    /// Runs a statement; how many rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[Value]) -> DbResult<usize> {
        match self {
            Conn::Sqlite(c) => Ok(c.prepare_cached(sql)?.execute(rusqlite::params_from_iter(params.iter()))?),
            Conn::Postgres { tx, statements } => {
                let st = prepared(tx, statements, sql)?;
                let n = block_on(tx.execute(&st, &pg_params(params)))?;
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            }
        }
    }

    /// Every row of a query, each mapped by `f`.
    pub fn query_map<T>(
        &mut self,
        sql: &str,
        params: &[Value],
        mut f: impl FnMut(&Row) -> DbResult<T>,
    ) -> DbResult<Vec<T>> {
        match self {
            Conn::Sqlite(c) => {
                let mut st = c.prepare_cached(sql)?;
                let columns = st.column_count();
                let mut rows = st.query(rusqlite::params_from_iter(params.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    out.push(f(&sqlite_row(r, columns)?)?);
                }
                Ok(out)
            }
            Conn::Postgres { tx, statements } => {
                let st = prepared(tx, statements, sql)?;
                let rows = block_on(tx.query(&st, &pg_params(params)))?;
                rows.iter().map(|r| f(&pg_row(r)?)).collect()
            }
        }
    }

    /// The first row of a query mapped by `f`; [`DbError::NoRows`] when there is none.
    pub fn query_row<T>(&mut self, sql: &str, params: &[Value], f: impl FnOnce(&Row) -> DbResult<T>) -> DbResult<T> {
        let mut f = Some(f);
        let mut first = None;
        match self {
            Conn::Sqlite(c) => {
                let mut st = c.prepare_cached(sql)?;
                let columns = st.column_count();
                let mut rows = st.query(rusqlite::params_from_iter(params.iter()))?;
                if let Some(r) = rows.next()? {
                    first = Some(sqlite_row(r, columns)?);
                }
            }
            Conn::Postgres { tx, statements } => {
                let st = prepared(tx, statements, sql)?;
                if let Some(r) = block_on(tx.query(&st, &pg_params(params)))?.first() {
                    first = Some(pg_row(r)?);
                }
            }
        }
        match (first, f.take()) {
            (Some(row), Some(f)) => f(&row),
            _ => Err(DbError::NoRows),
        }
    }

    /// Runs statements separated by semicolons, without parameters (schema changes).
    pub fn batch(&mut self, sql: &str) -> DbResult<()> {
        match self {
            Conn::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Conn::Postgres { tx, .. } => Ok(block_on(tx.batch_execute(sql))?),
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(*i),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

fn sqlite_row(r: &rusqlite::Row<'_>, columns: usize) -> DbResult<Row> {
    use rusqlite::types::ValueRef;
    let values = (0..columns)
        .map(|i| {
            Ok(match r.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::Int(n),
                ValueRef::Real(f) => Value::Real(f),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            })
        })
        .collect::<rusqlite::Result<_>>()?;
    Ok(Row { values })
}

/// `?N` renamed `$N` (outside quoted text): the statement as PostgreSQL reads it.
pub fn postgres_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    for ch in sql.chars() {
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None;
                }
                out.push(ch);
            }
            None => match ch {
                '\'' | '"' => {
                    quote = Some(ch);
                    out.push(ch);
                }
                '?' => out.push('$'),
                _ => out.push(ch),
            },
        }
    }
    out
}

fn prepared(
    tx: &mut PgTarget<'_>,
    statements: &mut HashMap<String, tokio_postgres::Statement>,
    sql: &str,
) -> DbResult<tokio_postgres::Statement> {
    if let Some(st) = statements.get(sql) {
        return Ok(st.clone());
    }
    let st = block_on(tx.prepare(&postgres_sql(sql)))?;
    statements.insert(sql.to_string(), st.clone());
    Ok(st)
}

fn pg_params(params: &[Value]) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync)).collect()
}

fn pg_row(r: &tokio_postgres::Row) -> DbResult<Row> {
    use tokio_postgres::types::Type;
    let values = r
        .columns()
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let ty = column.type_();
            let value = if *ty == Type::INT8 {
                r.try_get::<_, Option<i64>>(i)?.map(Value::Int)
            } else if *ty == Type::INT4 {
                r.try_get::<_, Option<i32>>(i)?.map(|n| Value::Int(n.into()))
            } else if *ty == Type::INT2 {
                r.try_get::<_, Option<i16>>(i)?.map(|n| Value::Int(n.into()))
            } else if *ty == Type::BOOL {
                r.try_get::<_, Option<bool>>(i)?.map(|b| Value::Int(b.into()))
            } else if *ty == Type::FLOAT8 {
                r.try_get::<_, Option<f64>>(i)?.map(Value::Real)
            } else if *ty == Type::FLOAT4 {
                r.try_get::<_, Option<f32>>(i)?.map(|f| Value::Real(f.into()))
            } else if *ty == Type::BYTEA {
                r.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob)
            } else if [Type::TEXT, Type::VARCHAR, Type::BPCHAR, Type::NAME, Type::UNKNOWN].contains(ty) {
                r.try_get::<_, Option<String>>(i)?.map(Value::Text)
            } else {
                return Err(DbError::Type {
                    column: i,
                    message: format!("the column's type {ty} is not one the store reads (CAST it)"),
                });
            };
            Ok(value.unwrap_or(Value::Null))
        })
        .collect::<DbResult<_>>()?;
    Ok(Row { values })
}

impl tokio_postgres::types::ToSql for Value {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use tokio_postgres::types::{IsNull, Type};
        // Each value is written as the type PostgreSQL inferred for the parameter.
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) if *ty == Type::INT8 => i.to_sql(ty, out),
            Value::Int(i) if *ty == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) if *ty == Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) if *ty == Type::BOOL => (*i != 0).to_sql(ty, out),
            Value::Int(i) if *ty == Type::FLOAT8 => (*i as f64).to_sql(ty, out),
            Value::Int(i) if *ty == Type::TEXT || *ty == Type::VARCHAR => i.to_string().to_sql(ty, out),
            Value::Real(f) if *ty == Type::FLOAT8 => f.to_sql(ty, out),
            Value::Real(f) if *ty == Type::FLOAT4 => (*f as f32).to_sql(ty, out),
            Value::Text(s) => s.to_sql(ty, out),
            Value::Blob(b) if *ty == Type::BYTEA => b.to_sql(ty, out),
            Value::Blob(b) => std::str::from_utf8(b)?.to_sql(ty, out),
            other => Err(format!("cannot bind {} to a parameter of type {ty}", other.kind()).into()),
        }
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_renamed_outside_quotes_only() {
        assert_eq!(
            postgres_sql("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d = ?12"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d = $12"
        );
    }

    #[test]
    fn values_convert_both_ways_and_refuse_the_wrong_type() {
        let row = Row { values: vec![Value::Int(1), Value::Null, Value::Text("x".into()), Value::Int(-1)] };
        assert!(row.get::<_, bool>(0).unwrap());
        assert_eq!(row.get::<_, Option<String>>(1).unwrap(), None);
        assert_eq!(row.get::<_, String>(2).unwrap(), "x");
        assert!(row.get::<_, i64>(2).unwrap_err().to_string().contains("expected an integer"));
        assert!(row.get::<_, u32>(3).unwrap_err().to_string().contains("out of range"));
        assert!(row.get::<_, i64>(4).is_err(), "no such column");
        assert_eq!(
            params![1_i64, "a", true, None::<String>, 2.5_f64].to_vec(),
            vec![Value::Int(1), Value::Text("a".into()), Value::Int(1), Value::Null, Value::Real(2.5)]
        );
    }
}
