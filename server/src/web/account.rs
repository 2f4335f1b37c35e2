//! The web application's accounts, as a domain: users with argon2id password hashes, sign-in
//! sessions (a random token in a cookie, stored only as its SHA-256, with a CSRF token of its own),
//! and a cap on failed sign-ins per address and per source. Every password hash and check runs in
//! one of a few password slots ([`with_password_slot`]). Nothing here speaks HTTP.

use std::net::IpAddr;
use std::sync::Arc;
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
/// Longest e-mail address accepted, in bytes (RFC 5321's path limit less its angle brackets).
pub const MAX_EMAIL: usize = 254;
pub use crate::throttle::{FAILURE_WINDOW, MAX_FAILURES, Refusal, Throttle};

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
    /// Too many failed sign-ins from this network address lately, whatever the e-mail address.
    #[error("too many failed sign-ins from your network address: try again in {0} minutes")]
    SourceThrottled(u64),
    /// The password work stopped before its end (a panic in it).
    #[error("the password check did not finish: {0}")]
    Interrupted(#[from] tokio::task::JoinError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(field: &'static str, rule: impl Into<String>) -> AccountError {
    AccountError::Invalid { field, rule: rule.into() }
}

/// A sign-in address, trimmed and in lower case, or the rule it breaks: at most [`MAX_EMAIL`]
/// bytes (checked first, before anything else is done with it), one `@` between a non-empty
/// name and a domain of two labels or more, no space or control character.
pub fn email(raw: &str) -> Result<String, AccountError> {
    let trimmed = raw.trim();
    if trimmed.len() > MAX_EMAIL {
        return Err(invalid("email", format!("must be at most {MAX_EMAIL} bytes (it has {})", trimmed.len())));
    }
    let email = trimmed.to_lowercase();
    if !crate::portal::is_email(&email) {
        return Err(invalid(
            "email",
            "must be an e-mail address: one @ between a name and a domain (name@domain.tld), without spaces or \
             control characters",
        ));
    }
    Ok(email)
}

pub use crate::config::default_password_slots;

/// Runs `work`, which hashes or checks a password, on the blocking pool once one of `slots` is
/// free. Waiting for a slot holds no thread (it is an asynchronous wait), and at most that many
/// run at once however many sign-ins arrive, so they cannot fill the blocking pool that every
/// request shares nor hold more than slots x 19 MiB.
pub async fn with_password_slot<T: Send + 'static>(
    slots: &Arc<tokio::sync::Semaphore>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AccountError> {
    let slot = slots.clone().acquire_owned().await.expect("the password slots are never closed");
    crate::blocking::blocking(move || {
        let _slot = slot;
        Ok(work())
    })
    .await
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
#[derive(Clone)]
pub struct NewSession {
    /// The cookie's value.
    pub token: String,
    /// When it expires (ms since the epoch).
    pub expires_ms: i64,
}

impl std::fmt::Debug for NewSession {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSession")
            .field("token", &crate::redacted::Redacted)
            .field("expires_ms", &self.expires_ms)
            .finish()
    }
}

/// Checks an address and password from `source` (the client's peer, [`crate::serve::peer_of`])
/// and opens a session. The address is validated first ([`email`]) and the password's length
/// bounded, before the throttle, the database or argon2 see them; then a wrong address costs the
/// same argon2 verification as a wrong password, run in a password slot. After
/// [`MAX_FAILURES`] failures of an address, or the source's limit of failures, within
/// [`FAILURE_WINDOW`] it is refused until the window has passed.
pub async fn sign_in(
    state: &AppState,
    raw_email: &str,
    password: &str,
    source: Option<IpAddr>,
) -> Result<NewSession, AccountError> {
    let email = email(raw_email)?;
    let n = password.chars().count();
    if n > MAX_PASSWORD {
        return Err(invalid("password", format!("must have at most {MAX_PASSWORD} characters (it has {n})")));
    }
    match state.guards.sign_ins.refused(&email, source, now_ms()) {
        Some(Refusal::Address(minutes)) => return Err(AccountError::Throttled(minutes)),
        Some(Refusal::Source(minutes)) => return Err(AccountError::SourceThrottled(minutes)),
        None => {}
    }
    let (state, password) = (state.clone(), password.to_string());
    with_password_slot(&state.guards.passwords.clone(), move || {
        let user = state.store.user_by_email(&email)?;
        let hash = user.as_ref().map_or(DUMMY_HASH.as_str(), |u| u.password_hash.as_str());
        let matches = verify_password(&password, hash);
        let Some(user) = user.filter(|_| matches) else {
            state.guards.sign_ins.failed(&email, source, now_ms());
            return Err(AccountError::WrongCredentials);
        };
        state.guards.sign_ins.succeeded(&email);
        open_session(&state, user.id)
    })
    .await?
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
        for bad in
            ["a@b@example.com", "@example.com", "ada@", "a da@example.com", "ada@exa\u{7}mple.com", "ada@localhost"]
        {
            assert!(email(bad).unwrap_err().to_string().starts_with("email: must be an e-mail address"), "{bad}");
        }
        let at_most = format!("{}@{}.{}.{}", "a".repeat(64), "b".repeat(63), "c".repeat(63), "d".repeat(61));
        assert_eq!(at_most.len(), 254);
        assert_eq!(email(&at_most).unwrap(), at_most);
        let long = format!("a{at_most}");
        assert_eq!(email(&long).unwrap_err().to_string(), "email: must be at most 254 bytes (it has 255)");
        assert!(email(&"x".repeat(2_000_000)).unwrap_err().to_string().contains("it has 2000000"));
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
