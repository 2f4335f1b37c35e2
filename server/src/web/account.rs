//! The web application's accounts, as a domain: users with argon2id password hashes, sign-in
//! sessions (a random token in a cookie, stored only as its SHA-256, with a CSRF token of its own),
//! and a cap on failed sign-ins per address. Nothing here speaks HTTP.

use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use crate::auth::{hash_key, random_hex};
use crate::state::AppState;
use crate::store::{OrgId, SessionRow, StoreError, now_ms};

/// How long a session lasts from sign-in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// Shortest password accepted.
pub const MIN_PASSWORD: usize = 10;
/// Longest password accepted (argon2 would take any length; a bound keeps requests cheap).
pub const MAX_PASSWORD: usize = 256;
pub use crate::throttle::{FAILURE_WINDOW, MAX_FAILURES, Throttle};

/// What went wrong with an account operation; the message names the field and the rule.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A field breaks a rule.
    #[error("{field}: {rule}")]
    Invalid {
        /// The form field.
        field: &'static str,
        /// The rule it breaks.
        rule: String,
    },
    /// The address and password do not match a user (which of the two is not said).
    #[error("the e-mail address or the password is wrong")]
    WrongCredentials,
    /// Too many failed sign-ins of this address lately.
    #[error("too many failed sign-ins for this address: try again in {0} minutes")]
    Throttled(u64),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(field: &'static str, rule: impl Into<String>) -> AccountError {
    AccountError::Invalid { field, rule: rule.into() }
}

/// A sign-in address, trimmed and in lower case, or the rule it breaks.
pub fn email(raw: &str) -> Result<String, AccountError> {
    let email = raw.trim().to_lowercase();
    if !crate::portal::is_email(&email) {
        return Err(invalid("email", "must be an e-mail address (name@domain.tld, at most 254 characters)"));
    }
    Ok(email)
}

/// Checks a new password's length.
pub fn check_password(password: &str) -> Result<(), AccountError> {
    let n = password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&n) {
        return Err(invalid("password", format!("must have {MIN_PASSWORD} to {MAX_PASSWORD} characters (it has {n})")));
    }
    Ok(())
}

/// The argon2id hash (PHC string, random salt) of a password.
pub fn hash_password(password: &str) -> String {
    Argon2::default()
        .hash_password(password.as_bytes())
        .expect("argon2id with its default parameters hashes any password of a bounded length")
        .to_string()
}

/// Whether `password` matches the stored PHC hash (an unreadable hash matches nothing).
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// Adds a user to the organisation; the address must be free.
pub fn add_user(state: &AppState, org: OrgId, raw_email: &str, password: &str) -> Result<(i64, String), AccountError> {
    let email = email(raw_email)?;
    check_password(password)?;
    let hash = hash_password(password);
    match state.store.add_user(org, &email, &hash)? {
        Some(id) => Ok((id, email)),
        None => Err(invalid("email", format!("{email} already has an account"))),
    }
}

/// A session just opened: the cookie's token (shown to the browser only) and the CSRF token.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// The cookie's value.
    pub token: String,
    /// When it expires (ms since the epoch).
    pub expires_ms: i64,
}

/// Checks an address and password and opens a session. A wrong address costs the same argon2
/// verification as a wrong password, and after [`MAX_FAILURES`] failures within
/// [`FAILURE_WINDOW`] the address is refused until the window has passed.
pub fn sign_in(state: &AppState, raw_email: &str, password: &str) -> Result<NewSession, AccountError> {
    let email = raw_email.trim().to_lowercase();
    let now = now_ms();
    if let Some(minutes) = state.guards.sign_ins.refused(&email, now) {
        return Err(AccountError::Throttled(minutes));
    }
    let user = state.store.user_by_email(&email)?;
    let hash = user.as_ref().map_or(DUMMY_HASH.as_str(), |u| u.password_hash.as_str());
    let matches = verify_password(password, hash);
    let Some(user) = user.filter(|_| matches) else {
        state.guards.sign_ins.failed(&email, now);
        return Err(AccountError::WrongCredentials);
    };
    state.guards.sign_ins.succeeded(&email);
    open_session(state, user.id)
}

/// Opens a session for the user (after a sign-in, or when the first user is created).
pub fn open_session(state: &AppState, user_id: i64) -> Result<NewSession, AccountError> {
    let token = random_hex(32);
    let now = now_ms();
    let expires_ms = now + crate::store::millis(SESSION_LIFETIME);
    state.store.add_session(&hash_key(&token), user_id, &random_hex(32), now, expires_ms)?;
    Ok(NewSession { token, expires_ms })
}

/// The live session of a cookie's token.
pub fn session(state: &AppState, token: &str) -> Result<Option<SessionRow>, AccountError> {
    Ok(state.store.session(&hash_key(token), now_ms())?)
}

/// Ends the session of a cookie's token.
pub fn sign_out(state: &AppState, token: &str) -> Result<(), AccountError> {
    Ok(state.store.end_session(&hash_key(token))?)
}

/// Whether two tokens are equal, in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    !a.is_empty() && bool::from(hash_key(a).as_bytes().ct_eq(hash_key(b).as_bytes()))
}

/// A hash of a password nobody knows, verified when the address has no user so that a wrong
/// address takes as long as a wrong password.
static DUMMY_HASH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| hash_password(&random_hex(16)));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_and_verify() {
        let hash = hash_password("correct horse battery");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse battery", &hash));
        assert!(!verify_password("correct horse batterz", &hash));
        assert!(!verify_password("anything", "not a hash"));
        assert!(!verify_password("anything", &DUMMY_HASH));
        assert_ne!(hash_password("same"), hash_password("same"), "salted");
    }

    #[test]
    fn addresses_and_passwords_are_checked() {
        assert_eq!(email("  Ada@Example.COM ").unwrap(), "ada@example.com");
        assert!(email("ada").unwrap_err().to_string().starts_with("email: "));
        assert!(check_password("short").unwrap_err().to_string().contains("10 to 256"));
        assert!(check_password("long enough!").is_ok());
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("", ""), "an empty token matches nothing");
    }
}
