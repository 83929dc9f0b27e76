//! `twoclocks export`: a policy (the engine's dials) written as another engine's code or
//! configuration: Flink DataStream, Flink SQL, Beam Java, Beam Python or Kafka Streams. Each
//! target's file writes its text; where that engine's rules differ from twoclocks' (window
//! boundaries, when a window fires or drops an event, a processing-time lag, a quantile watermark,
//! the early timer's re-arm rule, sessions, a state TTL), a comment next to the line says how. Pure
//! text: no I/O here.

mod beam;
mod beam_python;
mod flink;
mod flink_sql;
mod kafka_streams;

use clap::ValueEnum;

use crate::engine::duration::Duration;
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, EngineConfig, WatermarkKind, WindowFn};

/// The engines a policy can be exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum Target {
    // Apache Flink's DataStream API, in Java.
    Flink,
    // Apache Flink SQL: a CREATE TABLE with its watermark, a windowed query, table options.
    FlinkSql,
    // Apache Beam's Java SDK, reading Kafka through KafkaIO.
    Beam,
    // Kafka Streams' DSL, in Java.
    KafkaStreams,
    // Apache Beam's Python SDK: WindowInto with its trigger, lateness and accumulation.
    BeamPython,
}

impl Target {
    /// The name `--to` takes: clap's, derived from the variant.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }

    /// Whether the export can read a file (`--source file`) as well as Kafka.
    pub fn reads_a_file(self) -> bool {
        match self {
            Target::Flink | Target::FlinkSql | Target::BeamPython => true,
            Target::Beam | Target::KafkaStreams => false,
        }
    }
}

/// `--source`: where the exported job reads its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
#[allow(missing_docs)]
pub enum SourceKind {
    // A Kafka topic of JSON records (the default).
    #[default]
    Kafka,
    // The --input log, a CSV file: a backfill from files (flink, flink-sql, beam-python).
    File,
}

/// What the stream says about its delays, for the watermarks a live engine cannot copy as
/// they are: `perfect` (the largest delay) and `heuristic` (a quantile of the delays).
#[derive(Debug, Clone, PartialEq)]
pub struct Delays {
    /// The stream they were measured on, as the export names it.
    pub stream: String,
    /// The largest delay (processing time − event time), ms.
    pub max: f64,
    /// The heuristic's quantile of all the stream's delays, ms (the heuristic itself takes it
    /// over the last N delays at each arrival).
    pub quantile: f64,
}

/// Where the exported job reads its events from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Source {
    /// A Kafka topic `events` of JSON records with `key` and `event_time_ms` (the default).
    #[default]
    Kafka,
    /// The log itself, a CSV file (a backfill from files): its path as given and the columns
    /// of its header, in order, with the ones holding the event time (ms since the epoch) and
    /// the key.
    File(CsvLog),
}

/// A CSV log as a file source reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvLog {
    /// The path, as given on the command line.
    pub path: String,
    /// The header's column names, in order.
    pub columns: Vec<String>,
    /// The column of event times, ms since the epoch.
    pub event_time: String,
    /// The column of keys.
    pub key: String,
}

/// A policy to export: the engine's dials, the pipeline's idle timeout, and the stream's
/// delays where the watermark needs them.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The engine's dials.
    pub config: EngineConfig,
    /// `--idle-timeout`: a partition silent this long is left out of the watermark, ms.
    pub idle_timeout: Option<f64>,
    /// The delays measured on the stream (for `perfect` and `heuristic`).
    pub delays: Option<Delays>,
    /// Where the job reads its events.
    pub source: Source,
}

/// The policy written for `target`: code or configuration, with its differences from
/// twoclocks' rules in comments.
pub fn render(target: Target, policy: &Policy) -> String {
    let mut out = Code::default();
    match target {
        Target::Flink => flink::write(&mut out, policy),
        Target::FlinkSql => flink_sql::write(&mut out, policy),
        Target::Beam => beam::write(&mut out, policy),
        Target::KafkaStreams => kafka_streams::write(&mut out, policy),
        Target::BeamPython => beam_python::write(&mut out, policy),
    }
    out.text
}

/// The dials in one line, as `run` names them.
pub fn summary(policy: &Policy) -> String {
    let c = &policy.config;
    let window = match c.window {
        WindowFn::Global {
            ttl: Some(Ttl { ms, time }),
        } => format!(
            "global window, {} {}-time TTL",
            Duration::short(ms as f64),
            ttl_clock(time)
        ),
        WindowFn::Global { ttl: None } => "global window".to_string(),
        w @ (WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } | WindowFn::Session { .. }) => {
            format!("{} windows", w.describe())
        }
    };
    let idle = policy.idle_timeout.map_or(String::new(), |t| {
        format!(", idle timeout {}", Duration::short(t))
    });
    format!(
        "{window}, watermark {}, grace {}, early {}, {}{idle}",
        c.watermark,
        Duration::short(c.grace),
        c.early.map_or("off".to_string(), Duration::short),
        accumulation_name(c.accumulation)
    )
}

fn ttl_clock(t: TtlTime) -> &'static str {
    match t {
        TtlTime::Processing => "processing",
        TtlTime::Event => "event",
    }
}

fn accumulation_name(a: Accumulation) -> &'static str {
    match a {
        Accumulation::Accumulating => "accumulating",
        Accumulation::Discarding => "discarding",
        Accumulation::Retracting => "retracting",
    }
}

/// Text being written, line by line, with comments wrapped at [`WIDTH`].
#[derive(Debug, Default)]
struct Code {
    text: String,
}

/// The widest a comment line is wrapped to.
const WIDTH: usize = 100;

impl Code {
    /// One line of code, as it is.
    fn line(&mut self, s: impl AsRef<str>) {
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }

    /// A blank line.
    fn blank(&mut self) {
        self.text.push('\n');
    }

    /// A comment in `marker` style (`//`, `--`), indented by `indent`, wrapped.
    fn comment(&mut self, indent: &str, marker: &str, text: &str) {
        let lead = format!("{indent}{marker} ");
        let mut line = lead.clone();
        for word in text.split_whitespace() {
            if line.len() > lead.len() && line.chars().count() + 1 + word.chars().count() > WIDTH {
                self.line(line.trim_end());
                line = lead.clone();
            }
            if line.len() > lead.len() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if line.len() > lead.len() {
            self.line(line.trim_end());
        }
    }

    /// A comment saying where the target's rule differs from twoclocks'.
    fn differs(&mut self, indent: &str, marker: &str, text: &str) {
        self.comment(indent, marker, &format!("{DIFFERS} {text}"));
    }
}

/// What the comment beside a window with an offset says: where its windows start, and that
/// the offset is fixed, in twoclocks as in the target.
fn offset_note(offset: i64) -> String {
    format!(
        "The windows start {} past the epoch's grid (UTC's hours and midnights), as twoclocks' \
         do: a window of hours or days falls on the hours and midnights of the log's zone, at \
         its distance from UTC when the log begins. The offset is fixed: across a change to or \
         from daylight-saving time the windows keep it, here and in twoclocks.",
        crate::engine::duration::Duration::human(offset as f64)
    )
}

/// How every comment on a difference from twoclocks' rules begins.
pub const DIFFERS: &str = "Differs from twoclocks:";

/// Whole milliseconds, rounded to the nearest (twoclocks' windows, gaps and TTLs are whole
/// already; a lag, grace or early interval may have a fraction).
fn whole(ms: f64) -> i64 {
    ms.round() as i64
}

/// One hour, ms: durations of whole hours are written in hours.
const HOUR: i64 = 3_600_000;

/// A `java.time.Duration` expression.
fn java_duration(ms: f64) -> String {
    let n = whole(ms);
    if n == 0 {
        "Duration.ZERO".to_string()
    } else if n % HOUR == 0 {
        format!("Duration.ofHours({})", n / HOUR)
    } else if n % 60_000 == 0 {
        format!("Duration.ofMinutes({})", n / 60_000)
    } else if n % 1000 == 0 {
        format!("Duration.ofSeconds({})", n / 1000)
    } else {
        format!("Duration.ofMillis({n})")
    }
}

/// An `org.joda.time.Duration` expression (Beam's).
fn joda_duration(ms: f64) -> String {
    let n = whole(ms);
    if n == 0 {
        "Duration.ZERO".to_string()
    } else if n % HOUR == 0 {
        format!("Duration.standardHours({})", n / HOUR)
    } else if n % 60_000 == 0 {
        format!("Duration.standardMinutes({})", n / 60_000)
    } else if n % 1000 == 0 {
        format!("Duration.standardSeconds({})", n / 1000)
    } else {
        format!("Duration.millis({n})")
    }
}

/// A SQL interval literal: `INTERVAL '1' MINUTE`, `INTERVAL '20' SECOND`,
/// `INTERVAL '0.25' SECOND`.
fn sql_interval(ms: f64) -> String {
    let n = whole(ms);
    if n != 0 && n % HOUR == 0 {
        format!("INTERVAL '{}' HOUR", n / HOUR)
    } else if n != 0 && n % 60_000 == 0 {
        format!("INTERVAL '{}' MINUTE", n / 60_000)
    } else if n % 1000 == 0 {
        format!("INTERVAL '{}' SECOND", n / 1000)
    } else {
        format!("INTERVAL '{}.{:03}' SECOND", n / 1000, n % 1000)
    }
}

/// A duration as Flink's configuration takes it: `1 min`, `10 s`, `250 ms`.
fn config_duration(ms: f64) -> String {
    let n = whole(ms);
    if n != 0 && n % 60_000 == 0 {
        format!("{} min", n / 60_000)
    } else if n % 1000 == 0 {
        format!("{} s", n / 1000)
    } else {
        format!("{n} ms")
    }
}

/// Whether a duration is not whole milliseconds (the export rounds it).
fn fractional(ms: f64) -> bool {
    ms.is_finite() && ms.fract() != 0.0
}

/// The comment for a duration the export rounded, if it was.
fn rounding_note(code: &mut Code, indent: &str, marker: &str, flag: &str, ms: f64) {
    if fractional(ms) {
        code.differs(
            indent,
            marker,
            &format!(
                "{flag} {} is not whole milliseconds; this engine counts whole ones, so it is \
                 rounded to {} ms.",
                Duration::short(ms),
                whole(ms)
            ),
        );
    }
}

/// How the exports write a watermark: what the target engines run in its place. Each kind is
/// one shape ([`shape`]) and the targets write shapes, so a kind is placed here once; a kind
/// of a new shape fails to compile in each target, where its code must be written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// The highest event time seen − `bound` ms (`bounded`): each engine has it.
    EventTimeBound {
        /// The bound, ms.
        bound: f64,
    },
    /// Processing time − `lag` ms as the policy sets it (`fixed`).
    ProcessingLag {
        /// The lag, ms.
        lag: f64,
    },
    /// Processing time − the stream's largest delay, known in advance (`perfect`): a live
    /// engine cannot know it, so the export writes a processing-time lag of the largest delay
    /// measured on the stream ([`Delays`]).
    LargestDelay,
    /// Processing time − the `q` quantile of the last `n` delays (`heuristic`): no engine has
    /// it; Flink and Beam Java run it as code of their own, the others a processing-time lag
    /// of the quantile measured on the stream ([`Delays`]).
    Quantile {
        /// The quantile, 0 to 1.
        q: f64,
        /// How many recent delays it is taken over.
        n: usize,
    },
}

/// The shape the exports write `kind` as.
pub fn shape(kind: WatermarkKind) -> Shape {
    match kind {
        WatermarkKind::Perfect => Shape::LargestDelay,
        WatermarkKind::Fixed { lag } => Shape::ProcessingLag { lag },
        WatermarkKind::Heuristic { q, n } => Shape::Quantile { q, n },
        WatermarkKind::Bounded { bound } => Shape::EventTimeBound { bound },
    }
}

impl Shape {
    /// Whether the export stands in for it with a value measured on the stream ([`Delays`]).
    pub fn is_measured(self) -> bool {
        match self {
            Shape::LargestDelay | Shape::Quantile { .. } => true,
            Shape::EventTimeBound { .. } | Shape::ProcessingLag { .. } => false,
        }
    }

    /// The quantile of the stream's delays that stands in for it: 1 (the largest delay) but
    /// for a quantile.
    pub fn measured_quantile(self) -> f64 {
        match self {
            Shape::Quantile { q, .. } => q,
            Shape::LargestDelay | Shape::EventTimeBound { .. } | Shape::ProcessingLag { .. } => 1.0,
        }
    }
}

/// The lag a watermark that a live engine can run stands in for: the kind's own lag, the
/// stream's largest delay for `perfect`, the quantile of its delays for `heuristic`.
fn nearest_lag(policy: &Policy) -> f64 {
    match shape(policy.config.watermark) {
        Shape::ProcessingLag { lag } => lag,
        Shape::EventTimeBound { bound } => bound,
        Shape::LargestDelay => policy.delays.as_ref().map_or(0.0, |d| d.max),
        Shape::Quantile { .. } => policy.delays.as_ref().map_or(0.0, |d| d.quantile),
    }
}

/// What `perfect` and `heuristic` are in twoclocks, and the measured value standing in for
/// them, as one sentence.
fn measured_note(policy: &Policy) -> Option<String> {
    let d = policy.delays.as_ref()?;
    match shape(policy.config.watermark) {
        Shape::LargestDelay => Some(format!(
            "twoclocks' perfect watermark is processing time − the stream's largest delay, known \
             in advance ({} on {}); a live engine cannot know it, so this is a fixed lag of that \
             value.",
            Duration::short(d.max),
            d.stream
        )),
        Shape::Quantile { q, n } => Some(format!(
            "twoclocks' heuristic watermark is processing time − the {q} quantile of the last {n} \
             delays, taken at every arrival; none of Flink, Beam or Kafka Streams has it. Over \
             the whole of {} that quantile is {}.",
            d.stream,
            Duration::short(d.quantile)
        )),
        Shape::ProcessingLag { .. } | Shape::EventTimeBound { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(java_duration(60_000.0), "Duration.ofMinutes(1)");
        assert_eq!(java_duration(20_000.0), "Duration.ofSeconds(20)");
        assert_eq!(java_duration(1_500.0), "Duration.ofMillis(1500)");
        assert_eq!(java_duration(0.0), "Duration.ZERO");
        assert_eq!(joda_duration(90_000.0), "Duration.standardSeconds(90)");
        assert_eq!(sql_interval(250.0), "INTERVAL '0.250' SECOND");
        assert_eq!(sql_interval(0.0), "INTERVAL '0' SECOND");
        assert_eq!(sql_interval(120_000.0), "INTERVAL '2' MINUTE");
        assert_eq!(config_duration(1_500.0), "1500 ms");
    }

    #[test]
    fn comments_wrap() {
        let mut c = Code::default();
        c.comment("    ", "//", &"word ".repeat(60));
        assert!(c.text.lines().all(|l| l.chars().count() <= WIDTH));
        assert!(c.text.lines().all(|l| l.starts_with("    // ")));
    }
}
