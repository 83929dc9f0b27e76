//! The command line's shared pieces: how a source and the engine's dials are given as flags,
//! how a built-in scenario's presets and the flags given over them combine, and the parsers
//! for durations (`10s`, `1500ms`, `2m`), watermark specs and sweep ranges.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use crate::engine::scenario::{Preset, ScenarioName};
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, EngineConfig, StreamParams, WatermarkKind, WindowFn};
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

/// `--accumulation`: what each pane carries, as the flag names the engine's [`Accumulation`]
/// modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum AccumulationArg {
    // The whole value so far.
    Accumulating,
    // Only what arrived since the previous pane.
    Discarding,
    // The whole value so far, and a retraction of the previous pane's value.
    Retracting,
}

impl From<AccumulationArg> for Accumulation {
    fn from(a: AccumulationArg) -> Self {
        match a {
            AccumulationArg::Accumulating => Accumulation::Accumulating,
            AccumulationArg::Discarding => Accumulation::Discarding,
            AccumulationArg::Retracting => Accumulation::Retracting,
        }
    }
}

/// Where events come from: the generator's dials, or a CSV file.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// Read events from a log instead of generating them: CSV (header
    /// event_time_ms,proc_time_ms,key), JSON Lines or Parquet, maybe .gz/.zst; `-` is
    /// standard input.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "events", "span", "tail", "mean_delay", "tail_max", "keys"])]
    pub input: Option<PathBuf>,
    /// How to read the log.
    #[command(flatten)]
    pub read: crate::cli::input::InputArgs,
    /// Generator seed (Python's random.Random(seed)).
    #[arg(long, default_value_t = 7, allow_negative_numbers = true)]
    pub seed: u64,
    /// Number of events to generate.
    #[arg(long, default_value_t = 20_000, allow_negative_numbers = true)]
    pub events: usize,
    /// Event-time span of the generated events (0 to 1e11s).
    #[arg(long, default_value = "600s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub span: f64,
    /// Fraction of events in the long tail of delays.
    #[arg(long, default_value_t = 0.08, allow_negative_numbers = true)]
    pub tail: f64,
    /// Mean delay of the ordinary events, exponential (above 0, at most 1e11s).
    #[arg(long, default_value = "2s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub mean_delay: f64,
    /// Largest delay of a tail event, uniform (0 to 1e11s).
    #[arg(long, default_value = "90s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub tail_max: f64,
    /// The keys, one per character.
    #[arg(long, default_value = "abcd")]
    pub keys: String,
}

impl SourceArgs {
    /// The generator's dials as given (used when no `--input` file is read).
    pub fn params(&self) -> StreamParams {
        StreamParams {
            seed: self.seed,
            events: self.events,
            span: self.span,
            tail: self.tail,
            mean_delay: self.mean_delay,
            tail_max: self.tail_max,
            keys: self.keys.clone(),
        }
    }

    /// Loads or generates the stream.
    pub fn load(&self) -> Result<crate::engine::Stream> {
        Ok(self.load_reported()?.0)
    }

    /// Loads or generates the stream, with what reading a log saw (none for a generated one).
    pub fn load_reported(
        &self,
    ) -> Result<(
        crate::engine::Stream,
        Option<crate::io::source::SourceReport>,
    )> {
        match &self.input {
            Some(path) => {
                let (stream, report) = self.read.read(path)?;
                Ok((stream, Some(report)))
            }
            None => {
                let p = self.params();
                check_keys(&p.keys)?;
                if p.events > 50_000_000 {
                    bail!("--events {} is more than 50000000", p.events);
                }
                let stream =
                    crate::engine::stream::generate(&p).context("bad generator parameters")?;
                Ok((stream, None))
            }
        }
    }
}

/// The shortest interval of a timer (the early trigger, periodic checkpoints): below it a run
/// would take steps of no length, or billions of them.
pub const MIN_INTERVAL_MS: f64 = 1.0;

/// An interval from [`MIN_INTERVAL_MS`] to [`MAX_DURATION_MS`].
pub fn check_interval(flag: &str, ms: f64) -> Result<()> {
    if !(MIN_INTERVAL_MS..=MAX_DURATION_MS).contains(&ms) {
        let shown = if ms > 0.0 && ms < 1e-3 {
            format!("{ms:e}ms")
        } else {
            crate::engine::window::fmt_ms(ms)
        };
        bail!("{flag} must be at least 1ms (and at most 1e11s), got {shown}");
    }
    Ok(())
}

/// Generated keys are printable, as keys read from a log must be.
pub fn check_keys(keys: &str) -> Result<()> {
    if let Some((i, c)) = keys.chars().enumerate().find(|(_, c)| c.is_control()) {
        bail!(
            "--keys: character {} is a control character (U+{:04X}); keys must be printable",
            i + 1,
            c as u32
        );
    }
    Ok(())
}

/// The engine's dials.
#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    /// Window size, tumbling unless --slide is given (whole milliseconds, 1ms to 1e11s), or
    /// `global`: one window per key that never closes, a running count.
    #[arg(long, default_value = "60s", value_parser = parse_window, allow_hyphen_values = true)]
    pub window: WindowArg,
    /// Slide of sliding windows (whole milliseconds, 1ms to the window size).
    #[arg(long, value_parser = parse_window_ms, allow_hyphen_values = true)]
    pub slide: Option<i64>,
    /// Session windows instead of --window/--slide: per key, events whose windows
    /// [t, t + GAP) overlap share a session, which ends GAP after its last event (whole
    /// milliseconds, 1ms to 1e11s).
    #[arg(
        long,
        value_name = "GAP",
        value_parser = parse_session_gap,
        allow_hyphen_values = true,
        conflicts_with_all = ["window", "slide"]
    )]
    pub session: Option<i64>,
    // The brackets are the help text's optional parts, not links.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// fixed:DUR | perfect | heuristic[:Q[:N]] | bounded:DUR (DUR 0 to 1e11s, Q 0 to 1, N 1 to
    /// 1000000).
    #[arg(long, default_value = "fixed:20s", value_parser = parse_watermark, allow_hyphen_values = true)]
    pub watermark: WatermarkKind,
    /// Allowed lateness past the watermark before events are dropped (0 to 1e11s; `inf` never
    /// drops).
    #[arg(long, default_value = "0s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub grace: f64,
    /// Early-trigger interval in processing time (1ms to 1e11s; off when not given).
    #[arg(long, value_parser = parse_duration, allow_hyphen_values = true)]
    pub early: Option<f64>,
    /// What each pane carries.
    #[arg(long, value_enum, default_value_t = AccumulationArg::Accumulating)]
    pub accumulation: AccumulationArg,
    /// With `--window global` only: a key's state expires TTL after its last update and a key
    /// seen again starts from zero (whole milliseconds, 1ms to 1e11s).
    #[arg(long, value_name = "DUR", value_parser = parse_ttl, allow_hyphen_values = true)]
    pub ttl: Option<i64>,
    /// The clock --ttl runs on: processing (its last event's arrival + TTL, the default) or
    /// event (expires once the watermark ≥ its latest event time + TTL).
    #[arg(long, value_enum)]
    pub ttl_time: Option<TtlTimeArg>,
}

impl EngineArgs {
    /// The engine configuration the flags give, checked: tumbling windows, sliding ones with
    /// `--slide` or sessions with `--session`; a slide or gap the window refuses or an
    /// early-trigger interval out of range is an error.
    pub fn config(&self) -> Result<EngineConfig> {
        if self.ttl_time.is_some() && self.ttl.is_none() {
            bail!("--ttl-time needs --ttl: it says which clock the TTL runs on");
        }
        let global = self.session.is_none() && self.window == WindowArg::Global;
        if self.ttl.is_some() && !global {
            bail!(
                "--ttl needs --window global: only the global window's state lives on with a TTL"
            );
        }
        let window = match (self.session, self.window, self.slide) {
            (Some(gap), _, _) => WindowFn::session(gap)?,
            (None, WindowArg::Global, Some(_)) => {
                bail!("--slide does not apply to --window global: it has one window per key")
            }
            (None, WindowArg::Global, None) => WindowFn::global(self.ttl.map(|ms| Ttl {
                ms,
                time: self.ttl_time.map_or(TtlTime::Processing, TtlTime::from),
            }))?,
            (None, WindowArg::Length(size), Some(slide)) => WindowFn::sliding(size, slide)?,
            (None, WindowArg::Length(size), None) => WindowFn::tumbling(size)?,
        };
        if let Some(e) = self.early {
            check_interval("--early", e)?;
        }
        Ok(EngineConfig {
            window,
            watermark: self.watermark,
            grace: self.grace,
            early: self.early,
            accumulation: self.accumulation.into(),
        })
    }
}

/// The flags given on the command line, by argument id (`seed`, `mean_delay`, `window`, …):
/// the ones that override a scenario's presets. Filled from clap's matches when the command
/// line is parsed ([`Given::of`]); empty, every preset stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given(BTreeSet<String>);

impl Given {
    /// The arguments `m` took from the command line (not from their defaults).
    pub fn of(m: &clap::ArgMatches) -> Given {
        Given(
            m.ids()
                .filter(|id| {
                    m.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
                })
                .map(|id| id.as_str().to_string())
                .collect(),
        )
    }

    /// Whether the argument `id` was given on the command line.
    pub fn has(&self, id: &str) -> bool {
        self.0.contains(id)
    }
}

/// The generator's flags, by argument id.
const GENERATOR_FLAGS: [&str; 7] = [
    "seed",
    "events",
    "span",
    "tail",
    "mean_delay",
    "tail_max",
    "keys",
];

/// The flags that choose the window, by argument id: any of them replaces a scenario's window.
const WINDOW_FLAGS: [&str; 5] = ["window", "slide", "session", "ttl", "ttl_time"];

/// A scenario's stream with the generator flags given over its presets, and the name it is
/// shown by (`(custom)` added when a flag changed it). A scenario with a generator of its own
/// takes `--seed` only.
pub fn scenario_stream(
    name: ScenarioName,
    source: &SourceArgs,
    given: &Given,
) -> Result<(crate::engine::Stream, String)> {
    use crate::engine::scenario::Source;
    let preset = name.preset().source;
    let chosen = match &preset {
        Source::Generator(base) => {
            let mut p = base.clone();
            if given.has("seed") {
                p.seed = source.seed;
            }
            if given.has("events") {
                p.events = source.events;
            }
            if given.has("span") {
                p.span = source.span;
            }
            if given.has("tail") {
                p.tail = source.tail;
            }
            if given.has("mean_delay") {
                p.mean_delay = source.mean_delay;
            }
            if given.has("tail_max") {
                p.tail_max = source.tail_max;
            }
            if given.has("keys") {
                p.keys = source.keys.clone();
            }
            check_keys(&p.keys)?;
            if p.events > 50_000_000 {
                bail!("--events {} is more than 50000000", p.events);
            }
            Source::Generator(p)
        }
        own => {
            if let Some(flag) = GENERATOR_FLAGS[1..].iter().find(|f| given.has(f)) {
                bail!(
                    "--scenario {} draws its own stream: --{} does not apply to it (--seed does)",
                    name.label(),
                    flag.replace('_', "-")
                );
            }
            let seed = if given.has("seed") {
                source.seed
            } else {
                own.seed()
            };
            match own {
                Source::Sessions { .. } => Source::Sessions { seed },
                _ => Source::Lesson { seed },
            }
        }
    };
    let label = if chosen == preset {
        name.label().to_string()
    } else {
        format!("{} (custom)", name.label())
    };
    let stream = chosen.stream().context("bad generator parameters")?;
    Ok((stream, label))
}

/// A scenario's engine dials with the engine flags given over them: any window flag replaces
/// its window, each other flag its dial. The flags are checked as they are without a scenario.
pub fn scenario_config(
    preset: &Preset,
    engine: &EngineArgs,
    given: &Given,
) -> Result<EngineConfig> {
    let flags = engine.config()?;
    let mut cfg = preset.config;
    if WINDOW_FLAGS.iter().any(|f| given.has(f)) {
        cfg.window = flags.window;
    }
    if given.has("watermark") {
        cfg.watermark = flags.watermark;
    }
    if given.has("grace") {
        cfg.grace = flags.grace;
    }
    if given.has("early") {
        cfg.early = flags.early;
    }
    if given.has("accumulation") {
        cfg.accumulation = flags.accumulation;
    }
    Ok(cfg)
}

/// The stream and dials a subcommand runs on: a scenario's, with the flags given over them,
/// or, without `--scenario`, the flags' own (the classroom stream and dials by default).
pub fn chosen(
    scenario: Option<ScenarioName>,
    source: &SourceArgs,
    engine: &EngineArgs,
    given: &Given,
) -> Result<(crate::engine::Stream, EngineConfig)> {
    chosen_reported(scenario, source, engine, given).map(|(s, c, _)| (s, c))
}

/// [`chosen`], with what reading a log saw (none for a generated stream).
pub fn chosen_reported(
    scenario: Option<ScenarioName>,
    source: &SourceArgs,
    engine: &EngineArgs,
    given: &Given,
) -> Result<(
    crate::engine::Stream,
    EngineConfig,
    Option<crate::io::source::SourceReport>,
)> {
    match scenario {
        None => {
            let (stream, report) = source.load_reported()?;
            Ok((stream, engine.config()?, report))
        }
        Some(name) => {
            let config = scenario_config(&name.preset(), engine, given)?;
            let (stream, _) = scenario_stream(name, source, given)?;
            Ok((stream, config, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(10_000.0));
        assert_eq!(parse_duration("1500ms"), Ok(1_500.0));
        assert_eq!(parse_duration("2m"), Ok(120_000.0));
        assert_eq!(parse_duration("1.5s"), Ok(1_500.0));
        assert_eq!(parse_duration("0"), Ok(0.0));
        assert_eq!(parse_duration("inf"), Ok(f64::INFINITY));
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("xs").is_err());
    }

    #[test]
    fn watermarks() {
        assert_eq!(parse_watermark("perfect"), Ok(WatermarkKind::Perfect));
        assert_eq!(
            parse_watermark("fixed:20s"),
            Ok(WatermarkKind::Fixed { lag: 20_000.0 })
        );
        assert_eq!(
            parse_watermark("heuristic"),
            Ok(WatermarkKind::Heuristic { q: 0.95, n: 2000 })
        );
        assert_eq!(
            parse_watermark("heuristic:0.9:500"),
            Ok(WatermarkKind::Heuristic { q: 0.9, n: 500 })
        );
        assert_eq!(
            parse_watermark("bounded:5s"),
            Ok(WatermarkKind::Bounded { bound: 5_000.0 })
        );
        assert!(parse_watermark("fixed").is_err());
        assert!(parse_watermark("heuristic:2").is_err());
        assert!(parse_watermark("magic").is_err());
        assert!(parse_watermark("heuristic:0.9:1000000").is_ok());
        assert!(parse_watermark("heuristic:0.9:1000001").is_err());
        assert!(parse_watermark("heuristic:0.9:18446744073709551615").is_err());
    }

    #[test]
    fn durations_have_a_range() {
        assert_eq!(parse_duration("1e11s"), Ok(MAX_DURATION_MS));
        assert_eq!(parse_duration("100000000000000ms"), Ok(MAX_DURATION_MS));
        for past in ["100000000000001ms", "1e16s", "1e300s", "1e999s", "infs"] {
            let err = parse_duration(past).unwrap_err();
            assert!(err.contains("out of range"), "{past}: {err}");
        }
        assert_eq!(
            parse_duration("-0s").map(f64::to_bits),
            Ok(0.0f64.to_bits())
        );
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(parse_duration_list("0s..120s/10s").unwrap().len(), 13);
        assert_eq!(
            parse_duration_list("2s,10s").unwrap(),
            vec![2_000.0, 10_000.0]
        );
        assert!(parse_duration_list("5s..1s/1s").is_err());
        assert!(parse_duration_list("0s..1s/1e-300ms").is_err());
        assert!(parse_duration_list("0s..9999ms/1ms").is_ok());
        assert!(parse_duration_list("0s..10000ms/1ms").is_err());
        assert!(parse_duration_list(&"1s,".repeat(10_001)).is_err());
    }
}

/// The UI's demo flags: `--record FILE` writes every input with its time, `--replay FILE`
/// plays a recording back, `--cast FILE` writes what the terminal showed as an asciicast.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DemoArgs {
    /// Record every key, click, resize and tick with its time, to replay the demo later.
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// Play a recording back with its timing (the keys are yours again at its end).
    #[arg(long, value_name = "FILE")]
    pub replay: Option<std::path::PathBuf>,
    /// Also write what the terminal shows as an asciicast v2 file (`asciinema play FILE`).
    #[arg(long, value_name = "FILE")]
    pub cast: Option<std::path::PathBuf>,
}

impl DemoArgs {
    /// Reads and checks the recording to replay, creates the files to write: every error
    /// (a bad or truncated recording, one made with other flags than `flags`, a path that
    /// cannot be written) before the UI opens. `flags` are the command line's flags that
    /// decide what the demo goes through ([`crate::tui::record::demo_flags`]).
    pub fn open(&self, flags: &[String]) -> anyhow::Result<crate::tui::Demo> {
        use crate::tui::record::{self, cast::Cast, Recorder};
        let same =
            |a: &Option<std::path::PathBuf>, b: &Option<std::path::PathBuf>| a.is_some() && a == b;
        if same(&self.record, &self.replay)
            || same(&self.record, &self.cast)
            || same(&self.cast, &self.replay)
        {
            anyhow::bail!("--record, --replay and --cast need three different files");
        }
        let replay = self.replay.as_deref().map(record::load).transpose()?;
        if let (Some(r), Some(path)) = (&replay, &self.replay) {
            if let Some(recorded) = r.flags.as_ref().filter(|f| f.as_slice() != flags) {
                let say = |f: &[String]| match f {
                    [] => "no flags".to_string(),
                    f => f.join(" "),
                };
                anyhow::bail!(
                    "{} was recorded with {}; replay it with the same (this run has {})",
                    crate::io::quote::quoted(&path.display().to_string()),
                    say(recorded),
                    say(flags)
                );
            }
        }
        let replay = replay.map(|r| r.entries);
        let record = self
            .record
            .as_deref()
            .map(|p| Recorder::create(p, flags))
            .transpose()?;
        let cast = match self.cast.as_deref().map(Cast::create).transpose() {
            Ok(c) => c,
            Err(e) => {
                drop(record);
                if let Some(p) = &self.record {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e);
            }
        };
        Ok(crate::tui::Demo {
            record,
            replay,
            cast,
        })
    }

    /// Removes the files [`DemoArgs::open`] created, when the UI did not open after all.
    pub fn discard(&self) {
        for p in [&self.record, &self.cast].into_iter().flatten() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// `run`'s outputs: where the panes the run emits are written, besides its answer.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Write the panes to a sink: jsonl:FILE (every pane a JSON line), jsonl:- (standard
    /// output; the answer then goes to standard error) or sqlite:FILE (tables panes and
    /// results, the view finals); repeatable.
    #[arg(long, value_name = "KIND:PATH", value_parser = crate::io::sink::parse_output)]
    pub output: Vec<crate::io::sink::OutputSpec>,
    /// Replace an --output file that exists (without it an existing file is refused).
    #[arg(long)]
    pub force: bool,
}
