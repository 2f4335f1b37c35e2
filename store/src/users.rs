//! The web application's accounts: an organisation's users (an e-mail address, unique across the
//! service, and an argon2 password hash) and their sign-in sessions (stored by the SHA-256 of the
//! cookie's token, with the session's CSRF token and its expiry); and the catalog as the web
//! application browses it (a search over ids and titles, one page at a time).

use super::backend::{Store, StoreResult};
use super::db::{OptionalExtension, params};
use super::items::ItemRow;
use super::items::item_row;
use super::types::{OrgId, now};

/// A user as the sign-in reads it.
#[derive(Clone)]
pub struct UserRow {
    /// The user's id.
    pub id: i64,
    /// The user's organisation.
    pub org: OrgId,
    /// The sign-in address (lower case).
    pub email: String,
    /// The argon2 hash (PHC string) of the password.
    pub password_hash: String,
}

impl std::fmt::Debug for UserRow {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserRow")
            .field("id", &self.id)
            .field("org", &self.org)
            .field("email", &self.email)
            .field("password_hash", &crate::redacted::Redacted)
            .finish()
    }
}

/// A live session: who is signed in, and the CSRF token of their forms.
#[derive(Clone)]
pub struct SessionRow {
    /// The user's id.
    pub user_id: i64,
    /// The user's organisation.
    pub org: OrgId,
    /// The organisation's name.
    pub org_name: String,
    /// The user's address.
    pub email: String,
    /// The token every form of the session carries.
    pub csrf: String,
    /// When it expires (ms since the epoch).
    pub expires_ms: i64,
}

impl std::fmt::Debug for SessionRow {
    /// Every field, the secret ones redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRow")
            .field("user_id", &self.user_id)
            .field("org", &self.org)
            .field("org_name", &self.org_name)
            .field("email", &self.email)
            .field("csrf", &crate::redacted::Redacted)
            .field("expires_ms", &self.expires_ms)
            .finish()
    }
}

impl Store {
    /// Adds a user to the organisation; `None` when the address is taken (by any organisation).
    pub fn add_user(&self, org: OrgId, email: &str, password_hash: &str) -> StoreResult<Option<i64>> {
        self.with(|c| {
            c.query_row(
                "INSERT INTO web_users (org_id, email, password_hash, created_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (email) DO NOTHING RETURNING id",
                params![org.0, email, password_hash, now()],
                |r| r.get(0),
            )
            .optional()
        })
    }

    /// The user signing in with this address.
    pub fn user_by_email(&self, email: &str) -> StoreResult<Option<UserRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT id, org_id, email, password_hash FROM web_users WHERE email = ?1",
                params![email],
                |r| Ok(UserRow { id: r.get(0)?, org: OrgId(r.get(1)?), email: r.get(2)?, password_hash: r.get(3)? }),
            )
            .optional()
        })
    }

    /// The organisation's users: (id, address, created), oldest first.
    pub fn users(&self, org: OrgId) -> StoreResult<Vec<(i64, String, String)>> {
        self.read(|c| {
            c.query_map(
                "SELECT id, email, created_at FROM web_users WHERE org_id = ?1 ORDER BY id",
                params![org.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
    }

    /// Replaces a user's password hash and ends every session of the user.
    pub fn set_password(&self, user_id: i64, password_hash: &str) -> StoreResult<bool> {
        self.with(|c| {
            let n =
                c.execute("UPDATE web_users SET password_hash = ?2 WHERE id = ?1", params![user_id, password_hash])?;
            c.execute("DELETE FROM web_sessions WHERE user_id = ?1", params![user_id])?;
            Ok(n == 1)
        })
    }

    /// Removes one of the organisation's users and their sessions; whether there was one.
    pub fn remove_user(&self, org: OrgId, user_id: i64) -> StoreResult<bool> {
        self.with(|c| {
            c.execute("DELETE FROM web_sessions WHERE user_id = ?1", params![user_id])?;
            Ok(c.execute("DELETE FROM web_users WHERE id = ?1 AND org_id = ?2", params![user_id, org.0])? == 1)
        })
    }

    /// Records a session of `user_id` under the hash of its token, until `expires_ms`; expired
    /// sessions of every user are removed on the way.
    pub fn add_session(
        &self,
        token_hash: &str,
        user_id: i64,
        csrf: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> StoreResult<()> {
        self.with(|c| {
            c.execute("DELETE FROM web_sessions WHERE expires_at <= ?1", params![now_ms])?;
            c.execute(
                "INSERT INTO web_sessions (token_hash, user_id, csrf, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![token_hash, user_id, csrf, now_ms, expires_ms],
            )?;
            Ok(())
        })
    }

    /// The live session with this token hash.
    pub fn session(&self, token_hash: &str, now_ms: i64) -> StoreResult<Option<SessionRow>> {
        self.read(|c| {
            c.query_row(
                "SELECT s.user_id, u.org_id, o.name, u.email, s.csrf, s.expires_at
                 FROM web_sessions s JOIN web_users u ON u.id = s.user_id JOIN orgs o ON o.id = u.org_id
                 WHERE s.token_hash = ?1 AND s.expires_at > ?2",
                params![token_hash, now_ms],
                |r| {
                    Ok(SessionRow {
                        user_id: r.get(0)?,
                        org: OrgId(r.get(1)?),
                        org_name: r.get(2)?,
                        email: r.get(3)?,
                        csrf: r.get(4)?,
                        expires_ms: r.get(5)?,
                    })
                },
            )
            .optional()
        })
    }

    /// Ends the session with this token hash (sign-out).
    pub fn end_session(&self, token_hash: &str) -> StoreResult<()> {
        self.write_one(|c| {
            c.execute("DELETE FROM web_sessions WHERE token_hash = ?1", params![token_hash])?;
            Ok(())
        })
    }

    /// A page of the organisation's live items whose id or title contains `search` (any case;
    /// every item when empty), in creation order, and how many match in all.
    pub fn search_items(&self, org: OrgId, search: &str, offset: i64, limit: i64) -> StoreResult<(Vec<ItemRow>, i64)> {
        let pattern =
            format!("%{}%", search.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
        self.read_snapshot(|c| {
            let title = c.dialect().json_text("body", &["title"]);
            let filter = format!(
                "org_id = ?1 AND deleted = 0 AND (lower(id) LIKE ?2 ESCAPE '\\' OR lower(COALESCE({title}, '')) LIKE ?2 ESCAPE '\\')"
            );
            let total: i64 =
                c.query_row(&format!("SELECT count(*) FROM items WHERE {filter}"), params![org.0, pattern], |r| r.get(0))?;
            let rows = c.query_map(
                &format!(
                    "SELECT id, service_id, type, body, deleted FROM items WHERE {filter}
                     ORDER BY created_at, id LIMIT ?3 OFFSET ?4"
                ),
                params![org.0, pattern, limit, offset],
                item_row,
            )?;
            Ok((rows, total))
        })
    }

    /// The newest successful clip generation of the item with this request fingerprint: its id and
    /// `data`.
    pub fn rendered(&self, org: OrgId, item_id: &str, fingerprint: &str) -> StoreResult<Option<(String, String)>> {
        self.read(|c| {
            let order = c.dialect().insertion_order();
            c.query_row(
                &format!(
                    "SELECT id, data FROM generations WHERE org_id = ?1 AND item_id = ?2 AND fingerprint = ?3
                     AND state = 'SUCCESS' AND data IS NOT NULL ORDER BY {order} DESC LIMIT 1"
                ),
                params![org.0, item_id, fingerprint],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
        })
    }

    /// The newest clip generation of the item with this request fingerprint that has not
    /// succeeded: its id, state and error (queued, rendering or failed).
    pub fn unrendered(
        &self,
        org: OrgId,
        item_id: &str,
        fingerprint: &str,
    ) -> StoreResult<Option<(String, String, String)>> {
        self.read(|c| {
            let order = c.dialect().insertion_order();
            c.query_row(
                &format!(
                    "SELECT id, state, error FROM generations WHERE org_id = ?1 AND item_id = ?2 AND fingerprint = ?3
                     AND state <> 'SUCCESS' ORDER BY {order} DESC LIMIT 1"
                ),
                params![org.0, item_id, fingerprint],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_sessions_and_search() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("kino.sqlite3")).unwrap();
        let (org, _) = store.ensure_org("acme").unwrap();
        let (other, _) = store.ensure_org("other").unwrap();
        let id = store.add_user(org, "ada@example.com", "h1").unwrap().unwrap();
        assert_eq!(store.add_user(other, "ada@example.com", "h2").unwrap(), None, "addresses are unique");
        assert_eq!(store.user_by_email("ada@example.com").unwrap().unwrap().org, org);
        store.add_session("t1", id, "csrf", 1_000, 2_000).unwrap();
        let s = store.session("t1", 1_500).unwrap().unwrap();
        assert_eq!((s.org, s.org_name.as_str(), s.csrf.as_str()), (org, "acme", "csrf"));
        assert!(store.session("t1", 2_000).unwrap().is_none(), "expired");
        assert!(store.session("t2", 1_500).unwrap().is_none());
        store.end_session("t1").unwrap();
        assert!(store.session("t1", 1_500).unwrap().is_none());
        store.add_session("t3", id, "c", 1_000, 9_000).unwrap();
        assert!(store.set_password(id, "h3").unwrap());
        assert!(store.session("t3", 1_500).unwrap().is_none(), "a new password ends the sessions");
        assert!(!store.remove_user(other, id).unwrap(), "another organisation's user");
        assert!(store.remove_user(org, id).unwrap());

        for (i, title) in ["Iron Harbor", "Harbor Lights", "50% Off_"].iter().enumerate() {
            let body = serde_json::json!({"id": format!("it-{i}"), "title": title, "type": "standalone"});
            store.upsert_item(org, &format!("it-{i}"), crate::vocabulary::ItemType::Standalone, &body, false).unwrap();
        }
        let ids = |q: &str| {
            let (rows, total) = store.search_items(org, q, 0, 10).unwrap();
            (rows.into_iter().map(|r| r.id).collect::<Vec<_>>(), total)
        };
        assert_eq!(ids("harbor"), (vec!["it-0".to_string(), "it-1".to_string()], 2));
        assert_eq!(ids("IT-2"), (vec!["it-2".to_string()], 1));
        assert_eq!(ids("%").1, 1, "LIKE's wildcards are taken literally");
        assert_eq!(ids("").1, 3);
        assert_eq!(store.search_items(org, "", 2, 10).unwrap().0.len(), 1, "paging");
        assert_eq!(store.search_items(other, "", 0, 10).unwrap().1, 0, "scoped to the organisation");
    }
}
