//! `twoclocks advise`: for each watermark kind, the Pareto-optimal settings (emit delay against
//! events lost and windows wrong) and the cheapest setting that meets an accuracy target, with
//! the state it costs; as a table or JSON, and as a plot. From a stream, or, for a log too
//! large to read here, from its slack statistics: `--sql` prints the query that computes them
//! where the log lives, `--stats` advises from its result.

use std::io::Write;

use anyhow::{bail, Result};
use clap::Args;
use serde::Serialize;

use super::frontier::{column_duration, column_secs, flag_duration, policy_marks};
use super::json::finite;
use super::run::TableOrJson;
use super::stats_query::{Dialect, QuerySpec};
use crate::cli::args::{chosen, parse_duration, EngineArgs, Given, SourceArgs};
use crate::cli::plot::{open_plot, DelayUnit, Mark, Plot, Series};
use crate::engine::advice::{
    self, Advice, Candidate, Choice, Family, FamilyAdvice, Reach, Request,
};
use crate::engine::duration::Duration;
use crate::engine::frontier::Replay;
use crate::engine::scale::Scale;
use crate::engine::scenario::ScenarioName;
use crate::engine::{Clock, EngineConfig, FrontierPoint, Policy, Stream, WatermarkKind, WindowFn};
use crate::io::spool::{Events, Spool};
use std::sync::Mutex;

/// `advise`'s flags: the stream, the window, the target, the largest emit delay, the kinds.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// A built-in stream with its window (its watermark and grace are swept, not taken); the
    /// flags given override them (not with --input).
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// The stream advised on.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The window (`--watermark` only as `heuristic:Q:N`, for its history length N; `--grace`
    /// and `--early` are refused: the advisor sweeps the watermarks and graces).
    #[command(flatten)]
    pub engine: EngineArgs,
    /// The accuracy to reach: the percentage of the true total the final values count, `99.9%`
    /// or `99.9` (above 0, at most 100).
    #[arg(long, value_name = "PCT", default_value = "99.9%", value_parser = parse_target)]
    pub target_accuracy: f64,
    /// The largest emit delay considered (lag + grace; for the heuristic, its mean lag +
    /// grace): lags and graces are swept from 0 to it in 24 steps. Over a log on a wall clock,
    /// or one whose delays pass 120s, 24 steps of a round duration that reach past 99.9% of
    /// its delays, said on standard error.
    #[arg(long, value_name = "DUR", default_value = "120s", value_parser = parse_max_delay)]
    pub max_delay: f64,
    /// The watermark kinds advised on, a list of fixed, heuristic, bounded.
    #[arg(long, value_name = "KINDS", default_value = "fixed,heuristic,bounded", value_parser = parse_kinds)]
    pub watermarks: FamilyList,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableOrJson::Table)]
    pub format: TableOrJson,
    /// Also draw the frontiers, the policies and the advised point into FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
    /// Replace a --plot file that exists (without it an existing file is refused); the file
    /// is replaced only when the picture is whole.
    #[arg(long)]
    pub force: bool,
    /// Print the query that computes the log's slack statistics in this SQL engine, from a
    /// table or view named `events` with the columns the column flags name (fixed and bounded
    /// watermarks, tumbling or sliding windows), instead of advising.
    #[arg(long, value_enum, value_name = "ENGINE", group = "log", conflicts_with_all = [
        "scenario", "stats", "plot", "format", "target_accuracy", "input_format", "arrival",
        "on_bad_row", "seed", "events", "span", "tail", "mean_delay", "tail_max", "keys",
    ])]
    pub sql: Option<Dialect>,
    /// Advise from slack statistics, the result of the --sql query saved as CSV or Parquet
    /// (one file, or a directory of part files), instead of from a stream (give the --window
    /// the query was printed for).
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "scenario", "input", "event_time_col", "proc_time_col", "key_col", "time_format",
        "seed", "events", "span", "tail", "mean_delay", "tail_max", "keys",
    ])]
    pub stats: Option<std::path::PathBuf>,
    /// The flags given on the command line, which override the scenario's presets.
    #[arg(skip)]
    pub given: Given,
}

/// The watermark kinds asked for, in the order given, each once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyList(pub Vec<Family>);

fn parse_kinds(s: &str) -> Result<FamilyList, String> {
    let mut kinds = Vec::new();
    for part in s.split(',').map(str::trim) {
        let kind: Family = part.parse()?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(FamilyList(kinds))
}

fn parse_target(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v: f64 = t
        .strip_suffix('%')
        .unwrap_or(t)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "{} is not a percentage: give e.g. 99.9% or 99.9",
                crate::io::quote::quoted(s)
            )
        })?;
    if !(v > 0.0 && v <= 100.0) {
        return Err(format!(
            "{} is not a target accuracy: give a percentage above 0 and at most 100",
            crate::io::quote::quoted(s)
        ));
    }
    Ok(v)
}

fn parse_max_delay(s: &str) -> Result<f64, String> {
    let v = parse_duration(s)?;
    if !(v > 0.0 && v <= 1e14) {
        return Err(format!(
            "{} is not a largest emit delay: give a duration above 0 and at most 1e11s",
            crate::io::quote::quoted(s)
        ));
    }
    Ok(v)
}

#[derive(Serialize)]
struct AdviceJson {
    /// The stream's events (`None` from statistics, which count placements only).
    events: Option<usize>,
    /// (event, window) placements: the true total accuracy is measured against.
    placements: u64,
    window: String,
    target_accuracy: f64,
    max_delay_ms: f64,
    /// Whose rules, when they are not Beam Java's (absent under the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    conventions: Option<&'static str>,
    settings: Vec<SettingJson>,
    kinds: Vec<FamilyJson>,
    advised: Option<SettingJson>,
}

#[derive(Serialize)]
struct FamilyJson {
    watermark: &'static str,
    settings_swept: usize,
    meets_target: bool,
    advised: Option<SettingJson>,
}

#[derive(Serialize)]
struct SettingJson {
    watermark: &'static str,
    quantile: Option<f64>,
    lag_ms: f64,
    grace_ms: Option<f64>,
    emit_delay_ms: Option<f64>,
    events_lost: i64,
    wrong_windows: usize,
    accuracy: f64,
    peak_open_cells: Option<usize>,
    state_bytes: Option<usize>,
    pareto: bool,
    advised: bool,
}

fn quantile(c: &Candidate) -> Option<f64> {
    c.watermark.quantile().map(|(q, _)| q)
}

/// Runs the advisor over the stream `a` gives and writes its answer (and the plot).
pub fn advise(a: &AdviseArgs, mut out: &mut dyn Write) -> Result<()> {
    if a.engine.grace != 0.0 {
        bail!("advise sweeps the grace itself: drop --grace");
    }
    if a.engine.early.is_some() {
        bail!("advise measures final values, which an early trigger does not change: drop --early");
    }
    let conventions = a.engine.conventions;
    if conventions.uses_stream_time() {
        bail!(
            "advise sweeps a watermark's lag, and Kafka Streams has no watermark: its one dial \
             is the grace. Compare graces with `twoclocks run --conventions kafka-streams \
             --grace G`"
        );
    }
    if a.stats.is_some() && conventions != crate::engine::Conventions::Beam {
        bail!(
            "--stats: slack statistics count drops by Beam Java's rule; advise under \
             --conventions {conventions} reads the log itself (--input)"
        );
    }
    let heuristic_n = if a.given.has("watermark") {
        match a.engine.watermark.quantile() {
            Some((_, n)) => n,
            None => bail!(
                "advise sweeps the watermarks itself: choose the kinds with --watermarks \
                 (--watermark heuristic:Q:N only sets the heuristic's history length N)"
            ),
        }
    } else {
        WatermarkKind::DEFAULT_N
    };
    if let Some(dialect) = a.sql {
        return print_query(a, dialect, out);
    }
    let plot = open_plot(
        a.plot.as_deref(),
        a.force,
        a.source
            .input
            .as_deref()
            .into_iter()
            .chain(a.stats.as_deref()),
    )?;
    let (advice, basis, window, policies) = match &a.stats {
        Some(path) => {
            let window = a.engine.config()?.window;
            if !matches!(window, WindowFn::Tumbling { .. } | WindowFn::Sliding { .. }) {
                bail!(
                    "slack statistics serve tumbling and sliding windows; {} windows merge or \
                     never end, and need the log itself: give --input",
                    window.describe()
                );
            }
            let (stats, report) = crate::io::stats::read_stats(path, window)?;
            if report.rows_left_out > 0 {
                eprintln!(
                    "twoclocks: {}: the query left out {} rows of the log (a NULL time or key, an \
                     empty key, or a time not finite or beyond 2^53 ms), as --input \
                     --on-bad-row skip would",
                    path.display(),
                    report.rows_left_out
                );
            }
            let max_delay = stats.step * Request::GRID_STEPS as f64;
            if a.given.has("max_delay") && a.max_delay != max_delay {
                bail!(
                    "{}: the statistics were computed for --max-delay {} (steps of {}): give \
                     that, or print the query again with --max-delay {}",
                    path.display(),
                    column_secs(max_delay),
                    column_secs(stats.step),
                    column_secs(a.max_delay)
                );
            }
            let kinds = statistics_kinds(a)?;
            for kind in &kinds {
                // `statistics_kinds` has refused the kinds the statistics do not keep.
                let Some(clocked) = kind.clocked() else {
                    continue;
                };
                if stats.cells(clocked).is_none() {
                    bail!(
                        "{}: the statistics hold no rows for the {} watermark: give \
                         --watermarks with the kinds they hold, or the query's whole result",
                        path.display(),
                        kind.name()
                    );
                }
            }
            let req = Request {
                target: a.target_accuracy,
                max_delay,
                kinds,
                heuristic_n,
            };
            let advice = Advice::from_stats(&stats, &req);
            let placements = placements(&advice);
            let basis = Basis {
                events: None,
                placements,
                source: format!(
                    "{} placements in slack statistics ({})",
                    placements,
                    path.display()
                ),
                clock: Clock::Relative,
                stream: None,
            };
            // The policies' lags are not on the statistics' grid: they are not drawn.
            (advice, basis, window, Vec::new())
        }
        None => {
            let (log, cfg) = load(a, plot.is_some())?;
            let (stream, clock): (&dyn Replay, &Clock) = match &log {
                Log::Held(stream) => (stream as &dyn Replay, &stream.clock),
                Log::Spooled(spool) => (spool, spool.spool.clock()),
            };
            let max_delay = match swept_from_log(a, stream, clock) {
                Some((max_delay, said)) => {
                    eprintln!("twoclocks: {said}");
                    max_delay
                }
                None => a.max_delay,
            };
            let req = Request {
                target: a.target_accuracy,
                max_delay,
                kinds: a.watermarks.0.clone(),
                heuristic_n,
            };
            let advice = advice::advise(stream, cfg, &req);
            let policies = match (&log, &plot) {
                (Log::Held(stream), Some(_)) => Policy::scored(stream, cfg),
                _ => Vec::new(),
            };
            let placements = placements(&advice);
            let notes = (a.format == TableOrJson::Table).then(|| StreamNotes {
                early: stream.arriving_early(),
                events: stream.len(),
                reach: reach_unless_met(&advice, stream, cfg),
                whose: if a.source.input.is_some() {
                    "log"
                } else {
                    "stream"
                },
            });
            if let Log::Spooled(spool) = &log {
                spool.check()?;
            }
            let basis = Basis {
                events: Some(stream.len()),
                placements,
                source: format!("{} events", stream.len()),
                clock: clock.clone(),
                stream: notes,
            };
            (advice, basis, cfg.window, policies)
        }
    };
    let req = &advice.request;
    if let Some(plot) = plot {
        plot.write(&advice_plot(
            &advice,
            &policies,
            &window.describe(),
            &basis.clock,
        ))?;
    }
    match a.format {
        TableOrJson::Json => {
            let j = AdviceJson {
                events: basis.events,
                placements: basis.placements,
                window: window.describe(),
                target_accuracy: req.target,
                max_delay_ms: req.max_delay,
                conventions: (conventions != crate::engine::Conventions::Beam)
                    .then(|| conventions.name()),
                settings: advice
                    .kinds
                    .iter()
                    .flat_map(|k| rows(k).into_iter().map(move |i| setting_json(k, i)))
                    .collect(),
                kinds: advice
                    .kinds
                    .iter()
                    .map(|k| FamilyJson {
                        watermark: k.kind.name(),
                        settings_swept: k.candidates.len(),
                        meets_target: matches!(k.choice, Some(Choice::Meets(_))),
                        advised: k.choice.map(|c| setting_json(k, c.index())),
                    })
                    .collect(),
                advised: advice
                    .best()
                    .and_then(|(k, _)| k.choice.map(|c| setting_json(k, c.index()))),
            };
            serde_json::to_writer(&mut out, &j).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
        TableOrJson::Table => {
            let rules = super::run::rules_named(conventions);
            table(&advice, &basis, &window.describe(), &rules, out)?;
            if let Some((_, c)) = advice.best() {
                writeln!(
                    out,
                    "to write it for your engine: twoclocks export --to flink|flink-sql|beam|kafka-streams {}",
                    export_flags(&window, c)
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The `export` flags of a setting advised on `window`: the window, the watermark, the grace.
fn export_flags(window: &WindowFn, c: &Candidate) -> String {
    let window = match *window {
        WindowFn::Sliding { size, slide, .. } => {
            format!(
                "--window {} --slide {}",
                Duration::short(size as f64),
                Duration::short(slide as f64)
            )
        }
        WindowFn::Tumbling { size, .. } => format!("--window {}", Duration::short(size as f64)),
        WindowFn::Session { gap } => format!("--session {}", Duration::short(gap as f64)),
        WindowFn::Global { ttl: None } => "--window global".to_string(),
        WindowFn::Global { ttl: Some(t) } => format!(
            "--window global --ttl {} --ttl-time {}",
            Duration::short(t.ms as f64),
            match t.time {
                crate::engine::window::TtlTime::Event => "event",
                crate::engine::window::TtlTime::Processing => "processing",
            }
        ),
    };
    let dials = format!(
        "--watermark {} --grace {}",
        c.watermark,
        Duration::short(c.point.grace)
    );
    if window.is_empty() {
        dials
    } else {
        format!("{window} {dials}")
    }
}

/// What the advice was computed over, as the output names it.
struct Basis {
    /// The stream's events (`None` from statistics).
    events: Option<usize>,
    /// (event, window) placements.
    placements: u64,
    /// In words, for the table's first line.
    source: String,
    /// The clock the stream's times are read on (relative for statistics).
    clock: Clock,
    /// What the table adds of the stream itself: its early arrivals and the sweep that would
    /// reach the target where this one does not (`None` from statistics).
    stream: Option<StreamNotes>,
}

/// What the table says of the stream advised on, beyond the sweep.
struct StreamNotes {
    /// Events whose processing time is before their event time.
    early: usize,
    /// Events in all.
    events: usize,
    /// Where a wider sweep reaches the target, when the advice does not meet it.
    reach: Option<Reach>,
    /// `log` for an input, `stream` for a generated one: whose largest delay a search that
    /// finds none names.
    whose: &'static str,
}

/// The (event, window) placements the advice scored against (0 when nothing was swept).
fn placements(advice: &Advice) -> u64 {
    advice
        .kinds
        .iter()
        .flat_map(|k| k.candidates.first())
        .map(|c| c.point.score.truth_total)
        .next()
        .unwrap_or(0)
}

/// The watermark kinds slack statistics can advise on: those asked for, which must not
/// include the heuristic (its watermark follows every arrival's delay); by default both.
fn statistics_kinds(a: &AdviseArgs) -> Result<Vec<Family>> {
    if !a.given.has("watermarks") {
        return Ok(vec![Family::Fixed, Family::Bounded]);
    }
    if a.watermarks.0.contains(&Family::Heuristic) {
        bail!(
            "slack statistics serve the fixed and bounded watermarks: the heuristic's follows \
             every arrival's delay, which they do not keep; give --watermarks fixed,bounded, or \
             advise from the log with --input"
        );
    }
    Ok(a.watermarks.0.clone())
}

/// `advise --sql`: prints the query for the window and column flags given.
fn print_query(a: &AdviseArgs, dialect: Dialect, out: &mut dyn Write) -> Result<()> {
    statistics_kinds(a)?;
    let step = a.max_delay / Request::GRID_STEPS as f64;
    if step.fract() != 0.0 {
        bail!(
            "--max-delay {} is not {} whole-millisecond steps: slack statistics are binned by \
             the grid's step; give e.g. 120s, 60s or 24s",
            column_secs(a.max_delay),
            Request::GRID_STEPS
        );
    }
    let read = &a.source.read;
    let Some(time_format) = read.time_format else {
        bail!(
            "advise --sql needs --time-format: ms, s, us or ns for a column of numbers, rfc3339 \
             for a timestamp or text column (the query cannot tell them apart, and some \
             engines cast a timestamp to a number of seconds without a word)"
        );
    };
    let spec = QuerySpec {
        dialect,
        window: a.engine.config()?.window,
        event_time_col: read.event_time_col.clone(),
        proc_time_col: read.proc_time_col.clone(),
        key_col: read.key_col.clone(),
        time_format: Some(time_format),
        step: step as i64,
    };
    out.write_all(spec.text()?.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The rows printed for a kind: its Pareto set, and the advised setting if it is not in it
/// (a tie broken by state can pick a setting another equals on the rest).
fn rows(k: &FamilyAdvice) -> Vec<usize> {
    let mut rows = k.pareto.clone();
    if let Some(c) = k.choice {
        if !rows.contains(&c.index()) {
            rows.push(c.index());
        }
    }
    rows
}

/// The table's rows for a kind: settings with the same emit delay, events lost and windows
/// wrong printed once (the advised one if it is among them, else the first), with how many
/// more there are.
fn grouped(k: &FamilyAdvice) -> Vec<(usize, usize)> {
    let same = |a: &Candidate, b: &Candidate| {
        a.point.emit_delay == b.point.emit_delay
            && a.point.score.events_lost == b.point.score.events_lost
            && a.point.score.wrong_windows == b.point.score.wrong_windows
    };
    let advised = k.choice.map(Choice::index);
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for i in rows(k) {
        let c = &k.candidates[i];
        match groups.iter_mut().find(|(r, _)| same(&k.candidates[*r], c)) {
            Some(g) => {
                g.1 += 1;
                if advised == Some(i) {
                    g.0 = i;
                }
            }
            None => groups.push((i, 0)),
        }
    }
    groups
}

fn setting_json(k: &FamilyAdvice, i: usize) -> SettingJson {
    let c = &k.candidates[i];
    let advised = k.choice.map(Choice::index) == Some(i);
    let state = k.state.filter(|_| advised);
    SettingJson {
        watermark: k.kind.name(),
        quantile: quantile(c),
        lag_ms: c.point.lag,
        grace_ms: finite(c.point.grace),
        emit_delay_ms: finite(c.point.emit_delay),
        events_lost: c.point.score.events_lost,
        wrong_windows: c.point.score.wrong_windows,
        accuracy: c.point.score.accuracy(),
        peak_open_cells: state.map(|s| s.peak_open_cells),
        state_bytes: state.map(|s| s.peak_state_bytes),
        pareto: k.pareto.contains(&i),
        advised,
    }
}

/// The setting in words: `lag 10s`, `bound 10s` or `q 0.95`, with the grace, its durations
/// on the stream's clock.
fn setting_words(k: Family, c: &Candidate, clock: &Clock) -> String {
    let dial = match k {
        Family::Fixed => format!("lag {}", column_duration(clock, c.point.lag)),
        Family::Bounded => format!("bound {}", column_duration(clock, c.point.lag)),
        Family::Heuristic => format!("q {}", quantile(c).unwrap_or(f64::NAN)),
    };
    format!("{dial}, grace {}", column_duration(clock, c.point.grace))
}

/// The largest emit delay swept when `--max-delay` is not given and the stream is a log read
/// on a wall clock, or a log whose delays reach past the default's 120 s: [`GRID_STEPS`]
/// steps of its scale's step ([`Scale::of`]), which reach past 99.9% of its delays; with the
/// line that says so. `None` where the default stands (the built-in streams, a generated
/// one, a log of short delays).
///
/// [`GRID_STEPS`]: Request::GRID_STEPS
fn swept_from_log(a: &AdviseArgs, stream: &dyn Replay, clock: &Clock) -> Option<(f64, String)> {
    if a.given.has("max_delay") || a.source.input.is_none() || stream.is_empty() {
        return None;
    }
    let scale = Scale::of(stream);
    if !(clock.is_wall() || scale.reach > Request::DEFAULT_MAX_DELAY) {
        return None;
    }
    let max_delay = scale.step * Request::GRID_STEPS as f64;
    Some((
        max_delay,
        format!(
            "swept lags and graces 0–{} in steps of {} (the log's 99.9th-percentile delay is \
             {}); --max-delay changes it",
            clock.duration(max_delay),
            clock.duration(scale.step),
            clock.duration(scale.delay_reach)
        ),
    ))
}

/// The log advised on: in memory, or held in a temporary file and read back for each pass
/// (a log in processing-time order, when the sweeps and runs need no more than passes over
/// it: windows that do not merge, without a TTL, under Beam Java's rules, and no plot).
enum Log {
    Held(Stream),
    Spooled(SpooledLog),
}

/// Reads the stream and the window: a log in processing-time order that the advice can take
/// in passes is left on disk ([`Log`]); anything else is in memory, as `chosen` reads it.
fn load(a: &AdviseArgs, plot: bool) -> Result<(Log, EngineConfig)> {
    if let (None, Some(path), false) = (a.scenario, &a.source.input, plot) {
        // A bad dial is reported after the log has been read, as for every other advice.
        if let Ok(cfg) = a
            .engine
            .config()
            .and_then(|c| crate::cli::args::under_kafka_streams(c, &a.given))
        {
            if !cfg.window.is_merging()
                && cfg.window.ttl().is_none()
                && cfg.conventions == crate::engine::Conventions::Beam
            {
                let (events, _) = a.source.read.read_events(path, true, None)?;
                return Ok(match events {
                    Events::Memory(stream) => {
                        let first = crate::cli::args::first_event_time(&stream);
                        let cfg = a.engine.in_zone(cfg, &stream.clock, first);
                        (Log::Held(stream), cfg)
                    }
                    Events::Spooled(spool) => {
                        let first = spool.event_times().map(|(first, _)| first);
                        let cfg = a.engine.in_zone(cfg, spool.clock(), first);
                        (
                            Log::Spooled(SpooledLog {
                                spool,
                                failed: Mutex::new(None),
                            }),
                            cfg,
                        )
                    }
                });
            }
        }
    }
    let (stream, cfg) = chosen(a.scenario, &a.source, &a.engine, &a.given)?;
    Ok((Log::Held(stream), cfg))
}

/// A log held on disk, read back a part at a time for each pass; the first error reading it
/// back is kept, and said once the advice is done ([`SpooledLog::check`]).
struct SpooledLog {
    spool: Spool,
    failed: Mutex<Option<anyhow::Error>>,
}

/// Events read back at once in a pass.
const PART: usize = 1 << 15;

impl SpooledLog {
    /// The error reading the log back, if there was one: the advice is then incomplete.
    fn check(&self) -> Result<()> {
        match self.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Replay for SpooledLog {
    fn len(&self) -> usize {
        usize::try_from(self.spool.len()).unwrap_or(usize::MAX)
    }

    fn max_delay(&self) -> f64 {
        self.spool.max_delay()
    }

    fn replay(&self, each: &mut dyn FnMut(&[crate::engine::Event]) -> bool) {
        let mut part = Vec::with_capacity(PART);
        let mut at = 0u64;
        while at < self.spool.len() {
            if let Err(e) = self.spool.read_at(at, PART, &mut part) {
                self.failed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
                return;
            }
            if part.is_empty() || !each(&part) {
                return;
            }
            at += part.len() as u64;
        }
    }
}

/// Where a wider sweep reaches the target, when no kind's advised setting meets it.
fn reach_unless_met(advice: &Advice, stream: &dyn Replay, cfg: EngineConfig) -> Option<Reach> {
    let met = advice
        .best()
        .is_some_and(|(k, _)| matches!(k.choice, Some(Choice::Meets(_))));
    (!met).then(|| Reach::needed(stream, cfg, &advice.request))
}

fn table(
    advice: &Advice,
    basis: &Basis,
    window: &str,
    rules: &str,
    out: &mut dyn Write,
) -> Result<()> {
    let req = &advice.request;
    let clock = &basis.clock;
    let duration = |ms: f64| column_duration(clock, ms);
    writeln!(
        out,
        "advice for {window} windows over {}: target {}% accuracy, emit delay at most {}{rules}",
        basis.source,
        req.target,
        duration(req.max_delay)
    )?;
    writeln!(
        out,
        "(+N alike: N more settings with the same emit delay and score; --format json lists each)"
    )?;
    for k in &advice.kinds {
        writeln!(out)?;
        writeln!(
            out,
            "{} watermark: {} Pareto-optimal settings of {} swept{}",
            k.kind.name(),
            k.pareto.len(),
            k.candidates.len(),
            if k.kind == Family::Heuristic {
                " (lag: its mean distance behind processing time)"
            } else {
                ""
            }
        )?;
        if k.kind == Family::Heuristic
            && grouped(k)
                .iter()
                .any(|&(i, _)| k.candidates[i].point.lag < 0.0)
        {
            writeln!(
                out,
                "  (a negative lag: where most recent events arrive before their event time, the \
                 delays' quantile is negative\n   and the watermark, processing time minus it, runs \
                 ahead of processing time by that much;\n   it closes a window before processing \
                 time reaches the window's end)"
            )?;
        }
        // A wall clock's durations are wider than seconds: its setting column is too.
        let words = if clock.is_wall() { 30 } else { 24 };
        writeln!(
            out,
            "  {:<words$} {:>9} {:>11} {:>12} {:>14} {:>9}",
            "setting", "lag", "emit delay", "events lost", "windows wrong", "accuracy"
        )?;
        for (i, alike) in grouped(k) {
            let c = &k.candidates[i];
            let mut note = String::new();
            if k.choice.map(Choice::index) == Some(i) {
                note.push_str(" ◀ advised");
            }
            if alike > 0 {
                note.push_str(&format!(" (+{alike} alike)"));
            }
            writeln!(
                out,
                "  {:<words$} {:>9} {:>11} {:>12} {:>14} {:>8.3}%{note}",
                setting_words(k.kind, c, clock),
                duration(c.point.lag),
                duration(c.point.emit_delay),
                c.point.score.events_lost,
                c.point.score.wrong_windows,
                c.point.score.accuracy()
            )?;
        }
        match (k.choice, k.advised(), k.state) {
            (Some(choice), Some(c), Some(s)) => {
                let verdict = match choice {
                    Choice::Meets(_) => "advised".to_string(),
                    Choice::Closest(_) => {
                        format!("no setting reaches {}%; the most accurate", req.target)
                    }
                };
                writeln!(
                    out,
                    "  {verdict}: {}: emit delay {}, {:.3}% accuracy, state at most {} cells ({})",
                    setting_words(k.kind, c, clock),
                    duration(c.point.emit_delay),
                    c.point.score.accuracy(),
                    s.peak_open_cells,
                    crate::engine::frontier::slack::StateCost::bytes(s.peak_state_bytes)
                )?;
            }
            _ => writeln!(
                out,
                "  no setting has an emit delay within {}",
                duration(req.max_delay)
            )?,
        }
    }
    if let Some((k, c)) = advice.best() {
        writeln!(out)?;
        writeln!(
            out,
            "{}: {} watermark, {}",
            if matches!(k.choice, Some(Choice::Meets(_))) {
                "advised"
            } else {
                "closest"
            },
            k.kind.name(),
            setting_words(k.kind, c, clock)
        )?;
    }
    if let Some(notes) = &basis.stream {
        stream_notes(advice, notes, clock, out)?;
    }
    Ok(())
}

/// The table's last lines on the stream itself: the `--max-delay` that would reach a target
/// the advice does not, and the events that arrive before their event time.
fn stream_notes(
    advice: &Advice,
    notes: &StreamNotes,
    clock: &Clock,
    out: &mut dyn Write,
) -> Result<()> {
    let req = &advice.request;
    match notes.reach {
        Some(Reach::At {
            max_delay,
            kind,
            candidate,
        }) => writeln!(
            out,
            "no setting within an emit delay of {} reaches {}%; --max-delay {} would: {} \
             watermark, {}, emit delay {} ({:.3}%)",
            clock.duration(req.max_delay),
            req.target,
            flag_duration(max_delay),
            kind.name(),
            setting_words(kind, &candidate, clock),
            column_duration(clock, candidate.point.emit_delay),
            candidate.point.score.accuracy()
        )?,
        Some(Reach::Beyond { largest_delay }) => writeln!(
            out,
            "no --max-delay up to the {}'s largest delay, {}, reaches {}%",
            notes.whose,
            clock.duration(largest_delay),
            req.target
        )?,
        None => {}
    }
    if notes.early > 0 {
        writeln!(
            out,
            "{} of {} events ({:.1}%) arrive before their event time (processing time earlier \
             than event time:\nearly, or a clock behind the source's). None of them is late to \
             a watermark that trails processing time;\na watermark ahead of processing time (a \
             negative lag) closes windows that such events still arrive for",
            notes.early,
            notes.events,
            100.0 * notes.early as f64 / notes.events.max(1) as f64
        )?;
    }
    Ok(())
}

/// What `advise --plot` draws: each kind's best accuracy per emit delay, the policies, and
/// the setting advised over all kinds.
pub fn advice_plot(
    advice: &Advice,
    policies: &[(Policy, FrontierPoint)],
    window: &str,
    clock: &Clock,
) -> Plot {
    let series = advice
        .kinds
        .iter()
        .map(|k| {
            let points: Vec<FrontierPoint> = k.candidates.iter().map(|c| c.point).collect();
            Series {
                name: k.kind.name().to_string(),
                points: FrontierPoint::envelope(&points)
                    .into_iter()
                    .map(|i| (points[i].emit_delay, points[i].score.accuracy()))
                    .collect(),
            }
        })
        .collect();
    Plot {
        title: format!(
            "accuracy against emit delay, {window} windows (target {}%)",
            advice.request.target
        ),
        series,
        policies: policy_marks(policies),
        advised: advice.best().map(|(k, c)| Mark {
            name: format!(
                "advised: {} {}",
                k.kind.name(),
                setting_words(k.kind, c, clock)
            ),
            x: c.point.emit_delay,
            y: c.point.score.accuracy(),
        }),
        unit: DelayUnit::of(clock, advice.request.max_delay),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_read_with_or_without_a_percent_sign() {
        assert_eq!(parse_target("99.9%"), Ok(99.9));
        assert_eq!(parse_target("99.9"), Ok(99.9));
        assert!(parse_target("0").is_err());
        assert!(parse_target("101%").is_err());
        assert!(parse_target("nan").is_err());
        assert!(parse_target("x").is_err());
    }

    /// A log on a wall clock: 2013-01-01 05:00 UTC on, an event a minute; three of every five
    /// leave ten minutes early, the others up to three hours late.
    fn departures(clock: Clock) -> Stream {
        use crate::engine::Event;
        let start = 1_357_016_400_000.0;
        let events = (0..300)
            .map(|i| {
                let event_time = start + f64::from(i) * 60_000.0;
                let delay = if i % 5 < 3 {
                    -600_000.0
                } else {
                    f64::from(i % 37) * 300_000.0
                };
                Event {
                    event_time,
                    proc_time: event_time + delay,
                    key: (i % 3) as u32,
                }
            })
            .collect();
        Stream {
            clock,
            ..Stream::from_unordered(events, vec!["EWR".into(), "JFK".into(), "LGA".into()])
        }
    }

    fn table_of(stream: &Stream, max_delay: f64, target: f64) -> String {
        let cfg = EngineConfig {
            window: WindowFn::Tumbling {
                size: 3_600_000,
                offset: 0,
            },
            ..EngineConfig::fixed(0.0, 0.0)
        };
        let req = Request {
            target,
            max_delay,
            kinds: Family::ALL.to_vec(),
            heuristic_n: WatermarkKind::DEFAULT_N,
        };
        let advice = advice::advise(stream, cfg, &req);
        let basis = Basis {
            events: Some(stream.len()),
            placements: placements(&advice),
            source: format!("{} events", stream.len()),
            clock: stream.clock.clone(),
            stream: Some(StreamNotes {
                early: stream.arriving_early(),
                events: stream.len(),
                reach: reach_unless_met(&advice, stream, cfg),
                whose: "log",
            }),
        };
        let mut out = Vec::new();
        table(&advice, &basis, "60m tumbling", "", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_wall_clock_log_reads_in_hours_and_minutes() {
        let text = table_of(&departures(Clock::wall_utc()), 6.0 * 3_600_000.0, 99.0);
        assert!(
            text.starts_with(
                "advice for 60m tumbling windows over 300 events: target 99% accuracy, emit \
                 delay at most 6h\n"
            ),
            "{text}"
        );
        // Durations in the largest sensible units, zero as 0, in a setting column wide
        // enough for them.
        assert!(text.contains("  lag 0, grace 15m "), "{text}");
        assert!(text.contains("  bound 0, grace 2h 15m "), "{text}");
        assert!(!text.contains("900s"), "{text}");
        // Three in five leave early: the heuristic's median delay is negative, and says so.
        assert!(
            text.contains("(a negative lag: where most recent events arrive before"),
            "{text}"
        );
        assert!(
            text.contains("180 of 300 events (60.0%) arrive before their event time"),
            "{text}"
        );
        // The same log on a relative clock reads in seconds.
        let text = table_of(&departures(Clock::Relative), 6.0 * 3_600_000.0, 99.0);
        assert!(text.contains("emit delay at most 21600s"), "{text}");
        assert!(text.contains("  lag 0s, grace 900s "), "{text}");
    }

    #[test]
    fn a_target_out_of_reach_names_the_max_delay_in_the_logs_units() {
        let text = table_of(&departures(Clock::wall_utc()), 3_600_000.0, 100.0);
        let line = text
            .lines()
            .find(|l| l.starts_with("no setting within an emit delay of 60m reaches 100%"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.contains("; --max-delay 2h would: heuristic watermark, q 0.999, grace 0, "),
            "{line}"
        );
    }

    #[test]
    fn kinds_are_read_in_order_once() {
        assert_eq!(
            parse_kinds("bounded,fixed,bounded"),
            Ok(FamilyList(vec![Family::Bounded, Family::Fixed]))
        );
        assert!(parse_kinds("perfect").is_err());
    }
}
