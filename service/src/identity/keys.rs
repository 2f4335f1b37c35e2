//! The HS256 key of the access tokens, generated on first start and kept in the data directory
//! (a leaf module: the state holds it).

use std::path::Path;

use jsonwebtoken::{DecodingKey, EncodingKey};

use crate::ids::random_hex;

/// The signing and verifying keys.
#[derive(Clone)]
pub struct TokenKeys {
    pub(crate) encoding: EncodingKey,
    pub(crate) decoding: DecodingKey,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(..)")
    }
}

impl TokenKeys {
    /// Loads the key at `path`, creating a random 256-bit key (mode 0600) when absent.
    pub fn load_or_create(path: &Path) -> std::io::Result<TokenKeys> {
        crate::files::check_regular_file(path)?;
        let secret = match std::fs::read(path) {
            Ok(bytes) if bytes.len() >= 32 => bytes,
            _ => {
                let hex = random_hex(32);
                let tmp = path.with_extension("tmp");
                std::fs::write(&tmp, hex.as_bytes())?;
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
                }
                std::fs::rename(&tmp, path)?;
                hex.into_bytes()
            }
        };
        Ok(TokenKeys::from_secret(&secret))
    }

    /// Keys from a secret (tests).
    pub fn from_secret(secret: &[u8]) -> TokenKeys {
        TokenKeys { encoding: EncodingKey::from_secret(secret), decoding: DecodingKey::from_secret(secret) }
    }
}
