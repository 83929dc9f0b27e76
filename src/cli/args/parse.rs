//! The command line's value parsers and their checks: durations (`10s`, `1500ms`, `2m`) and
//! their range, window and session lengths, the TTL and its time, watermark specs and the
//! sweep's duration lists.

use clap::ValueEnum;

use crate::engine::trigger::{ClosingBehavior, OnTimeBehavior};
use crate::engine::window::TtlTime;
use crate::engine::Conventions;
use crate::engine::WatermarkKind;
use crate::io::quote::quoted;

/// The largest duration any flag takes, ms: 10^14 ms, written `1e11s` (about 3 170 years).
/// With it every generated time, every time a log may hold (±2^53 ms) less any lag, and every
/// window index stay far inside the engine's integer range, so no arithmetic can overflow.
pub const MAX_DURATION_MS: f64 = 1e14;

/// How the duration range reads in messages and help.
pub const DURATION_RANGE: &str = "from 0 to 1e11s (10^14 ms, about 3170 years)";

/// The most values a list or range of durations may hold.
pub const MAX_LIST_POINTS: usize = 10_000;

/// The longest history a heuristic watermark may keep.
pub const MAX_HEURISTIC_N: usize = 1_000_000;

/// Parses a duration into milliseconds: `250ms`, `10s`, `1.5s`, `2m`, `1h`, `0`; `inf` or `∞`
/// for "never" (a grace that never drops). A finite duration is at most [`MAX_DURATION_MS`].
pub fn parse_duration(s: &str) -> Result<f64, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("inf") || t == "∞" {
        return Ok(f64::INFINITY);
    }
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1_000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else if t == "0" {
        ("0", 1.0)
    } else {
        return Err(format!(
            "{} is not a duration: give a number with a unit, e.g. 10s, 1500ms, 2m",
            quoted(s)
        ));
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
    if ms > MAX_DURATION_MS {
        return Err(format!(
            "{} is out of range: durations go {DURATION_RANGE}",
            quoted(s)
        ));
    }
    // `-0` reads as 0.
    Ok(ms + 0.0)
}

/// A window size or slide: a duration of at least 1 ms, in whole milliseconds.
pub fn parse_window_ms(s: &str) -> Result<i64, String> {
    let ms = parse_duration(s)?;
    if !ms.is_finite() || ms < 1.0 || ms.fract() != 0.0 {
        return Err(format!(
            "{} is not a window length: it must be a whole number of milliseconds ≥ 1ms",
            quoted(s)
        ));
    }
    Ok(ms as i64)
}

/// A window offset: a duration in whole milliseconds, maybe negative (`-5h`, as Flink's
/// `Duration.ofHours(-5)`), from −1e11s to 1e11s.
pub fn parse_window_offset(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (sign, magnitude) = match t.strip_prefix('-').or_else(|| t.strip_prefix('−')) {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let ms =
        parse_duration(magnitude).map_err(|e| format!("{} is not an offset: {e}", quoted(s)))?;
    if !ms.is_finite() || ms.fract() != 0.0 {
        return Err(format!(
            "{} is not a window offset: it must be a finite whole number of milliseconds, e.g. \
             5h, -30m or 1500ms",
            quoted(s)
        ));
    }
    Ok(sign * ms as i64)
}

/// What `--window` takes: a window length, or the word `global`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowArg {
    /// Windows of this length, whole milliseconds (tumbling, or sliding with `--slide`).
    Length(i64),
    /// One window per key that never closes.
    Global,
}

/// `global`, or a window length as [`parse_window_ms`] reads it.
pub fn parse_window(s: &str) -> Result<WindowArg, String> {
    if s.trim().eq_ignore_ascii_case("global") {
        return Ok(WindowArg::Global);
    }
    parse_window_ms(s).map(WindowArg::Length)
}

/// A state TTL: a duration of at least 1 ms, finite, in whole milliseconds.
pub fn parse_ttl(s: &str) -> Result<i64, String> {
    let ms = parse_duration(s)?;
    if !ms.is_finite() || ms < 1.0 || ms.fract() != 0.0 {
        return Err(format!(
            "{} is not a TTL: it must be a finite whole number of milliseconds ≥ 1ms",
            quoted(s)
        ));
    }
    Ok(ms as i64)
}

/// The clock a state TTL runs on, as `--ttl-time` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TtlTimeArg {
    /// A key's state expires TTL after its last event's arrival (processing time).
    Processing,
    /// A key's state expires once the watermark reaches its latest event time + TTL.
    Event,
}

impl From<TtlTimeArg> for TtlTime {
    fn from(a: TtlTimeArg) -> Self {
        match a {
            TtlTimeArg::Processing => TtlTime::Processing,
            TtlTimeArg::Event => TtlTime::Event,
        }
    }
}

/// A session gap: a duration of at least 1 ms, in whole milliseconds.
pub fn parse_session_gap(s: &str) -> Result<i64, String> {
    let ms = parse_duration(s)?;
    if !ms.is_finite() || ms < 1.0 || ms.fract() != 0.0 {
        return Err(format!(
            "{} is not a session gap: it must be a whole number of milliseconds ≥ 1ms",
            quoted(s)
        ));
    }
    Ok(ms as i64)
}

/// `perfect`, `fixed:DUR`, `heuristic[:Q[:N]]` or `bounded:DUR`.
pub fn parse_watermark(s: &str) -> Result<WatermarkKind, String> {
    let mut parts = s.trim().split(':');
    let family = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    let bad = || {
        format!(
            "{} is not a watermark: use perfect, fixed:DUR, heuristic[:Q[:N]] or bounded:DUR",
            quoted(s)
        )
    };
    match (family, rest.as_slice()) {
        ("perfect", []) => Ok(WatermarkKind::Perfect),
        ("fixed", [lag]) => {
            let lag = parse_duration(lag)?;
            if lag.is_infinite() {
                return Err(bad());
            }
            Ok(WatermarkKind::Fixed { lag })
        }
        ("bounded", [b]) => {
            let bound = parse_duration(b)?;
            if bound.is_infinite() {
                return Err(bad());
            }
            Ok(WatermarkKind::Bounded { bound })
        }
        ("heuristic", rest) if rest.len() <= 2 => {
            let q = match rest.first() {
                Some(q) => q
                    .parse::<f64>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))
                    .ok_or_else(|| {
                        format!("{} is not a quantile: give a number from 0 to 1", quoted(q))
                    })?,
                None => WatermarkKind::DEFAULT_Q,
            };
            let n = match rest.get(1) {
                Some(n) => n
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_HEURISTIC_N).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "{} is not a history length: give a whole number from 1 to {MAX_HEURISTIC_N}",
                            quoted(n)
                        )
                    })?,
                None => WatermarkKind::DEFAULT_N,
            };
            Ok(WatermarkKind::Heuristic { q, n })
        }
        _ => Err(bad()),
    }
}

/// A list of durations: `2s,10s,30s` or a range `0s..120s/10s` (both ends included).
pub fn parse_duration_list(s: &str) -> Result<Vec<f64>, String> {
    if let Some((range, step)) = s.split_once('/') {
        let (a, b) = range.split_once("..").ok_or_else(|| {
            format!(
                "{} is not a range: write it as FROM..TO/STEP, e.g. 0s..120s/10s",
                quoted(s)
            )
        })?;
        let (a, b, step) = (
            parse_duration(a)?,
            parse_duration(b)?,
            parse_duration(step)?,
        );
        if !(a.is_finite() && b.is_finite()) || step <= 0.0 || !step.is_finite() || b < a {
            return Err(format!(
                "{} is not a range: need FROM ≤ TO and a step > 0",
                quoted(s)
            ));
        }
        // Counted in floating point first: a tiny step must not overflow the count.
        let n = ((b - a) / step + 1e-9).floor() + 1.0;
        if n > MAX_LIST_POINTS as f64 {
            return Err(format!(
                "{} has more than {MAX_LIST_POINTS} points: take a larger step or a narrower \
                 range",
                quoted(s)
            ));
        }
        let n = n as usize;
        return Ok((0..n).map(|i| a + step * i as f64).collect());
    }
    if s.split(',').nth(MAX_LIST_POINTS).is_some() {
        return Err(format!("the list has more than {MAX_LIST_POINTS} values"));
    }
    s.split(',').map(parse_duration).collect()
}

/// `--closing`: `fire-always` or `fire-if-non-empty`.
pub fn parse_closing(s: &str) -> Result<ClosingBehavior, String> {
    behavior(s)
}

/// `--on-time`: `fire-always` or `fire-if-non-empty`.
pub fn parse_on_time(s: &str) -> Result<OnTimeBehavior, String> {
    behavior(s)
}

/// One of Beam's two behaviours, spelled as on the command line.
fn behavior<B: std::str::FromStr>(s: &str) -> Result<B, String> {
    match s {
        "fire-always" | "fire-if-non-empty" => s
            .parse()
            .map_err(|_| format!("{} is not a behaviour", quoted(s))),
        _ => Err(format!(
            "{} is not a behaviour: give fire-always or fire-if-non-empty",
            quoted(s)
        )),
    }
}

/// Reads a convention's name.
pub fn parse_conventions(s: &str) -> Result<Conventions, String> {
    Conventions::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Conventions::ALL.iter().map(|c| c.name()).collect();
        format!(
            "{} is not a convention: give one of {}",
            quoted(s),
            names.join(", ")
        )
    })
}
