//! Random identifiers and tokens (a leaf: it depends on nothing in the crate).

/// `n` random bytes as lower-case hex.
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the operating system's random source is available");
    hex::encode(buf)
}
