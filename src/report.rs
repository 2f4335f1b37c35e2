//! How the core reports numbers: every time to the millisecond, every score to six decimals.
//!
//! Results are computed exactly (clip selection on the fixed-point grid, emotion means in `f64`)
//! and rounded once, where the core builds the value that the service, the Python package and the
//! command line report, so all three show the same digits and none shows float noise such as
//! `2.342999999999847`:
//!
//! - **times** (seconds: clip edges, snap and speech-avoidance shifts, emotion windows, profanity
//!   segments, thumbnail times, distances to cuts): [`time`], to 3 decimals. A time that would
//!   round past the title's end is rounded down instead ([`time_within`]), so a reported end never
//!   exceeds the duration.
//! - **scores** (aggregates, probabilities, similarities, valence/arousal/dominance): [`score`],
//!   to 6 decimals, the precision at which clip aggregates are compared with thresholds
//!   ([`crate::signals::REPORT_SCALE`]).
//!
//! Document values echoed unchanged (`fps`, frame sizes) and integers (frame numbers, ranks) are
//! not rounded. Rounding is idempotent: a reported number rounds to itself.
//!
//! ```
//! assert_eq!(kino::report::time(152.343 - 150.0), 2.343);
//! assert_eq!(kino::report::score(0.9f32 as f64), 0.9);
//! assert_eq!(kino::report::time_within(7.0006, 7.0006), 7.0);
//! ```

/// Parts of a second a reported time is rounded to (milliseconds).
pub const TIME_SCALE: f64 = 1e3;

/// Parts of one a reported score is rounded to (six decimals).
pub const SCORE_SCALE: f64 = 1e6;

#[inline]
fn round_to(v: f64, scale: f64) -> f64 {
    // `+ 0.0` turns a negative zero (a tiny negative shift) into `0.0`.
    (v * scale).round() / scale + 0.0
}

/// A time in seconds as reported: rounded to the nearest millisecond.
#[inline]
pub fn time(t: f64) -> f64 {
    round_to(t, TIME_SCALE)
}

/// A time inside a title of `duration` seconds as reported: [`time`], except that a time that
/// would round past `duration` is rounded down to the millisecond instead.
#[inline]
pub fn time_within(t: f64, duration: f64) -> f64 {
    let rounded = time(t);
    if rounded <= duration {
        return rounded;
    }
    let mut k = (duration * TIME_SCALE).floor();
    if k / TIME_SCALE > duration {
        k -= 1.0;
    }
    k / TIME_SCALE + 0.0
}

/// A score as reported: rounded to six decimals.
#[inline]
pub fn score(v: f64) -> f64 {
    round_to(v, SCORE_SCALE)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn noise_disappears_and_signs_stay() {
        assert_eq!(time(2.342999999999847), 2.343);
        assert_eq!(time(0.1 + 0.2), 0.3);
        assert_eq!(time(-0.0002), 0.0);
        assert!(time(-0.0002).is_sign_positive(), "no negative zero in reports");
        assert_eq!(time(-1.2345), -1.235, "half away from zero, symmetric");
        assert_eq!(score(0.019999980926513672), 0.02);
        assert_eq!(time_within(10.0004, 10.0004), 10.0);
        assert_eq!(time_within(10.0006, 10.0006), 10.0);
        assert_eq!(time_within(10.0006, 11.0), 10.001);
    }

    proptest! {
        #[test]
        fn rounding_is_idempotent_and_close(v in -1e7f64..1e7) {
            let (t, s) = (time(v), score(v / 10.0));
            prop_assert_eq!(time(t), t);
            prop_assert_eq!(score(s), s);
            prop_assert!((t - v).abs() <= 0.5 / TIME_SCALE + 1e-9);
            prop_assert!((s - v / 10.0).abs() <= 0.5 / SCORE_SCALE + 1e-9);
            let d = v.abs();
            let w = time_within(d, d);
            prop_assert!(w <= d && d - w < 1.0 / TIME_SCALE + 1e-9 && time(w) == w);
        }

        #[test]
        fn reported_numbers_print_short(k in -1_000_000_000i64..1_000_000_000) {
            // A reported time is the double nearest to k / 1000, which prints as that decimal.
            let t = time(k as f64 / 1000.0 + 0.0001);
            let text = serde_json::to_string(&t).unwrap();
            prop_assert!(text.split('.').nth(1).is_none_or(|decimals| decimals.len() <= 3), "{}", text);
        }
    }
}
