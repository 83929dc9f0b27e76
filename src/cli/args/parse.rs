//! The command line's value parsers and their checks: durations (`10s`, `1500ms`, `2m`) and
//! their range, window and session lengths, the TTL and its time, watermark specs, conventions,
//! accumulation modes and the sweep's duration lists. Each spec's grammar is the engine's
//! (`FromStr`); what is here is how a flag takes it and the checks that are the flag's own.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;

use crate::engine::duration::{self, Duration};
use crate::engine::trigger::{ClosingBehavior, OnTimeBehavior};
use crate::engine::window::TtlTime;
use crate::engine::{Accumulation, Conventions, WatermarkKind, WindowFn};
use crate::io::quote::quoted;

/// The largest duration any flag takes, ms: 10^14 ms, written `1e11s` (about 3 170 years),
/// the engine's [`duration::Duration::MAX_MS`].
pub const MAX_DURATION_MS: f64 = duration::Duration::MAX_MS;

/// How the duration range reads in messages and help.
pub const DURATION_RANGE: &str = duration::Duration::RANGE;

/// The most values a list or range of durations may hold.
pub const MAX_LIST_POINTS: usize = 10_000;

/// The longest history a heuristic watermark may keep.
pub const MAX_HEURISTIC_N: usize = WatermarkKind::MAX_N;

/// Parses a duration into milliseconds as the engine's [`Duration`] reads it: `250ms`, `10s`,
/// `1.5s`, `2m`, `1h`, `0`; `inf` or `∞` for "never" (a grace that never drops). A finite
/// duration is at most [`MAX_DURATION_MS`].
pub fn parse_duration(s: &str) -> Result<f64, String> {
    s.parse::<Duration>().map(Duration::ms)
}

/// A window size or slide: a duration of at least 1 ms, in whole milliseconds, as the
/// engine's window specs read a length ([`WindowFn::parse_length`]).
pub fn parse_window_ms(s: &str) -> Result<i64, String> {
    WindowFn::parse_length(s)
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

/// `perfect`, `fixed:DUR`, `heuristic[:Q[:N]]` or `bounded:DUR`, as the engine's
/// [`WatermarkKind`] reads it.
pub fn parse_watermark(s: &str) -> Result<WatermarkKind, String> {
    s.parse()
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

/// Reads a convention's name, as the engine's [`Conventions`] reads it.
pub fn parse_conventions(s: &str) -> Result<Conventions, String> {
    s.parse()
}

/// `--accumulation`: one of the engine's [`Accumulation`] modes by its name, read by the
/// engine; clap lists the names in `--help` and in its error.
pub fn parse_accumulation() -> Named<Accumulation> {
    Named::new(Accumulation::ALL.map(|a| a.name()))
}

/// A flag that takes one of a spec's names, read by the spec's `FromStr`: clap checks the
/// name first, so `--help` and a wrong value's error list the names as for any choice.
#[derive(Clone)]
pub struct Named<T> {
    names: PossibleValuesParser,
    read: std::marker::PhantomData<fn() -> T>,
}

impl<T> Named<T> {
    fn new(names: impl IntoIterator<Item = &'static str>) -> Named<T> {
        Named {
            names: PossibleValuesParser::new(names),
            read: std::marker::PhantomData,
        }
    }
}

impl<T> TypedValueParser for Named<T>
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let name = self.names.parse_ref(cmd, arg, value)?;
        name.parse::<T>()
            .map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, e).with_cmd(cmd))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        self.names.possible_values()
    }
}
