//! Query-string parameters with pydantic-style validation errors.
#![allow(clippy::result_large_err)] // a validation problem is built once per bad request: size does not matter

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::error::{AppError, Detail};

/// The decoded query string, in order; for a repeated key the last value wins. Its `Debug`
/// redacts the values of the parameters that carry a credential ([`SECRET_PARAMS`]).
#[derive(Clone, Default)]
pub struct Params(pub Vec<(String, String)>);

/// Query parameters whose values are credentials: the API key (`?key=`) and what a client might
/// send by mistake (a token, a secret, a password).
pub const SECRET_PARAMS: &[&str] = &["key", "api_key", "access_token", "token", "client_secret", "password"];

impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_list();
        for (name, value) in &self.0 {
            if SECRET_PARAMS.iter().any(|s| name.eq_ignore_ascii_case(s)) {
                list.entry(&(name, crate::redacted::Redacted));
            } else {
                list.entry(&(name, value));
            }
        }
        list.finish()
    }
}

impl Params {
    /// Decodes a raw query string; a malformed one is a 422.
    pub fn parse(raw: Option<&str>) -> Result<Params, AppError> {
        let raw = raw.unwrap_or("");
        serde_urlencoded::from_str::<Vec<(String, String)>>(raw).map(Params).map_err(|e| {
            AppError::invalid(Detail::query(
                "",
                "query_parsing",
                format!("malformed query string: {e}"),
                Value::Null,
                Value::Null,
            ))
        })
    }

    /// The last value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A required string parameter.
    pub fn required(&self, name: &str) -> Result<&str, Detail> {
        self.get(name).ok_or_else(|| Detail::query(name, "missing", "Field required", Value::Null, Value::Null))
    }

    /// An integer parameter with a default and a lower bound.
    pub fn int(&self, name: &str, default: i64, min: i64) -> Result<i64, Detail> {
        let Some(raw) = self.get(name) else { return Ok(default) };
        let v: i64 = raw.trim().parse().map_err(|_| {
            Detail::query(
                name,
                "int_parsing",
                "Input should be a valid integer, unable to parse string as an integer",
                json!(raw),
                Value::Null,
            )
        })?;
        if v < min {
            return Err(at_least(name, raw, json!(min)));
        }
        Ok(v)
    }

    /// A float parameter (optional).
    pub fn float(&self, name: &str, min: Option<f64>, max: Option<f64>) -> Result<Option<f64>, Detail> {
        let Some(raw) = self.get(name) else { return Ok(None) };
        let v: f64 = raw.trim().parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
            Detail::query(
                name,
                "float_parsing",
                "Input should be a valid number, unable to parse string as a number",
                json!(raw),
                Value::Null,
            )
        })?;
        if let Some(min) = min.filter(|m| v < *m) {
            return Err(at_least(name, raw, json!(min)));
        }
        if let Some(max) = max.filter(|m| v > *m) {
            return Err(Detail::query(
                name,
                "less_than_equal",
                format!("Input should be less than or equal to {max}"),
                json!(raw),
                json!({"le": max}),
            ));
        }
        Ok(Some(v))
    }

    /// A boolean parameter with a default.
    pub fn bool(&self, name: &str, default: bool) -> Result<bool, Detail> {
        let Some(raw) = self.get(name) else { return Ok(default) };
        match raw.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" | "t" | "y" => Ok(true),
            "false" | "0" | "no" | "off" | "f" | "n" => Ok(false),
            _ => Err(Detail::query(
                name,
                "bool_parsing",
                "Input should be a valid boolean, unable to interpret input",
                json!(raw),
                Value::Null,
            )),
        }
    }

    /// An ISO 8601 date-time parameter, normalised to the stored form.
    pub fn datetime(&self, name: &str) -> Result<Option<String>, Detail> {
        let Some(raw) = self.get(name) else { return Ok(None) };
        let parsed = DateTime::parse_from_rfc3339(raw.trim())
            .map(|d| d.with_timezone(&Utc))
            .or_else(|_| chrono::NaiveDateTime::parse_from_str(raw.trim(), "%Y-%m-%dT%H:%M:%S%.f").map(|n| n.and_utc()))
            .map_err(|_| {
                Detail::query(
                    name,
                    "datetime_from_date_parsing",
                    "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T12:00:00Z)",
                    json!(raw),
                    Value::Null,
                )
            })?;
        Ok(Some(parsed.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)))
    }
}

/// The `greater_than_equal` problem of `name`.
fn at_least(name: &str, raw: &str, min: Value) -> Detail {
    Detail::query(
        name,
        "greater_than_equal",
        format!("Input should be greater than or equal to {min}"),
        json!(raw),
        json!({"ge": min}),
    )
}

/// Collects the errors of several parameter reads into one 422.
#[derive(Debug, Default)]
pub struct Collect(pub Vec<Detail>);

impl Collect {
    /// Keeps the value, or records the problem and gives the fallback.
    pub fn take<T>(&mut self, r: Result<T, Detail>, fallback: T) -> T {
        r.unwrap_or_else(|d| {
            self.0.push(d);
            fallback
        })
    }

    /// 422 when anything was recorded.
    pub fn finish(self) -> Result<(), AppError> {
        if self.0.is_empty() { Ok(()) } else { Err(AppError::Validation(self.0)) }
    }
}
