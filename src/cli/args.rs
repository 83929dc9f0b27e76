//! The command line's shared pieces: how a source and the engine's dials are given as flags,
//! how a built-in scenario's presets and the flags given over them combine, and the parsers
//! for durations (`10s`, `1500ms`, `2m`), watermark specs and sweep ranges.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::engine::scenario::{Preset, ScenarioName};
use crate::engine::trigger::{ClosingBehavior, EmptyPanes, OnTimeBehavior};
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::Conventions;
use crate::engine::{
    Accumulation, EngineConfig, StreamParams, WatermarkFamily, WatermarkKind, WindowFn,
};

mod parse;
pub use parse::*;

/// The watermark a run has when neither a flag nor a scenario gives one.
const DEFAULT_WATERMARK: &str = "fixed:20s";

/// The `--watermark` help: each kind's spelling, from the engine's list of kinds, the default's
/// kind first (`fixed:DUR | perfect | heuristic[:Q[:N]] | bounded:DUR`), then the ranges of
/// their parameters. A kind added to the engine is in the help with nothing written here.
fn watermark_help() -> String {
    let default = DEFAULT_WATERMARK
        .parse::<WatermarkKind>()
        .map(|kind| WatermarkFamily::of(&kind))
        .ok();
    let first = default.into_iter();
    let rest = WatermarkFamily::ALL
        .into_iter()
        .filter(|f| Some(*f) != default);
    let spellings: Vec<&str> = first.chain(rest).map(WatermarkFamily::spelling).collect();
    format!(
        "{} (DUR 0 to 1e11s, Q 0 to 1, N 1 to {})",
        spellings.join(" | "),
        WatermarkKind::MAX_N
    )
}

/// Where events come from: the generator's dials, or a CSV file.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// Read events from a log instead of generating them: CSV (header
    /// event_time_ms,proc_time_ms,key), JSON Lines or Parquet, maybe .gz/.zst; `-` is
    /// standard input.
    #[arg(long, value_name = "FILE", group = "log", conflicts_with_all = ["seed", "events", "span", "tail", "mean_delay", "tail_max", "keys"])]
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
                    crate::engine::Stream::generate(&p).context("bad generator parameters")?;
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
            crate::engine::duration::Duration::short(ms)
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
    /// Tumbling or sliding windows start this far past the epoch's grid, as Flink's and Beam's
    /// window offset (whole milliseconds, may be negative, taken modulo the slide). Without it,
    /// windows of hours or days on a log read in a time zone other than UTC start on the zone's
    /// hours and midnights.
    #[arg(long, value_name = "DUR", value_parser = parse_window_offset, allow_hyphen_values = true)]
    pub window_offset: Option<i64>,
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
    /// The watermark kind and its parameters: every kind's spelling is in the help, written
    /// from the engine's list of kinds (`watermark_help`).
    #[arg(
        long,
        default_value = DEFAULT_WATERMARK,
        value_parser = parse_watermark,
        allow_hyphen_values = true,
        help = watermark_help()
    )]
    pub watermark: WatermarkKind,
    /// Allowed lateness past the watermark before events are dropped (0 to 1e11s; `inf` never
    /// drops).
    #[arg(long, default_value = "0s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub grace: f64,
    /// Early-trigger interval in processing time (1ms to 1e11s; off when not given).
    #[arg(long, value_parser = parse_duration, allow_hyphen_values = true)]
    pub early: Option<f64>,
    /// What each pane carries.
    #[arg(long, default_value_t = Accumulation::Accumulating, value_parser = parse_accumulation())]
    pub accumulation: Accumulation,
    /// Whose rules decide fates, firings and merges: beam (Beam Java's, the default),
    /// beam-python, flink or kafka-streams (stream time in place of a watermark, one result
    /// per window as it closes; see docs/scripts.md).
    #[arg(long, default_value = "beam", value_parser = parse_conventions)]
    pub conventions: Conventions,
    /// Beam Java's ClosingBehavior, under --conventions beam: fire-always emits a window's
    /// last pane as it is collected at its end + grace even with nothing new (empty, LATE,
    /// last); fire-if-non-empty (Beam's default) only with something new.
    #[arg(long, value_name = "BEHAVIOR", value_parser = parse_closing)]
    pub closing: Option<ClosingBehavior>,
    /// Beam Java's OnTimeBehavior, under --conventions beam: fire-if-non-empty holds back an
    /// ON_TIME pane with nothing new since the last pane; fire-always (Beam's default) emits it.
    #[arg(long, value_name = "BEHAVIOR", value_parser = parse_on_time)]
    pub on_time: Option<OnTimeBehavior>,
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
        let window = self.offset_given(window)?;
        if let Some(e) = self.early {
            check_interval("--early", e)?;
        }
        Ok(EngineConfig {
            window,
            watermark: self.watermark,
            grace: self.grace,
            early: self.early,
            accumulation: self.accumulation,
            conventions: self.conventions,
            empty_panes: self.empty_panes()?,
        })
    }

    /// `--closing` and `--on-time` over Beam's defaults: Beam Java's switches, refused under
    /// any other engine's rules, which have none.
    fn empty_panes(&self) -> Result<EmptyPanes> {
        let given = [
            (
                "--closing",
                "ClosingBehavior",
                self.closing.map(|c| c.name()),
            ),
            (
                "--on-time",
                "OnTimeBehavior",
                self.on_time.map(|o| o.name()),
            ),
        ];
        if self.conventions != Conventions::Beam {
            if let Some((flag, beam, Some(value))) = given.iter().find(|g| g.2.is_some()) {
                bail!(
                    "{flag} {value} is Beam Java's {beam}, followed under --conventions beam only: \
                     {} ({}) has no such switch. Drop {flag}, or run under --conventions beam",
                    self.conventions,
                    self.conventions.engine()
                );
            }
        }
        Ok(EmptyPanes {
            closing: self.closing.unwrap_or_default(),
            on_time: self.on_time.unwrap_or_default(),
        })
    }
}

impl EngineArgs {
    /// `window` moved by `--window-offset`, if given: an error for windows on no grid.
    fn offset_given(&self, window: WindowFn) -> Result<WindowFn> {
        match self.window_offset {
            None => Ok(window),
            Some(offset) => window.with_offset(offset).map_err(|_| {
                anyhow::anyhow!(
                    "--window-offset moves tumbling and sliding windows; {} windows lie on no grid \
                     to move",
                    window.describe()
                )
            }),
        }
    }

    /// The dials with their windows as they fall in the zone of the stream read: unless
    /// `--window-offset` is given, windows of hours or days on a wall clock in a zone other
    /// than UTC start on the zone's hours and midnights, offset by its distance from UTC at
    /// the stream's earliest event time ([`WindowFn::aligned_to`]); on a relative clock or in
    /// UTC they stay as they are. What every command and the UI run on a stream.
    pub fn in_zone(
        &self,
        mut cfg: EngineConfig,
        clock: &crate::engine::clock::Clock,
        first_event_ms: Option<f64>,
    ) -> EngineConfig {
        if self.window_offset.is_none() && clock.is_wall() {
            cfg.window = cfg
                .window
                .aligned_to(clock, first_event_ms.unwrap_or(f64::NAN));
        }
        cfg
    }
}

/// The earliest event time of `stream`, if it has events: the instant whose distance from
/// UTC places windows on a zone's hours and days.
pub fn first_event_time(stream: &crate::engine::Stream) -> Option<f64> {
    stream
        .events
        .iter()
        .map(|e| e.event_time)
        .min_by(f64::total_cmp)
}

/// The dials under Kafka Streams' rules, checked: it has no watermark (stream time takes its
/// place, so `--watermark` given is an error and a preset's is replaced), no early trigger
/// and no global window that closes. Under other rules the dials as they are.
pub fn under_kafka_streams(mut cfg: EngineConfig, given: &Given) -> Result<EngineConfig> {
    if cfg.conventions != Conventions::KafkaStreams {
        return Ok(cfg);
    }
    if given.has("watermark") {
        bail!(
            "--conventions kafka-streams has no watermark: time is stream time, the largest event \
             time seen. Drop --watermark, and give what its lag allowed as grace (bounded:5s with \
             grace 2s is grace 7s)"
        );
    }
    if given.has("early") {
        bail!(
            "--conventions kafka-streams has no early trigger: a window emits once, when it closes \
             (emitStrategy onWindowClose). Drop --early"
        );
    }
    if cfg.window.is_global() {
        bail!(
            "--conventions kafka-streams needs windows that close: a global aggregation never \
             emits a final result. Give --window, --slide or --session"
        );
    }
    cfg.watermark = WatermarkKind::Bounded { bound: 0.0 };
    cfg.early = None;
    Ok(cfg)
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

/// The parser of `--scenario`: one of the built-in scenarios' names, each listed in `--help`
/// with its description.
pub fn scenario_parser() -> impl clap::builder::TypedValueParser<Value = ScenarioName> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        ScenarioName::ALL.map(|n| PossibleValue::new(n.label()).help(n.description())),
    )
    .map(|label| ScenarioName::from_label(&label).unwrap_or_default())
}

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
    } else if given.has("window_offset") {
        cfg.window = engine.offset_given(cfg.window)?;
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
    if given.has("conventions") {
        cfg.conventions = flags.conventions;
    }
    if given.has("closing") {
        cfg.empty_panes.closing = flags.empty_panes.closing;
    }
    if given.has("on_time") {
        cfg.empty_panes.on_time = flags.empty_panes.on_time;
    }
    if !cfg.empty_panes.is_default() && cfg.conventions != Conventions::Beam {
        bail!(
            "--closing and --on-time are Beam Java's switches, followed under --conventions beam \
             only: this scenario runs under {} ({})",
            cfg.conventions,
            cfg.conventions.engine()
        );
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
            let config = under_kafka_streams(engine.config()?, given)?;
            let config = engine.in_zone(config, &stream.clock, first_event_time(&stream));
            Ok((stream, config, report))
        }
        Some(name) => {
            let config =
                under_kafka_streams(scenario_config(&name.preset(), engine, given)?, given)?;
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
    /// Replace a --record or --cast file that exists (without it an existing file is
    /// refused); the file is replaced only when the UI ends.
    #[arg(long)]
    pub force: bool,
}

impl DemoArgs {
    /// Reads and checks the recording to replay, takes the files to write: every error
    /// (a bad or truncated recording, one made with other flags than `flags`, a path that
    /// cannot be written, an existing file without `--force`, one of `inputs`) before the
    /// UI opens. `flags` are the command line's flags that
    /// decide what the demo goes through ([`crate::tui::record::demo_flags`]).
    pub fn open(
        &self,
        flags: &[String],
        inputs: &[&std::path::Path],
    ) -> anyhow::Result<crate::tui::Demo> {
        use crate::io::staged::{Accepts, StagedFile};
        use crate::tui::record::{self, cast::Cast, Recorder};
        let same =
            |a: &Option<std::path::PathBuf>, b: &Option<std::path::PathBuf>| a.is_some() && a == b;
        if same(&self.record, &self.replay) || same(&self.cast, &self.replay) {
            anyhow::bail!("--record, --replay and --cast need three different files");
        }
        // The recording replayed is an input of the outputs (any spelling or link of it is
        // refused below); --record and --cast at one file, however spelled, are refused by
        // the staging door, which names both.
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
        // The files are taken (checked, their unfinished copies locked) before the UI opens
        // and put in place when it ends; an existing file is never touched before then, nor
        // at all if the UI does not open.
        let mut protect: Vec<&std::path::Path> = inputs.to_vec();
        protect.extend(self.replay.as_deref());
        let take = |p: &std::path::Path, flag: &str| {
            StagedFile::create(p, self.force, Accepts::Streams, &protect, flag)
        };
        let record = match self.record.as_deref() {
            Some(p) => Some(Recorder::create(p, take(p, "--record")?, flags)?),
            None => None,
        };
        let cast = match self.cast.as_deref() {
            Some(p) => Some(Cast::create(take(p, "--cast")?)?),
            None => None,
        };
        Ok(crate::tui::Demo {
            record,
            replay,
            replay_file: self.replay.clone(),
            cast,
        })
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
