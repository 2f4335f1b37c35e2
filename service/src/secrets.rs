//! Secrets kept retrievably in the database (webhook signing secrets) are sealed at rest with
//! ChaCha20-Poly1305 under a key that lives beside the token key (`<data-dir>/secrets.key`, mode
//! 0600), never in the database: a copy of the database alone does not reveal them.
//!
//! The key file holds one key per line, `<id> <64 hex digits>`; the first seals, every one opens
//! (so a rotation can re-seal everything before the old key is dropped). A sealed value reads
//! `kse1:<key id>:<nonce hex>:<ciphertext and tag hex>`. Values without the prefix are plain text
//! from before sealing existed and are sealed at start-up ([`SecretBox::is_sealed`]).

use std::io;
use std::path::Path;

use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use crate::ids::random_hex;

const PREFIX: &str = "kse1";
const AAD: &[u8] = b"kino sealed secret v1";

/// The keys that seal and open stored secrets.
pub struct SecretBox {
    /// `(id, key)`, the sealing key first.
    keys: Vec<(String, LessSafeKey)>,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("SecretBox").field("key_ids", &ids).finish()
    }
}

/// A sealed value that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// Sealed under a key the key file no longer holds.
    #[error("sealed with key {0:?}, which the secrets key file does not hold (was it replaced?)")]
    UnknownKey(String),
    /// Malformed or tampered with.
    #[error("the sealed value is corrupted")]
    Corrupted,
}

impl SecretBox {
    /// Reads the key file at `path`, creating it (mode 0600, one new key) when absent.
    pub fn load_or_create(path: &Path) -> io::Result<SecretBox> {
        crate::files::check_regular_file(path)?;
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text)
                .map_err(|rule| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {rule}", path.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let text = new_key_line();
                write_private(path, &text)?;
                Self::parse(&text).map_err(io::Error::other)
            }
            Err(e) => Err(e),
        }
    }

    fn parse(text: &str) -> Result<SecretBox, String> {
        let mut keys = Vec::new();
        for (n, line) in text.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
            let (id, hex_key) = line.split_once(' ').ok_or(format!("line {}: expected `<id> <hex key>`", n + 1))?;
            let bytes = hex::decode(hex_key.trim()).map_err(|_| format!("line {}: the key is not hex", n + 1))?;
            let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes)
                .map_err(|_| format!("line {}: the key must be 32 bytes (64 hex digits)", n + 1))?;
            keys.push((id.to_string(), LessSafeKey::new(key)));
        }
        if keys.is_empty() {
            return Err("holds no key".into());
        }
        Ok(SecretBox { keys })
    }

    /// Whether a stored value is sealed (not plain text from an older version).
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(PREFIX) && stored.split(':').count() == 4
    }

    /// Seals `plain` under the first key.
    pub fn seal(&self, plain: &str) -> String {
        let (id, key) = &self.keys[0];
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).expect("the operating system's random source is available");
        let mut data = plain.as_bytes().to_vec();
        key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(AAD), &mut data)
            .expect("sealing a short secret cannot fail");
        format!("{PREFIX}:{id}:{}:{}", hex::encode(nonce), hex::encode(data))
    }

    /// Opens a stored value; plain text (from before sealing) is returned as it is.
    pub fn open(&self, stored: &str) -> Result<String, SecretError> {
        if !Self::is_sealed(stored) {
            return Ok(stored.to_string());
        }
        let mut parts = stored.split(':').skip(1);
        let (Some(id), Some(nonce), Some(data)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(SecretError::Corrupted);
        };
        let (_, key) =
            self.keys.iter().find(|(k, _)| k == id).ok_or_else(|| SecretError::UnknownKey(id.to_string()))?;
        let nonce: [u8; NONCE_LEN] =
            hex::decode(nonce).ok().and_then(|n| n.try_into().ok()).ok_or(SecretError::Corrupted)?;
        let mut data = hex::decode(data).map_err(|_| SecretError::Corrupted)?;
        let plain = key
            .open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(AAD), &mut data)
            .map_err(|_| SecretError::Corrupted)?;
        String::from_utf8(plain.to_vec()).map_err(|_| SecretError::Corrupted)
    }

    /// Whether `stored` is sealed under the sealing (first) key.
    pub fn is_current(&self, stored: &str) -> bool {
        Self::is_sealed(stored) && stored.split(':').nth(1) == Some(self.keys[0].0.as_str())
    }

    /// Starts a rotation: a new key is put first in the key file (the old ones stay, so that
    /// every stored value still opens); returns the box with the new key sealing.
    pub fn begin_rotation(path: &Path) -> io::Result<SecretBox> {
        let old = std::fs::read_to_string(path)?;
        let text = format!("{}{old}", new_key_line());
        Self::parse(&text).map_err(io::Error::other)?;
        write_private(path, &text)?;
        Self::parse(&text).map_err(io::Error::other)
    }

    /// Ends a rotation once every stored value is sealed under the first key: the other keys
    /// are dropped from the key file.
    pub fn finish_rotation(&self, path: &Path) -> io::Result<()> {
        let text = std::fs::read_to_string(path)?;
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
        if !first.starts_with(&format!("{} ", self.keys[0].0)) {
            return Err(io::Error::other("the key file changed during the rotation"));
        }
        write_private(path, &format!("{first}\n"))
    }
}

fn new_key_line() -> String {
    format!("k{} {}\n", random_hex(4), random_hex(32))
}

/// Writes `text` to `path` through a private (0600) temporary file renamed into place.
fn write_private(path: &Path, text: &str) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    crate::files::private_file(&tmp)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_opens_and_rotates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.key");
        let first = SecretBox::load_or_create(&path).unwrap();
        let sealed = first.seal("abc123");
        assert!(SecretBox::is_sealed(&sealed) && !sealed.contains("abc123"));
        assert_eq!(first.open(&sealed).unwrap(), "abc123");
        assert_ne!(first.seal("abc123"), sealed, "a fresh nonce each time");
        assert_eq!(first.open("legacy-plain").unwrap(), "legacy-plain");
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push(if sealed.ends_with('0') { '1' } else { '0' });
        assert!(matches!(first.open(&tampered), Err(SecretError::Corrupted)));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // a rotation: old values open during it, new ones seal with the new key, then the old key goes
        let rotating = SecretBox::begin_rotation(&path).unwrap();
        assert_eq!(rotating.open(&sealed).unwrap(), "abc123");
        assert!(!rotating.is_current(&sealed));
        let resealed = rotating.seal("abc123");
        assert!(rotating.is_current(&resealed));
        rotating.finish_rotation(&path).unwrap();
        let after = SecretBox::load_or_create(&path).unwrap();
        assert_eq!(after.open(&resealed).unwrap(), "abc123");
        assert!(matches!(after.open(&sealed), Err(SecretError::UnknownKey(_))));
    }
}
