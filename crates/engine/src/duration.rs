//! A duration as every spec writes it, one grammar for the command line, the tour files and the
//! other specs that hold one (a watermark's lag, a window's length): a number and a unit, `250ms`,
//! `10s`, `1.5s`, `2m`, `1h`, or `0` alone; `inf` or `∞` for "never" (a grace that never drops). A
//! finite duration is at most [`Duration::MAX_MS`], so that no time computed from it can overflow.
//! [`Duration`] reads one (`FromStr`) and writes it back (`Display`) so that it reads the same.

use std::fmt;
use std::str::FromStr;

use crate::quote::quoted;

/// A duration in milliseconds, from 0 to [`Duration::MAX_MS`] or infinite; never NaN, never
/// negative.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Duration(f64);

/// The units a duration is written in, longest suffix first where one ends another (`ms`
/// before `s` and `m`), with their length in ms.
const UNITS: [(&str, f64); 4] = [
    ("ms", 1.0),
    ("s", 1_000.0),
    ("m", 60_000.0),
    ("h", 3_600_000.0),
];

impl Duration {
    /// The largest finite duration, ms: 10^14 ms, written `1e11s` (about 3 170 years). With it
    /// every generated time, every time a log may hold (±2^53 ms) less any lag, and every
    /// window index stay far inside the engine's integer range, so no arithmetic can overflow.
    pub const MAX_MS: f64 = 1e14;

    /// How the duration range reads in messages and help.
    pub const RANGE: &'static str = "from 0 to 1e11s (10^14 ms, about 3170 years)";

    /// Never: the infinite duration, written `inf`.
    pub const INFINITE: Duration = Duration(f64::INFINITY);

    /// The duration of `ms` milliseconds, if it is one (not NaN, not negative, at most
    /// [`Duration::MAX_MS`] or infinite).
    pub fn from_ms(ms: f64) -> Option<Duration> {
        (ms >= 0.0 && (ms <= Self::MAX_MS || ms == f64::INFINITY)).then_some(Duration(ms + 0.0))
    }

    /// A duration for people, in the fewest characters: `60s`, `1500ms`, `2m`, `1.5s`, `24h`.
    pub fn short(ms: f64) -> String {
        if ms.is_nan() {
            return "—".to_string();
        }
        if ms.is_infinite() {
            return "∞".to_string();
        }
        if ms.abs() >= 2.0 * 3_600_000.0 && ms % 3_600_000.0 == 0.0 {
            // A day's window reads `24h`, not `1440m`; an hour's stays `60m`.
            format!("{}h", ms / 3_600_000.0)
        } else if ms != 0.0 && ms % 60_000.0 == 0.0 {
            format!("{}m", ms / 60_000.0)
        } else if ms % 1000.0 == 0.0 {
            format!("{}s", ms / 1000.0)
        } else if ms.abs() < 1000.0 {
            format!("{ms}ms")
        } else {
            format!("{}s", ms / 1000.0)
        }
    }

    /// Its length in milliseconds (infinite for `inf`).
    pub fn ms(self) -> f64 {
        self.0
    }

    /// Whether it is a whole number of milliseconds of at least 1 ms (finite): a window's
    /// length, a session's gap, a TTL.
    pub fn whole_ms(self) -> Option<i64> {
        (self.0.is_finite() && self.0 >= 1.0 && self.0.fract() == 0.0).then_some(self.0 as i64)
    }
}

impl FromStr for Duration {
    type Err = String;

    /// Reads `250ms`, `10s`, `1.5s`, `2m`, `1h`, `0`, `inf` or `∞`; an error names the value.
    fn from_str(s: &str) -> Result<Duration, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("inf") || t == "∞" {
            return Ok(Duration::INFINITE);
        }
        let (num, scale) = match UNITS
            .iter()
            .find_map(|&(unit, scale)| t.strip_suffix(unit).map(|n| (n, scale)))
        {
            Some(found) => found,
            None if t == "0" => ("0", 1.0),
            None => {
                return Err(format!(
                    "{} is not a duration: give a number with a unit, e.g. 10s, 1500ms, 2m",
                    quoted(s)
                ))
            }
        };
        let v: f64 = num.trim().parse().map_err(|_| {
            format!(
                "{} is not a duration: {} is not a number",
                quoted(s),
                quoted(num.trim())
            )
        })?;
        if v.is_nan() {
            return Err(format!("{} is not a duration", quoted(s)));
        }
        if v < 0.0 {
            return Err(format!("{}: durations cannot be negative", quoted(s)));
        }
        let ms = v * scale;
        if ms > Self::MAX_MS {
            return Err(format!(
                "{} is out of range: durations go {}",
                quoted(s),
                Self::RANGE
            ));
        }
        // `-0` reads as 0.
        Ok(Duration(ms + 0.0))
    }
}

impl fmt::Display for Duration {
    /// As [`Duration::short`] writes it for people (`90s`, `1500ms`, `2m`, `60m`, `24h`, `1.5s`),
    /// `inf` for never, and in `ms` where the seconds it would write do not read back the same
    /// number (a fraction of a millisecond past the first second).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        if ms.is_infinite() {
            return f.write_str("inf");
        }
        let shown = Duration::short(ms);
        if shown.parse::<Duration>() == Ok(*self) {
            f.write_str(&shown)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(s: &str) -> Result<f64, String> {
        s.parse::<Duration>().map(Duration::ms)
    }

    #[test]
    fn reads_every_unit() {
        assert_eq!(ms("10s"), Ok(10_000.0));
        assert_eq!(ms("1500ms"), Ok(1_500.0));
        assert_eq!(ms("2m"), Ok(120_000.0));
        assert_eq!(ms("1h"), Ok(3_600_000.0));
        assert_eq!(ms("1.5s"), Ok(1_500.0));
        assert_eq!(ms("0"), Ok(0.0));
        assert_eq!(ms(" 90s "), Ok(90_000.0));
        assert_eq!(ms("inf"), Ok(f64::INFINITY));
        assert_eq!(ms("∞"), Ok(f64::INFINITY));
        assert_eq!(ms("1e11s"), Ok(Duration::MAX_MS));
        assert_eq!(ms("-0s").map(f64::to_bits), Ok(0.0f64.to_bits()));
    }

    #[test]
    fn a_unit_is_required_and_errors_name_the_value() {
        assert_eq!(
            ms("10").unwrap_err(),
            "'10' is not a duration: give a number with a unit, e.g. 10s, 1500ms, 2m"
        );
        assert_eq!(
            ms("xs").unwrap_err(),
            "'xs' is not a duration: 'x' is not a number"
        );
        assert_eq!(
            ms("-1s").unwrap_err(),
            "'-1s': durations cannot be negative"
        );
        assert_eq!(ms("NaNs").unwrap_err(), "'NaNs' is not a duration");
        assert_eq!(
            ms("2e11s").unwrap_err(),
            format!("'2e11s' is out of range: durations go {}", Duration::RANGE)
        );
    }

    #[test]
    fn writes_the_largest_whole_unit() {
        let shown = |ms: f64| Duration::from_ms(ms).unwrap().to_string();
        assert_eq!(shown(0.0), "0s");
        assert_eq!(shown(250.0), "250ms");
        assert_eq!(shown(1_500.0), "1.5s");
        assert_eq!(shown(90_000.0), "90s");
        assert_eq!(shown(120_000.0), "2m");
        assert_eq!(shown(3_600_000.0), "60m");
        assert_eq!(shown(7_200_000.0), "2h");
        assert_eq!(shown(0.25), "0.25ms");
        assert_eq!(shown(f64::INFINITY), "inf");
        assert_eq!(Duration::from_ms(-1.0), None);
        assert_eq!(Duration::from_ms(f64::NAN), None);
        assert_eq!(Duration::from_ms(2e14), None);
    }

    proptest! {
        #[test]
        fn what_is_written_reads_back_the_same(
            ms in prop_oneof![
                (0u64..=Duration::MAX_MS as u64).prop_map(|n| n as f64),
                (0u64..1_000_000).prop_map(|n| n as f64 * 60_000.0),
                (0u64..1_000_000).prop_map(|n| n as f64 / 1_000.0),
                0.0..Duration::MAX_MS,
            ],
        ) {
            let d = Duration::from_ms(ms).unwrap();
            prop_assert_eq!(d.to_string().parse::<Duration>(), Ok(d));
        }
    }
}
