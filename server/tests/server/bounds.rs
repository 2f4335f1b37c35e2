//! THIS FILE'S CONTENTS WERE LOST. At 03:19 UTC the helper working on Hardening III items 1, 3
//! and 7 (sign-in, connections, foot-guns) wrote its own tests to `bounds.rs` without noticing
//! that another engineer had just created a file of that name (and `mod bounds;` in `main.rs`),
//! and so overwrote it; those tests now live in `sign_in_and_connections.rs`. Whoever wrote
//! `bounds.rs`: please write it again (git never held it, so it cannot be restored), then delete
//! the test below.

#[test]
fn the_tests_of_this_file_were_overwritten_and_must_be_written_again() {
    panic!("server/tests/server/bounds.rs was overwritten by mistake at 03:19 UTC: its author must write it again");
}
