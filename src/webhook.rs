//! Webhook signatures, as the interface's Events section describes: every delivery carries
//! [`SIGNATURE_HEADER`], the HMAC-SHA256 of the exact request body bytes keyed with the webhook's
//! signing secret, as 64 lower-case hexadecimal characters.
//!
//! Receivers verify over the bytes they received (never a re-serialized object) and compare in
//! constant time; [`verify`] does both, and rejects a header that is not 64 hex characters.
//!
//! ```
//! let body = br#"{"event":"test","timestamp":"2026-01-01T00:00:00.000Z","data":{"message":"hi"}}"#;
//! let signature = kino::webhook::sign(body, "whsec_example");
//! assert_eq!(signature.len(), 64);
//! assert!(kino::webhook::verify(body, &signature, "whsec_example"));
//! assert!(!kino::webhook::verify(b"{}", &signature, "whsec_example"));
//! ```

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-Service-Signature";
/// The header that carries the (unsigned, informational) send time.
pub const TIMESTAMP_HEADER: &str = "X-Service-Timestamp";
/// The header that carries the event name (absent on Test deliveries).
pub const EVENT_HEADER: &str = "X-Service-Event";
/// Length of a signature in hexadecimal characters.
pub const SIGNATURE_LEN: usize = 64;

fn mac(body: &[u8], secret: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts keys of any length");
    mac.update(body);
    mac
}

/// The signature of `body`: HMAC-SHA256 keyed with `secret`, as 64 lower-case hex characters.
pub fn sign(body: &[u8], secret: impl AsRef<[u8]>) -> String {
    hex::encode(mac(body, secret.as_ref()).finalize().into_bytes())
}

/// Whether `header` is the signature of `body` under `secret`. A header that is not exactly 64
/// hexadecimal characters (either case) is rejected; the digests are compared in constant time.
pub fn verify(body: &[u8], header: &str, secret: impl AsRef<[u8]>) -> bool {
    if header.len() != SIGNATURE_LEN {
        return false;
    }
    let Ok(expected) = hex::decode(header) else {
        return false;
    };
    mac(body, secret.as_ref()).verify_slice(&expected).is_ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// RFC 4231 HMAC-SHA-256 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output).
    #[test]
    fn rfc_4231_vectors() {
        let cases: [(Vec<u8>, Vec<u8>, &str); 6] = [
            (vec![0x0b; 20], b"Hi There".to_vec(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (b"Jefe".to_vec(), b"what do ya want for nothing?".to_vec(), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            (vec![0xaa; 20], vec![0xdd; 50], "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            ((1..=25).collect(), vec![0xcd; 50], "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                vec![0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".to_vec(),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (key, data, expected) in cases {
            assert_eq!(sign(&data, &key), expected);
            assert!(verify(&data, expected, &key));
            assert!(verify(&data, &expected.to_uppercase(), &key), "hex digits of either case");
        }
    }

    #[test]
    fn malformed_headers_are_rejected() {
        let body = b"{\"event\":\"test\"}";
        let good = sign(body, "s");
        assert!(verify(body, &good, "s"));
        assert!(!verify(body, &good, "t"), "another secret");
        assert!(!verify(body, &good[..63], "s"), "63 characters");
        assert!(!verify(body, &format!("{good}0"), "s"), "65 characters");
        assert!(!verify(body, &format!("sha256={good}"), "s"), "a prefix");
        assert!(!verify(body, &format!(" {}", &good[1..]), "s"), "whitespace");
        assert!(!verify(body, &format!("{}g", &good[..63]), "s"), "a non-hex character");
        assert!(!verify(body, "", "s"));
        assert!(!verify(body, &"é".repeat(32), "s"), "64 bytes but not 64 hex characters");
    }

    proptest! {
        #[test]
        fn sign_then_verify_and_any_change_breaks_it(body in prop::collection::vec(any::<u8>(), 0..256), secret in ".{0,40}", flip in any::<prop::sample::Index>()) {
            let sig = sign(&body, &secret);
            prop_assert_eq!(sig.len(), 64);
            prop_assert!(sig.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
            prop_assert!(verify(&body, &sig, &secret));
            if !body.is_empty() {
                let mut changed = body.clone();
                changed[flip.index(body.len())] ^= 1;
                prop_assert!(!verify(&changed, &sig, &secret));
            }
        }
    }
}
