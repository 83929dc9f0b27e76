//! `twoclocks frontier`: the accuracy/latency frontier, a sweep of lags × graces with each
//! point's emit delay and score, as a table, CSV or JSON.

use std::io::Write;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::json::finite;
use crate::cli::args::{chosen, parse_duration_list, EngineArgs, Given, SourceArgs};
use crate::cli::plot::{open_plot, DelayUnit, Mark, Plot, Series};
use crate::engine::advice;
use crate::engine::frontier::{FrontierPoint, Policy};
use crate::engine::scale::Scale;
use crate::engine::scenario::ScenarioName;
use crate::engine::{Clock, Stream};

/// `frontier`'s output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum TableCsvJson {
    // A table for reading, under a line that names the watermark, window and stream.
    Table,
    // One line per point under a header; times in ms.
    Csv,
    // One JSON array of points; times in ms, `null` where not finite.
    Json,
}

/// The most points a frontier sweep computes (lags × graces): its answer and the runs behind
/// it grow with the grid.
pub const MAX_FRONTIER_POINTS: usize = 100_000;

/// `frontier`'s flags: the stream, the engine's other dials, the lags and graces swept and
/// the output format.
#[derive(Debug, Args)]
pub struct FrontierArgs {
    /// A built-in stream with its window and watermark family (the sweep sets the grace; a
    /// scenario's early trigger is left out); the flags given override them (not with --input).
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// The stream the sweep runs over.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The window and the watermark family to sweep (lag-based; `--grace` and `--early` are
    /// refused: the sweep sets the grace, and early panes do not change final values).
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Lags to sweep: a list `2s,10s` or a range `0s..120s/10s` (each 0 to 1e11s).
    #[arg(long, default_value = "0s..120s/10s", allow_hyphen_values = true)]
    pub lags: String,
    /// Graces to sweep, likewise (each 0 to 1e11s, or `inf`). At most 100000 lag × grace
    /// points in all. Over a log on a wall clock, or one whose delays pass 120s, lags and
    /// graces not given are swept from 0 past 99.9% of its delays in round steps, said on
    /// standard error.
    #[arg(long, default_value = "0s..120s/10s", allow_hyphen_values = true)]
    pub graces: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableCsvJson::Table)]
    pub format: TableCsvJson,
    /// Also draw the frontier, the policies and the point advised for 99.9% accuracy into
    /// FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
    /// Replace a --plot file that exists (without it an existing file is refused); the file
    /// is replaced only when the picture is whole.
    #[arg(long)]
    pub force: bool,
    /// The flags given on the command line, which override the scenario's presets.
    #[arg(skip)]
    pub given: Given,
}

#[derive(Serialize)]
struct PointJson {
    lag_ms: f64,
    grace_ms: Option<f64>,
    emit_delay_ms: Option<f64>,
    dropped: u64,
    wrong_windows: usize,
    events_lost: i64,
    max_error: i64,
    accuracy: f64,
}

impl From<&FrontierPoint> for PointJson {
    fn from(p: &FrontierPoint) -> Self {
        PointJson {
            lag_ms: p.lag,
            grace_ms: finite(p.grace),
            emit_delay_ms: finite(p.emit_delay),
            dropped: p.dropped,
            wrong_windows: p.score.wrong_windows,
            events_lost: p.score.events_lost,
            max_error: p.score.max_error,
            accuracy: p.score.accuracy(),
        }
    }
}

/// Sweeps the lags × graces `a` gives (a lag-based watermark, no grace or early trigger of
/// its own) and writes each point.
pub fn frontier(a: &FrontierArgs, mut out: &mut dyn Write) -> Result<()> {
    if a.engine.conventions == crate::engine::Conventions::KafkaStreams {
        bail!(
            "frontier sweeps the watermark's lag, and Kafka Streams has no watermark: its one \
             dial is the grace. Compare graces with `twoclocks run --conventions kafka-streams \
             --grace G`"
        );
    }
    let (stream, mut cfg) = chosen(a.scenario, &a.source, &a.engine, &a.given)?;
    // The sweep sets the grace, and final values do not depend on early panes.
    cfg.grace = 0.0;
    cfg.early = None;
    if cfg.watermark.lag().is_none() {
        bail!(
            "--watermark {} has no lag to sweep: use fixed:DUR or bounded:DUR",
            cfg.watermark
        );
    }
    if a.engine.grace != 0.0 {
        bail!("frontier sweeps the grace itself: give the values with --graces, not --grace");
    }
    if a.engine.early.is_some() {
        bail!(
            "frontier measures final values, which an early trigger does not change: drop --early"
        );
    }
    let (lags, graces) = match swept_from_log(a, &stream) {
        Some((range, said)) => {
            eprintln!("twoclocks: {said}");
            let given = |id: &str, spec: &str| a.given.has(id).then(|| spec.to_string());
            (
                given("lags", &a.lags).unwrap_or_else(|| range.clone()),
                given("graces", &a.graces).unwrap_or(range),
            )
        }
        None => (a.lags.clone(), a.graces.clone()),
    };
    let lags = parse_duration_list(&lags).map_err(|e| anyhow::anyhow!("--lags: {e}"))?;
    let graces = parse_duration_list(&graces).map_err(|e| anyhow::anyhow!("--graces: {e}"))?;
    if lags.iter().any(|l| l.is_infinite()) {
        bail!("--lags: a lag must be finite");
    }
    let points = lags.len() * graces.len();
    if points > MAX_FRONTIER_POINTS {
        bail!(
            "--lags × --graces is {} × {} = {points} points; at most {MAX_FRONTIER_POINTS}: \
             take a larger step or a narrower range (e.g. --lags 0s..120s/1s gives 121 lags)",
            lags.len(),
            graces.len()
        );
    }
    let plot = open_plot(
        a.plot.as_deref(),
        a.force,
        a.source.input.as_deref().into_iter(),
    )?;
    let points = FrontierPoint::sweep(&stream, cfg, &lags, &graces);
    if let Some(plot) = plot {
        plot.write(&frontier_plot(&stream, cfg, &points))?;
    }
    match a.format {
        TableCsvJson::Json => {
            let j: Vec<PointJson> = points.iter().map(PointJson::from).collect();
            serde_json::to_writer(&mut out, &j)?;
            writeln!(out)?;
        }
        TableCsvJson::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record([
                "lag_ms",
                "grace_ms",
                "emit_delay_ms",
                "dropped",
                "wrong_windows",
                "events_lost",
                "max_error",
                "accuracy",
            ])?;
            for p in &points {
                w.write_record([
                    p.lag.to_string(),
                    p.grace.to_string(),
                    p.emit_delay.to_string(),
                    p.dropped.to_string(),
                    p.score.wrong_windows.to_string(),
                    p.score.events_lost.to_string(),
                    p.score.max_error.to_string(),
                    format!("{:.4}", p.score.accuracy()),
                ])?;
            }
            w.flush()?;
        }
        TableCsvJson::Table => {
            writeln!(
                out,
                "{} watermark, {} windows, {} events{}",
                cfg.watermark.family(),
                cfg.window.describe(),
                stream.len(),
                super::run::rules_named(cfg.conventions)
            )?;
            writeln!(
                out,
                "  {:>7} {:>7} {:>11} {:>8} {:>14} {:>12} {:>10} {:>9}",
                "lag",
                "grace",
                "emit delay",
                "dropped",
                "windows wrong",
                "events lost",
                "max error",
                "accuracy"
            )?;
            let clock = &stream.clock;
            for p in &points {
                writeln!(
                    out,
                    "  {:>7} {:>7} {:>11} {:>8} {:>14} {:>12} {:>10} {:>8.2}%",
                    column_duration(clock, p.lag),
                    column_duration(clock, p.grace),
                    column_duration(clock, p.emit_delay),
                    p.dropped,
                    p.score.wrong_windows,
                    p.score.events_lost,
                    p.score.max_error,
                    p.score.accuracy()
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The lags and graces swept when neither `--lags` nor `--graces` is given (each stands
/// alone when it is) and the stream is a log read on a wall clock, or a log whose delays
/// reach past the default's 120 s: 0 to its scale's reach in its steps ([`Scale`]), as a
/// range the flags take, with the line that says so. `None` where the defaults stand (the
/// built-in streams, a generated one, a log of short delays).
fn swept_from_log(a: &FrontierArgs, stream: &Stream) -> Option<(String, String)> {
    let (lags, graces) = (a.given.has("lags"), a.given.has("graces"));
    if (lags && graces) || a.source.input.is_none() || stream.is_empty() {
        return None;
    }
    let scale = Scale::of(stream);
    if !(stream.clock.is_wall() || scale.reach > advice::Request::DEFAULT_MAX_DELAY) {
        return None;
    }
    let clock = &stream.clock;
    let (swept, flags) = match (lags, graces) {
        (false, false) => ("lags and graces", "--lags and --graces change it"),
        (true, _) => ("graces", "--graces changes it"),
        (_, true) => ("lags", "--lags changes it"),
    };
    Some((
        format!(
            "0..{}/{}",
            flag_duration(scale.reach),
            flag_duration(scale.step)
        ),
        format!(
            "swept {swept} 0–{} in steps of {} (the log's 99.9th-percentile delay is {}); \
             {flags}",
            clock.duration(scale.reach),
            clock.duration(scale.step),
            clock.duration(scale.delay_reach)
        ),
    ))
}

/// What `frontier --plot` draws: the best accuracy each emit delay buys, the policies, and
/// the cheapest point reaching the advisor's default target.
fn frontier_plot(
    stream: &crate::engine::Stream,
    cfg: crate::engine::EngineConfig,
    points: &[FrontierPoint],
) -> Plot {
    let choice = advice::Choice::on_frontier(stream, cfg, points, advice::Request::DEFAULT_TARGET);
    Plot {
        title: format!(
            "accuracy against emit delay, {} windows, {} watermark",
            cfg.window.describe(),
            cfg.watermark.family()
        ),
        series: vec![Series {
            name: cfg.watermark.family().to_string(),
            points: FrontierPoint::envelope(points)
                .into_iter()
                .map(|i| (points[i].emit_delay, points[i].score.accuracy()))
                .collect(),
        }],
        policies: policy_marks(&Policy::scored(stream, cfg)),
        advised: choice.map(|c| {
            let p = &points[c.index()];
            Mark {
                name: format!(
                    "{} {}%: lag {}, grace {}",
                    match c {
                        advice::Choice::Meets(_) => "cheapest for",
                        advice::Choice::Closest(_) => "closest to",
                    },
                    advice::Request::DEFAULT_TARGET,
                    column_duration(&stream.clock, p.lag),
                    column_duration(&stream.clock, p.grace)
                ),
                x: p.emit_delay,
                y: p.score.accuracy(),
            }
        }),
        unit: DelayUnit::of(
            &stream.clock,
            points
                .iter()
                .map(|p| p.emit_delay)
                .filter(|d| d.is_finite())
                .fold(0.0, f64::max),
        ),
    }
}

/// The policies as marks on a plot.
pub fn policy_marks(policies: &[(Policy, FrontierPoint)]) -> Vec<Mark> {
    policies
        .iter()
        .map(|(p, pt)| Mark {
            name: p.name.to_string(),
            x: pt.emit_delay,
            y: pt.score.accuracy(),
        })
        .collect()
}

/// A duration in a table column on a stream's clock: on a relative clock always in seconds,
/// so a column reads in one unit ([`column_secs`]); on a wall clock in the largest sensible
/// units (`2h 15m`, `45m`, `0`).
pub(super) fn column_duration(clock: &Clock, ms: f64) -> String {
    if !clock.is_wall() {
        column_secs(ms)
    } else if ms == 0.0 {
        "0".to_string()
    } else {
        clock.duration(ms)
    }
}

/// A duration as a flag takes it, in the largest unit that writes it whole (`6h`, `90m`,
/// `45s`, `1500ms`).
pub(super) fn flag_duration(ms: f64) -> String {
    const HOUR: f64 = 3_600_000.0;
    if ms != 0.0 && ms % HOUR == 0.0 {
        format!("{}h", ms / HOUR)
    } else {
        crate::engine::duration::Duration::short(ms)
    }
}

/// A duration in a table column: always in seconds, so a column reads in one unit.
pub(super) fn column_secs(ms: f64) -> String {
    if ms.is_infinite() {
        "∞".to_string()
    } else if ms % 1000.0 == 0.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{:.3}s", ms / 1000.0)
    }
}
