//! A window function as a spec writes it, one grammar for the tour files and anything else
//! that names windows in words: `tumbling 60s`, `sliding 60s every 10s`, `session 30s` (its
//! gap), `global`; a grid's offset after it (`tumbling 1d offset 5h`, the offset taken modulo
//! the slide as [`WindowFn::with_offset`] takes it) and the global window's state TTL
//! (`global ttl 3s`, on processing time; `global ttl 3s event` on event time). Lengths are
//! [`Duration`]s of whole milliseconds. `FromStr` reads it and `Display` writes it back so that
//! it reads the same.

use std::fmt;
use std::str::FromStr;

use super::{Ttl, TtlTime, WindowFn};
use crate::duration::Duration;
use crate::quote::quoted;

impl WindowFn {
    /// Reads a window length (a size, a slide, a gap, an offset): a duration of at least 1 ms
    /// in whole milliseconds, as `--window` and the tour files write it; an error names the
    /// value.
    pub fn parse_length(s: &str) -> Result<i64, String> {
        s.parse::<Duration>()?.whole_ms().ok_or_else(|| {
            format!(
                "{} is not a window length: it must be a whole number of milliseconds ≥ 1ms",
                quoted(s)
            )
        })
    }
}

/// The spellings, for an error.
const SPELLINGS: &str =
    "tumbling 30s, sliding 60s every 10s, session 30s or global (global ttl 3s [event])";

impl FromStr for WindowFn {
    type Err = String;

    fn from_str(s: &str) -> Result<WindowFn, String> {
        let words: Vec<&str> = s.split_whitespace().collect();
        let bad = || format!("{} is not a window function: {SPELLINGS}", quoted(s));
        let offset = |rest: &[&str]| -> Result<i64, String> {
            match rest {
                [] => Ok(0),
                ["offset", d] => {
                    let ms = d.parse::<Duration>()?.ms();
                    if ms.is_finite() && ms.fract() == 0.0 {
                        Ok(ms as i64)
                    } else {
                        Err(format!(
                            "{} is not an offset: it must be a whole number of milliseconds",
                            quoted(d)
                        ))
                    }
                }
                _ => Err(bad()),
            }
        };
        let w = match words.as_slice() {
            ["tumbling", size, rest @ ..] => {
                let offset = offset(rest)?;
                WindowFn::tumbling(WindowFn::parse_length(size)?)
                    .and_then(|w| w.with_offset(offset))
            }
            ["sliding", size, "every", slide, rest @ ..] => {
                let offset = offset(rest)?;
                WindowFn::sliding(
                    WindowFn::parse_length(size)?,
                    WindowFn::parse_length(slide)?,
                )
                .and_then(|w| w.with_offset(offset))
            }
            ["session", gap] => WindowFn::session(WindowFn::parse_length(gap)?),
            ["global"] => WindowFn::global(None),
            ["global", "ttl", ttl, time @ ..] => {
                let time = match time {
                    [] => TtlTime::Processing,
                    [t] if *t == TtlTime::Event.name() => TtlTime::Event,
                    [t] if *t == TtlTime::Processing.name() => TtlTime::Processing,
                    _ => return Err(bad()),
                };
                WindowFn::global(Some(Ttl {
                    ms: WindowFn::parse_length(ttl)?,
                    time,
                }))
            }
            _ => return Err(bad()),
        };
        w.map_err(|e| format!("{}: {e}", quoted(s)))
    }
}

impl fmt::Display for WindowFn {
    /// As [`FromStr`] reads it: `tumbling 60s`, `sliding 60s every 10s offset 5s`,
    /// `session 30s`, `global ttl 3s event`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |ms: i64| {
            Duration::from_ms(ms as f64).map_or_else(|| format!("{ms}ms"), |d| d.to_string())
        };
        let offset = |offset: i64| {
            if offset == 0 {
                String::new()
            } else {
                format!(" offset {}", d(offset))
            }
        };
        match *self {
            WindowFn::Tumbling { size, offset: o } => {
                write!(f, "tumbling {}{}", d(size), offset(o))
            }
            WindowFn::Sliding {
                size,
                slide,
                offset: o,
            } => write!(f, "sliding {} every {}{}", d(size), d(slide), offset(o)),
            WindowFn::Session { gap } => write!(f, "session {}", d(gap)),
            WindowFn::Global { ttl: None } => f.write_str("global"),
            WindowFn::Global {
                ttl: Some(Ttl { ms, time }),
            } => match time {
                TtlTime::Processing => write!(f, "global ttl {}", d(ms)),
                TtlTime::Event => write!(f, "global ttl {} event", d(ms)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(s: &str) -> Result<WindowFn, String> {
        s.parse()
    }

    #[test]
    fn every_kind_reads() {
        assert_eq!(
            read("tumbling 30s"),
            WindowFn::tumbling(30_000).map_err(|e| e.to_string())
        );
        assert_eq!(
            read("sliding 60s every 10s"),
            WindowFn::sliding(60_000, 10_000).map_err(|e| e.to_string())
        );
        assert_eq!(
            read("session 30s"),
            WindowFn::session(30_000).map_err(|e| e.to_string())
        );
        assert_eq!(read("global"), Ok(WindowFn::Global { ttl: None }));
        assert_eq!(
            read("global ttl 3s event"),
            Ok(WindowFn::Global {
                ttl: Some(Ttl {
                    ms: 3_000,
                    time: TtlTime::Event
                })
            })
        );
        assert_eq!(read("tumbling 1h offset 90m").unwrap().offset(), 1_800_000);
    }

    #[test]
    fn a_bad_spec_names_the_value() {
        assert_eq!(
            read("hopping 5s"),
            Err(format!(
                "'hopping 5s' is not a window function: {SPELLINGS}"
            ))
        );
        assert_eq!(
            read("tumbling 0s"),
            Err(
                "'0s' is not a window length: it must be a whole number of milliseconds ≥ 1ms"
                    .into()
            )
        );
        assert_eq!(
            read("tumbling 10"),
            Err("'10' is not a duration: give a number with a unit, e.g. 10s, 1500ms, 2m".into())
        );
        assert!(read("sliding 10s every 1ms")
            .unwrap_err()
            .starts_with("'sliding 10s every 1ms': a 10000 ms window"));
        assert!(read("session 5s offset 1s").is_err());
        assert!(read("global ttl 3s soon").is_err());
    }

    fn any_window() -> impl Strategy<Value = WindowFn> {
        let ms = prop_oneof![
            1i64..10_000,
            (1i64..10_000).prop_map(|n| n * 1_000),
            1i64..100_000_000_000_000
        ];
        (0..4u8, ms.clone(), 1i64..=1000, ms, any::<bool>()).prop_filter_map(
            "a valid window",
            |(kind, size, per, offset, event)| {
                let w = match kind {
                    0 => WindowFn::tumbling(size),
                    1 => WindowFn::sliding(size, (size / per).max(1)),
                    2 => WindowFn::session(size),
                    _ => WindowFn::global(Some(Ttl {
                        ms: size,
                        time: if event {
                            TtlTime::Event
                        } else {
                            TtlTime::Processing
                        },
                    })),
                }
                .ok()?;
                Some(w.with_offset(offset).unwrap_or(w))
            },
        )
    }

    proptest! {
        #[test]
        fn what_is_written_reads_back_the_same(w in any_window()) {
            prop_assert_eq!(read(&w.to_string()), Ok(w));
        }
    }
}
