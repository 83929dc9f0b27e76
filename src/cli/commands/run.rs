//! `twoclocks run`: one configuration of the engine over a stream (final values, panes,
//! drops), or of the parallel pipeline when a pipeline flag is given, as a table or JSON; with
//! `--output`, the panes are also written to JSON Lines or SQLite sinks as the run goes.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::answer::RunAnswer;
use super::json::{bound, finite, JsonArray, SpooledArray};
use super::outputs::{pane_row, pane_row_named, settings, SinkDriver};
use super::pipeline::{
    pipeline_json, run_pipeline, write_pipeline_table, PipelineArgs, PipelineJson,
};
use crate::cli::args::{chosen_reported, EngineArgs, Given, OutputArgs, SourceArgs};
use crate::cli::input::RunProgress;
use crate::engine::clock::Fit;
use crate::engine::duration::Duration;
use crate::engine::pipeline::SinkWrite;
use crate::engine::scenario::ScenarioName;
use crate::engine::trigger::{ClosingBehavior, EmptyPanes, OnTimeBehavior, Timing};
use crate::engine::window::{WindowFn, WindowId};
use crate::engine::Conventions;
use crate::engine::Oracle;
use crate::engine::{
    CellId, Clock, Dropped, EngineConfig, Event, Output, Processor, Score, Stream,
};
use crate::engine::{StateBound, StateCosts};
use crate::io::sink::{reserve_outputs, PaneRow, RunMeta};
use crate::io::source::SourceReport;
use crate::io::spool::{Events, FollowedBatches, Follower, Spool, Unheld};

/// `run`'s output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum TableOrJson {
    // A table for reading.
    Table,
    // One JSON object; times in ms, `null` where not finite.
    Json,
}

/// `run`'s flags: the stream, the engine's dials, the output format and the pipeline's dials.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A built-in stream with its dials; the flags given override its presets (not with
    /// --input).
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// The stream to run.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The engine's dials: window, watermark, grace, early trigger, accumulation.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableOrJson::Table)]
    pub format: TableOrJson,
    /// The parallel pipeline's dials: any of them runs the job instead of the single processor.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// A trigger of Beam's algebra instead of the built-in one, e.g.
    /// 'AfterWatermark(early=AfterCount(100), late=AfterCount(1))' (docs/scripts.md); runs in
    /// whole milliseconds, not with --early, the pipeline's flags or --output.
    #[arg(long, value_name = "EXPR", value_parser = parse_trigger)]
    pub trigger: Option<crate::engine::trigger::Trigger>,
    /// A pane's output time, with --trigger: end-of-window (the default), earliest or latest.
    #[arg(long, value_name = "WHEN", value_parser = parse_combiner, requires = "trigger")]
    pub timestamp_combiner: Option<crate::engine::trigger::TimestampCombiner>,
    /// Where the panes are written besides the answer: JSON Lines, SQLite.
    #[command(flatten)]
    pub output: OutputArgs,
    /// The flags given on the command line, which override the scenario's presets.
    #[arg(skip)]
    pub given: Given,
}

/// A window's number is `null` for sessions, which are known by their span alone.
#[derive(Serialize)]
struct WindowJson {
    window: Option<i64>,
    start_ms: Option<f64>,
    end_ms: Option<f64>,
    key: String,
    value: u64,
    truth: u64,
}

#[derive(Serialize)]
struct DroppedJson {
    offset: usize,
    event_time_ms: f64,
    proc_time_ms: f64,
    key: String,
    window: Option<i64>,
    window_start_ms: Option<f64>,
    window_end_ms: Option<f64>,
    grace_ms: Option<f64>,
    watermark_ms: f64,
}

#[derive(Serialize)]
struct RunJson {
    events: u64,
    on_time: u64,
    dropped: u64,
    late: u64,
    wrong_windows: usize,
    events_lost: i64,
    max_error: i64,
    accuracy: f64,
    /// Keys whose state expired under `--ttl`, each a reset to zero.
    ttl_expired: u64,
    /// The most state entries (open cells) held at once.
    state_entries_max: u64,
    /// Bad rows of the input skipped under `--on-bad-row skip`.
    skipped_rows: u64,
    /// Rows of the input whose processing time is before their event time (kept).
    clock_skew_rows: u64,
    config: ConfigJson,
    windows: Vec<WindowJson>,
    panes: JsonArray<PaneRow>,
    dropped_events: JsonArray<DroppedJson>,
    #[serde(flatten)]
    pipeline: Option<PipelineJson>,
}

#[derive(Serialize)]
struct ConfigJson {
    window: String,
    watermark: String,
    grace: String,
    early: Option<String>,
    accumulation: &'static str,
    /// Whose rules, when not Beam Java's (absent under the default, whose output is as it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    conventions: Option<&'static str>,
    /// `--closing`, when not Beam's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    closing: Option<&'static str>,
    /// `--on-time`, when not Beam's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    on_time: Option<&'static str>,
}

/// `, under Flink's rules` after a run's dials when they are not Beam Java's; nothing under
/// the default, whose output is as it was.
/// The watermark as a header names it: its spec, or `stream time` under Kafka Streams'
/// rules, which have none.
pub fn watermark_named(cfg: &EngineConfig) -> String {
    if cfg.conventions.uses_stream_time() {
        "stream time".to_string()
    } else {
        cfg.watermark.to_string()
    }
}

/// `, closing fire-always` and `, on time fire-if-non-empty` after a run's dials, for each of
/// Beam Java's two switches not at Beam's default; nothing under the defaults.
pub fn behaviors_named(e: EmptyPanes) -> String {
    let mut named = String::new();
    if e.closing != ClosingBehavior::default() {
        named.push_str(&format!(", closing {}", e.closing));
    }
    if e.on_time != OnTimeBehavior::default() {
        named.push_str(&format!(", on time {}", e.on_time));
    }
    named
}

pub fn rules_named(c: Conventions) -> String {
    if c == Conventions::Beam {
        String::new()
    } else {
        let engine = c.engine();
        let possessive = if engine.ends_with('s') { "'" } else { "'s" };
        format!(", under {engine}{possessive} rules")
    }
}

fn parse_trigger(s: &str) -> std::result::Result<crate::engine::trigger::Trigger, String> {
    crate::engine::trigger::Trigger::parse(s)
        .map_err(|e| format!("{}: {e}", crate::io::quote::quoted(s)))
}

fn parse_combiner(
    s: &str,
) -> std::result::Result<crate::engine::trigger::TimestampCombiner, String> {
    crate::engine::trigger::TimestampCombiner::from_name(s).ok_or_else(|| {
        format!(
            "{} is not an output time: give end-of-window, earliest or latest",
            crate::io::quote::quoted(s)
        )
    })
}

/// Runs the engine (or the pipeline, when a pipeline flag is given) and writes the answer;
/// with `--trigger`, the general path (`triggered.rs`, which the command line dispatches to).
pub fn run(a: &RunArgs, out: &mut dyn Write) -> Result<()> {
    // Every output path is checked, and its file's unfinished copy taken, before any work;
    // a signal from then on removes the copies before the program exits.
    if !a.output.output.is_empty() {
        crate::cli::stop::clean_up_on_stop();
    }
    let inputs: Vec<&std::path::Path> = a.source.input.as_deref().into_iter().collect();
    let reserved = reserve_outputs(&a.output.output, a.output.force, &inputs)?;
    // `jsonl:-` takes standard output for the pane lines; the answer goes to standard error.
    let mut stderr = std::io::stderr();
    let (pane_out, mut out): (Box<dyn Write + '_>, &mut dyn Write) =
        if a.output.output.iter().any(|s| s.is_stdout()) {
            (Box::new(out), &mut stderr)
        } else {
            (Box::new(std::io::sink()), out)
        };
    // A scenario's job is its presets: the pipeline flags given override them one by one.
    let pipeline = match a.scenario.and_then(|n| n.preset().job) {
        Some(job) => a.pipeline.over(&job),
        None => a.pipeline.clone(),
    };
    if pipeline.given() && a.engine.conventions.uses_stream_time() {
        anyhow::bail!(
            "--conventions kafka-streams runs the single processor: a job's operator takes the \
             least of its inputs' watermarks, and Kafka Streams' stream time is not a watermark. \
             Drop the job's flags"
        );
    }
    let ((mut stream, mut spool, mut cfg, mut read), following) =
        load_following(a, pipeline.given())?;
    let held = state_bound(&stream, spool.as_ref(), &cfg, pipeline.given(), a.format);
    if !held.fits() {
        anyhow::bail!("{}", held.refusal(&cfg.window));
    }
    // A log followed as it was read has its answer already, when it is the one to give.
    let followed = match (following, &spool) {
        (Some(following), Some(spool)) => following.answer(spool, cfg)?,
        _ => None,
    };
    // A log followed but not held, whose followed run is not the answer (its windows moved
    // with its first event), is read again to be replayed.
    if let (None, Some(path), Some(false)) = (
        &followed,
        &a.source.input,
        spool.as_ref().map(Spool::is_held),
    ) {
        let (events, report) = a.source.read.read_events_quietly(path, true, None)?;
        (stream, spool, cfg, read) = loaded(a, engine_config(a)?, events, report);
    }
    // A spooled log's oracle is counted as it is replayed.
    let mut truth = match spool {
        Some(_) => BTreeMap::new(),
        None => Oracle::true_counts_under(&stream, &cfg.window, cfg.conventions),
    };
    let mut sinks = SinkDriver {
        args: &a.output,
        stream: &stream,
        config: cfg,
        stdout: Some(pane_out),
        reserved: Some(reserved),
        outputs: None,
    };
    let result = if pipeline.given() {
        run_pipeline(&stream, cfg, &pipeline, &truth, &mut sinks)?
    } else {
        sinks.open(RunMeta {
            sink: None,
            accumulation: cfg.accumulation.name(),
            settings: settings(&cfg),
        })?;
        if let Some((answer, t)) = followed {
            truth = t;
            answer
        } else if let Some(spool) = &mut spool {
            let keep = a.format == TableOrJson::Json;
            let (answer, t) = run_spooled(spool, cfg, keep, &mut sinks)?;
            truth = t;
            answer
        } else {
            run_in_memory(&stream, cfg, a.format == TableOrJson::Json, &mut sinks)?
        }
    };
    sinks.finish()?;
    let score = Score::of(&result.finals, &truth);
    let c = &result.counters;
    let listed = listed_windows(&truth, &result.finals);
    // A window's number counts from the epoch on a wall clock (376949 for 2013-01-01 05:00):
    // its span says which it is.
    let numbered = !cfg.window.is_merging() && !stream.clock.is_wall();
    match a.format {
        TableOrJson::Json => {
            let windows = listed
                .iter()
                .map(|&(cell, t, value)| WindowJson {
                    window: cfg.window.number(cell.window),
                    start_ms: bound(cfg.window.start(cell.window)),
                    end_ms: bound(cfg.window.end(cell.window)),
                    key: stream.key_name(cell.key).to_string(),
                    value,
                    truth: t,
                })
                .collect();
            let (panes, dropped_events) = match result.spooled_json {
                Some((panes, dropped)) => (JsonArray::Spooled(panes), JsonArray::Spooled(dropped)),
                None => (
                    JsonArray::Held(
                        result
                            .panes
                            .iter()
                            .map(|p| pane_row(p, &cfg, &stream))
                            .collect(),
                    ),
                    JsonArray::Held(
                        result
                            .dropped
                            .iter()
                            .map(|d| dropped_json(d, &cfg.window, &stream))
                            .collect(),
                    ),
                ),
            };
            let j = RunJson {
                events: c.events,
                on_time: c.on_time,
                dropped: c.dropped,
                late: c.late,
                wrong_windows: score.wrong_windows,
                events_lost: score.events_lost,
                max_error: score.max_error,
                accuracy: score.accuracy(),
                ttl_expired: c.ttl_expired,
                state_entries_max: c.state_entries_max,
                skipped_rows: read.as_ref().map_or(0, |r| r.skipped_rows),
                clock_skew_rows: read.as_ref().map_or(0, |r| r.clock_skew_rows),
                config: ConfigJson {
                    window: cfg.window.describe(),
                    watermark: watermark_named(&cfg),
                    grace: Duration::short(cfg.grace),
                    early: cfg.early.map(Duration::short),
                    accumulation: cfg.accumulation.name(),
                    conventions: (cfg.conventions != Conventions::Beam)
                        .then(|| cfg.conventions.name()),
                    closing: (cfg.empty_panes.closing != ClosingBehavior::default())
                        .then(|| cfg.empty_panes.closing.name()),
                    on_time: (cfg.empty_panes.on_time != OnTimeBehavior::default())
                        .then(|| cfg.empty_panes.on_time.name()),
                },
                windows,
                panes,
                dropped_events,
                pipeline: result.pipeline.map(|r| pipeline_json(&stream, r)),
            };
            serde_json::to_writer(&mut out, &j)?;
            writeln!(out)?;
        }
        TableOrJson::Table => {
            writeln!(
                out,
                "{} over {} events: {}, grace {}, early {}, {}{}{}",
                cfg.window.describe(),
                c.events,
                watermark_named(&cfg),
                Duration::short(cfg.grace),
                cfg.early.map_or("off".to_string(), Duration::short),
                cfg.accumulation,
                rules_named(cfg.conventions),
                behaviors_named(cfg.empty_panes)
            )?;
            if let Some(zone) = stream.clock.zone() {
                writeln!(out, "  times in {}", zone.name())?;
            }
            writeln!(
                out,
                "  on time {}   late (kept) {}   dropped {}   panes {} (early {}, on time {}, late {})",
                c.on_time,
                c.late,
                c.dropped,
                c.panes(),
                c.early_panes,
                c.on_time_panes,
                c.late_panes
            )?;
            match result.peak_open_cells {
                Some(peak) => writeln!(
                    out,
                    "  windows wrong {} of {}   events lost {}   max error {}   accuracy {:.2}%   peak open cells {}",
                    score.wrong_windows,
                    truth.len(),
                    score.events_lost,
                    score.max_error,
                    score.accuracy(),
                    peak
                )?,
                None => writeln!(
                    out,
                    "  windows wrong {} of {}   events lost {}   max error {}   accuracy {:.2}%",
                    score.wrong_windows,
                    truth.len(),
                    score.events_lost,
                    score.max_error,
                    score.accuracy(),
                )?,
            }
            if cfg.window.ttl().is_some() {
                writeln!(
                    out,
                    "  ttl expired {}   state entries max {}",
                    c.ttl_expired, c.state_entries_max
                )?;
            }
            if let Some(r) = &result.pipeline {
                write_pipeline_table(&mut out, r, &stream.clock)?;
            }
            writeln!(out)?;
            let sink_col = result.pipeline.as_ref().map(|r| (r.sink, &r.sink_output));
            // Sessions have no number, nor a wall clock's windows: their rows start with the span.
            if numbered {
                write!(out, "  {:>8}", "window")?;
            } else if stream.clock.is_wall() && !cfg.window.is_merging() {
                write!(out, " ")?;
            }
            let span = SpanColumns::of(&cfg.window, &stream.clock);
            write!(
                out,
                " {} {:>8} {:>8} {:>8} {:>8}",
                span.heading(),
                "key",
                "value",
                "truth",
                "error"
            )?;
            if let Some((kind, _)) = sink_col {
                write!(out, " {:>14}", kind.name())?;
            }
            writeln!(out)?;
            write_window_rows(
                &mut out,
                &listed,
                &cfg.window,
                &stream,
                sink_col.map(|(_, o)| o),
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The most state the run can hold ([`StateBound`]): over the stream in memory, or the
/// spooled log's count, keys and event times.
fn state_bound(
    stream: &Stream,
    spool: Option<&Spool>,
    cfg: &EngineConfig,
    pipeline: bool,
    format: TableOrJson,
) -> StateBound {
    let costs = match (pipeline, format) {
        (true, _) => StateCosts::PIPELINE,
        (false, TableOrJson::Json) => StateCosts::SINGLE_LISTED,
        (false, TableOrJson::Table) => StateCosts::SINGLE,
    };
    let (events, keys, event_times) = match spool {
        Some(s) => (s.len(), s.keys().len(), s.event_times()),
        None => (
            stream.events.len() as u64,
            stream.keys.len(),
            stream.events.iter().fold(None, |range, e| {
                let t = e.event_time;
                Some(range.map_or((t, t), |(a, b): (f64, f64)| (a.min(t), b.max(t))))
            }),
        ),
    };
    StateBound::of(&cfg.window, events, keys as u64, event_times, costs)
}

/// Reads the stream and the dials: a log in processing-time order is left in a temporary file
/// to be replayed one event at a time, when the single processor runs a window that does not
/// merge (its oracle then counts as it goes); anything else is in memory.
pub(super) fn load(
    a: &RunArgs,
    pipeline: bool,
) -> Result<(Stream, Option<Spool>, EngineConfig, Option<SourceReport>)> {
    let (loaded, _) = load_following(a, pipeline)?;
    Ok(loaded)
}

/// What [`load`] gives: the stream (or the outline of a spooled one), the spool, the dials
/// and what reading the log saw.
type Loaded = (Stream, Option<Spool>, EngineConfig, Option<SourceReport>);

/// [`load`], with the run that follows the log as it is read ([`Following`]) when the
/// answer is one it can give: no output besides the answer, a watermark that does not read
/// the log's largest delay, and for JSON dials whose panes it can put in order.
fn load_following(a: &RunArgs, pipeline: bool) -> Result<(Loaded, Option<Following>)> {
    if let (None, Some(path), false) = (a.scenario, &a.source.input, pipeline) {
        // A bad dial is reported after the log has been read, as for every other run.
        if let Ok(cfg) = engine_config(a) {
            if !cfg.window.is_merging() {
                let keep = a.format == TableOrJson::Json;
                let following = (a.output.output.is_empty()
                    && !cfg.watermark.reads_max_delay()
                    && (!keep || Following::orders_panes(&cfg)))
                .then(|| Following::start(cfg, keep));
                // A file that can be read again is followed without being held as well.
                let again = path != std::path::Path::new("-")
                    && std::fs::metadata(path).is_ok_and(|m| m.is_file());
                let follower = following.as_ref().map(|(f, _)| match again {
                    true => f.clone().read_again(),
                    false => f.clone(),
                });
                let mut following = following.map(|(_, run)| run);
                let (events, report) = match a.source.read.read_events(path, true, follower) {
                    // Out of order, and not held: read again, held, to be sorted.
                    Err(e) if e.downcast_ref::<Unheld>().is_some() => {
                        following = None;
                        a.source.read.read_events(path, true, None)?
                    }
                    read => read?,
                };
                let loaded = loaded(a, cfg, events, report);
                let following = following.filter(|_| loaded.1.is_some());
                return Ok((loaded, following));
            }
        }
    }
    let (stream, cfg, read) = chosen_reported(a.scenario, &a.source, &a.engine, &a.given)?;
    Ok(((stream, None, cfg, read), None))
}

/// The dials the flags give, under Kafka Streams' rules when those are asked for.
fn engine_config(a: &RunArgs) -> Result<EngineConfig> {
    a.engine
        .config()
        .and_then(|c| crate::cli::args::under_kafka_streams(c, &a.given))
}

/// The log read, with the dials `cfg` placed on its clock: in memory, or the outline of a
/// spooled one (its keys and its clock alone, which output names and writes times by) with
/// its spool.
fn loaded(a: &RunArgs, cfg: EngineConfig, events: Events, report: SourceReport) -> Loaded {
    match events {
        Events::Memory(stream) => {
            let first = crate::cli::args::first_event_time(&stream);
            let cfg = a.engine.in_zone(cfg, &stream.clock, first);
            (stream, None, cfg, Some(report))
        }
        Events::Spooled(spool) => {
            let stream = spool.outline();
            let first = spool.event_times().map(|(first, _)| first);
            let cfg = a.engine.in_zone(cfg, &stream.clock, first);
            (stream, Some(spool), cfg, Some(report))
        }
    }
}

/// Keys the oracle of a followed run keeps in its ring of recent windows (it does not know
/// how many a log has until it is read; more are counted in its map, to the same counts).
const FOLLOWED_KEYS: usize = 64;

/// The single processor run on a thread of its own while the log is read, over the events a
/// spool hands on ([`Follower`]), its keys numbered in order of first appearance; with its
/// oracle counted as it goes. Its answer is the spooled replay's once its keys are numbered in
/// name order, when the log turned out to be in processing-time order and its dials are the
/// ones the replay would run (a wall clock's windows are placed by the log's first event
/// time, known only at its end). For JSON, each arrival's panes are put in the order the
/// replay emits them (by window, then key name) before they are written.
struct Following {
    cfg: EngineConfig,
    run: std::thread::JoinHandle<Result<Option<Followed>>>,
}

/// What a followed run found, its keys by their provisional ids, and for JSON its panes and
/// drops written.
struct Followed {
    events: u64,
    counters: crate::engine::Counters,
    finals: Vec<(CellId, u64)>,
    truth: BTreeMap<CellId, u64>,
    peak: usize,
    json: Option<(SpooledArray, SpooledArray)>,
}

impl Following {
    /// The follower a log's spool hands its events to, and the run taking them under `cfg`,
    /// writing its panes and drops as JSON when `keep` asks for them.
    fn start(cfg: EngineConfig, keep: bool) -> (Follower, Following) {
        let (follower, batches) = Follower::new();
        let run = std::thread::spawn(move || follow(cfg, keep, batches));
        (follower, Following { cfg, run })
    }

    /// Whether the panes one arrival emits under `cfg` are put in the replay's order by
    /// window and key name: the on-time panes of the windows the watermark passes (or, under
    /// Kafka Streams' rules, of the windows closed), in window and key order, then the late
    /// panes of the one key that arrived. An early trigger (its timers fire in the order they
    /// fall due), a state TTL and closing panes emit in other orders: those are replayed.
    fn orders_panes(cfg: &EngineConfig) -> bool {
        cfg.early.is_none()
            && cfg.window.ttl().is_none()
            && cfg.empty_panes.closing == ClosingBehavior::default()
    }

    /// The answer and the true counts, keys numbered as `spool` numbers them; `None` when the
    /// run followed is not the one to give (the dials or the events differ, or it gave up).
    fn answer(
        self,
        spool: &Spool,
        cfg: EngineConfig,
    ) -> Result<Option<(RunAnswer, BTreeMap<CellId, u64>)>> {
        let followed = match self.run.join() {
            Ok(followed) => followed?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let Some(f) = followed else {
            return Ok(None);
        };
        if cfg != self.cfg || f.events != spool.len() {
            return Ok(None);
        }
        let renumber = |cell: CellId| -> Result<CellId> {
            let key = spool.renumbered(cell.key).ok_or_else(|| {
                anyhow::anyhow!("a followed run met key {} the log does not hold", cell.key)
            })?;
            Ok(CellId { key, ..cell })
        };
        let finals = last_of_each(f.finals)
            .into_iter()
            .map(|(c, v)| Ok((renumber(c)?, v)))
            .collect::<Result<BTreeMap<_, _>>>()?;
        let truth = f
            .truth
            .into_iter()
            .map(|(c, n)| Ok((renumber(c)?, n)))
            .collect::<Result<BTreeMap<_, _>>>()?;
        let answer = RunAnswer {
            counters: f.counters,
            finals,
            panes: Vec::new(),
            dropped: Vec::new(),
            spooled_json: match f.json {
                Some((panes, dropped)) => Some((panes.items()?, dropped.items()?)),
                None => None,
            },
            peak_open_cells: Some(f.peak),
            pipeline: None,
        };
        Ok(Some((answer, truth)))
    }
}

/// The followed run: each batch of events through the processor and the oracle as it comes,
/// each cell's last final kept (as [`Emitted`] keeps them), and for JSON (`keep`) the panes
/// and drops written; `None` once the log read so far holds more state than a run may
/// ([`StateBound`]), which the replay then refuses.
fn follow(cfg: EngineConfig, keep: bool, batches: FollowedBatches) -> Result<Option<Followed>> {
    let mut p = Processor::new(cfg, 0.0);
    let mut out = Output::default();
    let mut counts = crate::engine::window::OracleCounts::new(&cfg.window, FOLLOWED_KEYS);
    let mut finals: Vec<(CellId, u64)> = Vec::new();
    let mut compact_at = FINALS_COMPACTED_AT;
    let mut json = if keep {
        Some((SpooledArray::new()?, SpooledArray::new()?))
    } else {
        None
    };
    let mut names: Vec<String> = Vec::new();
    let mut peak = 0;
    let mut events = 0u64;
    let mut event_times: Option<(f64, f64)> = None;
    let costs = if keep {
        StateCosts::SINGLE_LISTED
    } else {
        StateCosts::SINGLE
    };
    let mut drain = |out: &mut Output, names: &[String]| -> Result<()> {
        finals.extend(out.finals.iter().map(|f| (f.cell, f.value)));
        if finals.len() >= compact_at {
            keep_last_of_each(&mut finals);
            compact_at = (2 * finals.len()).max(FINALS_COMPACTED_AT);
        }
        if let Some((panes, dropped)) = &mut json {
            let name = |key: u32| names.get(key as usize).map_or("", String::as_str);
            // The on-time panes in window and key-name order; the late ones, of one key, as
            // they came after them.
            out.panes.sort_by(|a, b| {
                let on_time = |p: &crate::engine::Pane| p.timing != Timing::OnTime;
                on_time(a).cmp(&on_time(b)).then_with(|| {
                    if a.timing == Timing::OnTime && b.timing == Timing::OnTime {
                        (a.cell.window, name(a.cell.key)).cmp(&(b.cell.window, name(b.cell.key)))
                    } else {
                        std::cmp::Ordering::Equal
                    }
                })
            });
            for p in &out.panes {
                panes.push(&pane_row_named(p, &cfg, name(p.cell.key)))?;
            }
            for d in &out.dropped {
                dropped.push(&dropped_json_named(d, &cfg.window, name(d.event.key)))?;
            }
        }
        out.clear();
        Ok(())
    };
    while let Some(batch) = batches.next_batch() {
        names.extend(batch.new_keys);
        for e in &batch.events {
            let t = e.event_time;
            event_times = Some(event_times.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
        events += batch.events.len() as u64;
        let keys = names.len() as u64;
        if !StateBound::of(&cfg.window, events, keys, event_times, costs).fits() {
            return Ok(None);
        }
        for e in &batch.events {
            counts.add(e);
            p.step(e, &mut out);
            peak = peak.max(p.open_cells());
            if !(out.panes.is_empty() && out.finals.is_empty() && out.dropped.is_empty()) {
                drain(&mut out, &names)?;
            }
        }
        batches.give_back(batch.events);
    }
    p.finish(&mut out);
    drain(&mut out, &names)?;
    Ok(Some(Followed {
        events,
        counters: *p.counters(),
        finals,
        truth: counts.into_truth(),
        peak,
        json,
    }))
}

/// The single processor over a stream in memory, its panes going to the sinks as they are
/// emitted and, for JSON (`keep`), to temporary files with its drops: a sliding window's
/// drops are one per event and window it was refused from, up to a thousand per event, and
/// holding them made memory grow with the stream times the windows per event.
fn run_in_memory(
    stream: &Stream,
    cfg: EngineConfig,
    keep: bool,
    sinks: &mut SinkDriver,
) -> Result<RunAnswer> {
    let mut p = Processor::for_stream(cfg, stream);
    let mut out = Output::default();
    let mut emitted = Emitted::new(cfg, keep)?;
    let mut peak = 0;
    for e in &stream.events {
        p.step(e, &mut out);
        peak = peak.max(p.open_cells());
        if !(out.panes.is_empty() && out.finals.is_empty() && out.dropped.is_empty()) {
            emitted.drain(&mut out, sinks)?;
        }
    }
    p.finish(&mut out);
    emitted.drain(&mut out, sinks)?;
    emitted.answer(*p.counters(), peak)
}

/// What the single processor emits, taken as it comes: each cell's last final (a cell
/// finalised again and again, a global window's key under a TTL, is kept once whenever the
/// list has doubled, so that it grows with the cells, not with the log), every pane to the
/// sinks, and for JSON the panes and drops written to temporary files.
struct Emitted {
    cfg: EngineConfig,
    finals: Vec<(CellId, u64)>,
    compact_at: usize,
    json: Option<(SpooledArray, SpooledArray)>,
}

impl Emitted {
    fn new(cfg: EngineConfig, keep: bool) -> Result<Self> {
        Ok(Emitted {
            cfg,
            finals: Vec::new(),
            compact_at: FINALS_COMPACTED_AT,
            json: if keep {
                Some((SpooledArray::new()?, SpooledArray::new()?))
            } else {
                None
            },
        })
    }

    /// Takes what `out` holds and clears it.
    fn drain(&mut self, out: &mut Output, sinks: &mut SinkDriver) -> Result<()> {
        self.finals
            .extend(out.finals.iter().map(|f| (f.cell, f.value)));
        if self.finals.len() >= self.compact_at {
            keep_last_of_each(&mut self.finals);
            self.compact_at = (2 * self.finals.len()).max(FINALS_COMPACTED_AT);
        }
        // The single processor emits each pane once: every one is received and upserted.
        for p in &out.panes {
            sinks.write(&SinkWrite::Received(*p))?;
            sinks.write(&SinkWrite::Upsert(*p))?;
        }
        if let Some((panes, dropped)) = &mut self.json {
            let stream = sinks.stream;
            for p in &out.panes {
                panes.push(&pane_row(p, &self.cfg, stream))?;
            }
            for d in &out.dropped {
                dropped.push(&dropped_json(d, &self.cfg.window, stream))?;
            }
        }
        out.clear();
        Ok(())
    }

    /// The answer, once the processor has finished and everything it emitted is drained.
    fn answer(self, counters: crate::engine::Counters, peak: usize) -> Result<RunAnswer> {
        Ok(RunAnswer {
            counters,
            finals: last_of_each(self.finals),
            panes: Vec::new(),
            dropped: Vec::new(),
            spooled_json: match self.json {
                Some((panes, dropped)) => Some((panes.items()?, dropped.items()?)),
                None => None,
            },
            peak_open_cells: Some(peak),
            pipeline: None,
        })
    }
}

/// Events read back from a spool at a time, and handed to the oracle's thread as one.
const ORACLE_BATCH: usize = 4096;

/// The single processor over a spooled log, one event at a time, with the oracle counted as
/// it goes on a thread of its own (the events handed to it in batches, in order): panes go to
/// the sinks as they are emitted, and are written as JSON (with the drops) to temporary files
/// only when `keep` asks for them, so that memory does not grow with the log. Returns the
/// answer and the true counts.
fn run_spooled(
    spool: &mut Spool,
    cfg: EngineConfig,
    keep: bool,
    sinks: &mut SinkDriver,
) -> Result<(RunAnswer, BTreeMap<CellId, u64>)> {
    let mut p = Processor::new(cfg, spool.max_delay());
    let mut progress = RunProgress::new(spool.len());
    let mut out = Output::default();
    let counts = crate::engine::window::OracleCounts::new(&cfg.window, spool.keys().len());
    let mut emitted = Emitted::new(cfg, keep)?;
    let mut peak = 0;
    let events = spool.events()?;
    let counts = std::thread::scope(|scope| -> Result<_> {
        let (to_oracle, batches) = std::sync::mpsc::sync_channel::<std::sync::Arc<[Event]>>(4);
        let oracle = scope.spawn(move || {
            let mut counts = counts;
            for batch in batches {
                for e in batch.iter() {
                    counts.add(e);
                }
            }
            counts
        });
        // The replay, its errors kept until the oracle's thread is told there is no more.
        let replay = || -> Result<()> {
            let mut batch = Vec::with_capacity(ORACLE_BATCH);
            let mut events = events.peekable();
            let mut i = 0usize;
            while events.peek().is_some() {
                batch.clear();
                for e in events.by_ref().take(ORACLE_BATCH) {
                    batch.push(e?);
                }
                let shared: std::sync::Arc<[Event]> = batch.as_slice().into();
                // The oracle's thread only ends early by panicking, which the join reports.
                let _ = to_oracle.send(shared);
                for e in &batch {
                    p.step(e, &mut out);
                    peak = peak.max(p.open_cells());
                    if !(out.panes.is_empty() && out.finals.is_empty() && out.dropped.is_empty()) {
                        emitted.drain(&mut out, sinks)?;
                    }
                    if i.is_multiple_of(65_536) {
                        progress.set(i as u64);
                    }
                    i += 1;
                }
            }
            p.finish(&mut out);
            emitted.drain(&mut out, sinks)
        };
        let replayed = replay();
        drop(to_oracle);
        let counts = oracle.join().expect("the oracle's counting does not panic");
        replayed.map(|()| counts)
    })?;
    let answer = emitted.answer(*p.counters(), peak)?;
    Ok((answer, counts.into_truth()))
}

/// The finals a spooled run gathers before it first keeps only each cell's last.
const FINALS_COMPACTED_AT: usize = 1 << 20;

/// Keeps each cell's last value of `values` (in the order given), sorted by cell.
fn keep_last_of_each(values: &mut Vec<(CellId, u64)>) {
    // A stable sort keeps each cell's values in the order given; of a run of one cell's, the
    // last is kept.
    values.sort_by_key(|&(c, _)| c);
    values.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = later.1;
        }
        same
    });
}

/// Each cell's last value of `values` (in the order given), by cell.
fn last_of_each(mut values: Vec<(CellId, u64)>) -> BTreeMap<CellId, u64> {
    keep_last_of_each(&mut values);
    values.into_iter().collect()
}

/// The windows `run` lists, in order, with their true counts and the run's values: the
/// oracle's cells and the run's (a run's final cells are the oracle's for non-merging windows;
/// sessions the run merged differently are listed too, with truth 0, so that the listed values
/// add up to the events kept).
fn listed_windows(
    truth: &BTreeMap<CellId, u64>,
    finals: &BTreeMap<CellId, u64>,
) -> Vec<(CellId, u64, u64)> {
    let mut matched = 0;
    let mut listed: Vec<(CellId, u64, u64)> = Score::joined(truth, finals)
        .map(|(c, t, v)| {
            matched += usize::from(v.is_some());
            (c, t, v.unwrap_or(0))
        })
        .collect();
    if matched < finals.len() {
        listed.extend(
            finals
                .iter()
                .filter(|(c, _)| !truth.contains_key(c))
                .map(|(c, &v)| (*c, 0, v)),
        );
        listed.sort_unstable_by_key(|&(c, _, _)| c);
    }
    listed
}

/// The table's rows, one per listed cell: a window's columns are formatted once for all its
/// keys' rows (they are listed together), the numbers without the formatting machinery.
fn write_window_rows(
    out: &mut dyn Write,
    listed: &[(CellId, u64, u64)],
    window: &WindowFn,
    stream: &Stream,
    sink_output: Option<&BTreeMap<CellId, i64>>,
) -> Result<()> {
    let mut columns: Option<(WindowId, String)> = None;
    let span = SpanColumns::of(window, &stream.clock);
    let mut line = String::with_capacity(128);
    let mut digits = itoa::Buffer::new();
    for &(cell, t, v) in listed {
        let fresh = columns.as_ref().is_none_or(|(w, _)| *w != cell.window);
        if fresh {
            let mut c = String::with_capacity(40);
            use std::fmt::Write as _;
            if let Some(n) = window
                .number(cell.window)
                .filter(|_| !stream.clock.is_wall())
            {
                write!(c, "  {n:>8}")?;
            } else if window.is_global() {
                write!(c, "  {:>8}", "global")?;
            } else if stream.clock.is_wall() && !window.is_merging() {
                c.push(' ');
            }
            c.push(' ');
            c.push_str(&span.of_window(window, cell.window));
            columns = Some((cell.window, c));
        }
        line.clear();
        line.push_str(columns.as_ref().map_or("", |(_, c)| c));
        right_aligned(&mut line, stream.key_name(cell.key), 8);
        right_aligned(&mut line, digits.format(v), 8);
        right_aligned(&mut line, digits.format(t), 8);
        right_aligned(&mut line, digits.format(v as i64 - t as i64), 8);
        if let Some(sink_output) = sink_output {
            let shown = sink_output.get(&cell).copied().unwrap_or(0);
            right_aligned(&mut line, digits.format(shown), 14);
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// How a table writes a window's start and end: on a relative clock in seconds, right-aligned
/// in 10 characters each (`60.0s`); on a wall clock the start as a date and time
/// (`2013-01-01 05:00`) and the end as a time of day (`06:00`) where every window is shorter
/// than a day, else as a date and time too, left-aligned.
pub(super) struct SpanColumns {
    clock: Clock,
    /// On a wall clock: whether the end is written as a time of day.
    end_as_time: bool,
}

impl SpanColumns {
    /// The columns for `window`'s windows on `clock`.
    pub(super) fn of(window: &WindowFn, clock: &Clock) -> SpanColumns {
        let under_a_day = match *window {
            WindowFn::Tumbling { size, .. } | WindowFn::Sliding { size, .. } => size < DAY_MS,
            WindowFn::Session { .. } | WindowFn::Global { .. } => false,
        };
        SpanColumns {
            clock: clock.clone(),
            end_as_time: under_a_day,
        }
    }

    /// The width of the end column on a wall clock.
    fn end_width(&self) -> usize {
        if self.end_as_time {
            5
        } else {
            16
        }
    }

    /// The columns' heading.
    pub(super) fn heading(&self) -> String {
        if self.clock.is_wall() {
            format!("{:<16} {:<w$}", "start", "end", w = self.end_width())
        } else {
            format!("{:>10} {:>10}", "start", "end")
        }
    }

    /// A window's start and end.
    pub(super) fn of_window(&self, window: &WindowFn, id: WindowId) -> String {
        if !self.clock.is_wall() {
            return if window.is_global() {
                format!("{:>10} {:>10}", "−∞", "∞")
            } else {
                let start = format!("{:.1}s", window.start(id) / 1000.0);
                let end = format!("{:.1}s", window.end(id) / 1000.0);
                format!("{start:>10} {end:>10}")
            };
        }
        let (start, end) = if window.is_global() {
            ("−∞".to_string(), "∞".to_string())
        } else {
            let end_fit = if self.end_as_time {
                Fit::Time
            } else {
                Fit::Date
            };
            (
                self.clock.at(window.start(id)),
                self.clock.at_fit(window.end(id), end_fit),
            )
        };
        format!("{start:<16} {end:<w$}", w = self.end_width())
    }
}

/// A day, ms.
const DAY_MS: i64 = 86_400_000;

/// ` {text:>width}`: a space, then `text` right-aligned in `width` characters.
fn right_aligned(line: &mut String, text: &str, width: usize) {
    line.push(' ');
    let chars = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    line.extend(std::iter::repeat_n(' ', width.saturating_sub(chars)));
    line.push_str(text);
}

/// A dropped placement as the JSON's `dropped_events` lists it.
fn dropped_json(d: &Dropped, window: &WindowFn, stream: &Stream) -> DroppedJson {
    dropped_json_named(d, window, stream.key_name(d.event.key))
}

/// [`dropped_json`], its key named `key`.
fn dropped_json_named(d: &Dropped, window: &WindowFn, key: &str) -> DroppedJson {
    DroppedJson {
        offset: d.offset,
        event_time_ms: d.event.event_time,
        proc_time_ms: d.event.proc_time,
        key: key.to_string(),
        window: window.number(d.window),
        window_start_ms: bound(d.window_start),
        window_end_ms: bound(d.window_end),
        grace_ms: finite(d.grace),
        watermark_ms: d.watermark,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_wall_clock_writes_a_windows_span_as_a_date_and_times_of_day() {
        let hour = WindowFn::Tumbling {
            size: 3_600_000,
            offset: 0,
        };
        let id = WindowId::new(1_357_020_000_000, 1_357_023_600_000); // 06:00–07:00 UTC
        let wall = SpanColumns::of(&hour, &Clock::wall_utc());
        assert_eq!(wall.heading(), "start            end  ");
        assert_eq!(wall.of_window(&hour, id), "2013-01-01 06:00 07:00");
        // A day's window ends on another date: its end is a date too.
        let day = WindowFn::Tumbling {
            size: 86_400_000,
            offset: 0,
        };
        let id = WindowId::new(1_356_998_400_000, 1_357_084_800_000);
        let wall = SpanColumns::of(&day, &Clock::wall_utc());
        assert_eq!(
            wall.of_window(&day, id),
            "2013-01-01 00:00 2013-01-02 00:00"
        );
        // A relative clock's columns are as they were.
        let relative = SpanColumns::of(&hour, &Clock::Relative);
        assert_eq!(relative.heading(), "     start        end");
        let id = WindowId::new(60_000, 120_000);
        assert_eq!(relative.of_window(&hour, id), "     60.0s     120.0s");
    }

    proptest! {
        /// Keeping each cell's last value now and then, as a spooled run does, ends where
        /// keeping every value and taking each cell's last at the end does.
        #[test]
        fn keeping_the_last_along_the_way_is_keeping_it_at_the_end(
            values in proptest::collection::vec((0u32..6, 0i64..4, 0u64..100), 0..200),
            every in 1usize..50,
        ) {
            let values: Vec<(CellId, u64)> = values
                .into_iter()
                .map(|(key, w, v)| (CellId { window: WindowId::new(w, w + 1), key }, v))
                .collect();
            let mut kept = Vec::new();
            for chunk in values.chunks(every) {
                kept.extend_from_slice(chunk);
                keep_last_of_each(&mut kept);
            }
            let mut want = BTreeMap::new();
            for &(c, v) in &values {
                want.insert(c, v);
            }
            prop_assert_eq!(last_of_each(kept), want);
        }
    }
}
