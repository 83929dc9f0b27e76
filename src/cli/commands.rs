//! The subcommands' flags and bodies: each loads a stream, asks the engine, and writes the
//! answer as a table, CSV or JSON.

use std::io::Write;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use std::collections::BTreeMap;

use super::args::{parse_duration, parse_duration_list, EngineArgs, SourceArgs};
use super::report;
use crate::engine::frontier::{self, FrontierPoint};
use crate::engine::job_timeline::sink_scores;
use crate::engine::pipeline::{CheckpointMode, CrashTarget, Pipeline, PipelineConfig};
use crate::engine::window::{fmt_ms, oracle};
use crate::engine::{
    run as run_engine, CellId, Counters, Dropped, EngineConfig, Pane, Score, SinkKind, Stream,
};

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub source: SourceArgs,
}

pub fn report(a: &ReportArgs, out: &mut dyn Write) -> Result<()> {
    let stream = a.source.load()?;
    let Some(f) = report::figures(&stream) else {
        bail!("the stream is empty: nothing to report");
    };
    out.write_all(report::render(&f).as_bytes())?;
    out.flush()?;
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableOrJson {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableOrJson::Table)]
    pub format: TableOrJson,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SinkArg {
    Additive,
    Idempotent,
    Transactional,
}

impl From<SinkArg> for SinkKind {
    fn from(s: SinkArg) -> Self {
        match s {
            SinkArg::Additive => SinkKind::Additive,
            SinkArg::Idempotent => SinkKind::Idempotent,
            SinkArg::Transactional => SinkKind::Transactional,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BarrierArg {
    Aligned,
    Unaligned,
    AtLeastOnce,
}

impl From<BarrierArg> for CheckpointMode {
    fn from(b: BarrierArg) -> Self {
        match b {
            BarrierArg::Aligned => CheckpointMode::ExactlyOnce,
            BarrierArg::Unaligned => CheckpointMode::Unaligned,
            BarrierArg::AtLeastOnce => CheckpointMode::AtLeastOnce,
        }
    }
}

/// The parallel pipeline's dials: giving any of them runs the stream through P source
/// partitions, N keyed window operators and a sink, with checkpoint barriers and crashes.
#[derive(Debug, Clone, Args)]
pub struct PipelineArgs {
    /// Keyed window operator instances (runs the parallel pipeline; 1 by default).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub parallelism: Option<usize>,
    /// Source partitions; event i goes to partition i mod P (1 by default).
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub partitions: Option<usize>,
    /// Checkpoint interval in processing time (1ms to 1e11s; none by default).
    #[arg(long, value_name = "DUR", value_parser = parse_duration, allow_hyphen_values = true)]
    pub checkpoint_every: Option<f64>,
    /// Processing times at which the job crashes and restores its last checkpoint, e.g.
    /// 120s,300s (each 0 to 1e11s).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub crash_at: Option<String>,
    /// The sink whose output is listed (all three are fed; transactional by default).
    #[arg(long, value_enum)]
    pub sink: Option<SinkArg>,
    /// Seed of the channels' transit times (1 by default).
    #[arg(long, value_name = "SEED", allow_negative_numbers = true)]
    pub schedule_seed: Option<u64>,
    /// Mean transit time of a channel (0 to 1e11s; 200ms by default).
    #[arg(long, value_name = "DUR", value_parser = parse_duration, allow_hyphen_values = true)]
    pub transit: Option<f64>,
    /// How operators treat checkpoint barriers (aligned by default).
    #[arg(long, value_enum)]
    pub barriers: Option<BarrierArg>,
    /// The crashes hit this operator instance instead of the whole job (every instance restarts
    /// from the checkpoint either way).
    #[arg(
        long,
        value_name = "I",
        requires = "crash_at",
        allow_negative_numbers = true
    )]
    pub crash_operator: Option<usize>,
}

impl PipelineArgs {
    /// Whether any pipeline flag was given.
    pub fn given(&self) -> bool {
        self.parallelism.is_some()
            || self.partitions.is_some()
            || self.checkpoint_every.is_some()
            || self.crash_at.is_some()
            || self.sink.is_some()
            || self.schedule_seed.is_some()
            || self.transit.is_some()
            || self.barriers.is_some()
            || self.crash_operator.is_some()
    }

    pub fn config(&self, engine: EngineConfig) -> Result<PipelineConfig> {
        if let Some(every) = self.checkpoint_every {
            super::args::check_interval("--checkpoint-every", every)?;
        }
        let mut cfg = PipelineConfig::new(engine);
        cfg.partitions = self.partitions.unwrap_or(1);
        cfg.parallelism = self.parallelism.unwrap_or(1);
        cfg.checkpoint_every = self.checkpoint_every;
        if let Some(seed) = self.schedule_seed {
            cfg.seed = seed;
        }
        if let Some(t) = self.transit {
            cfg.transit = t;
        }
        if let Some(b) = self.barriers {
            cfg.mode = b.into();
        }
        cfg.keep_outputs = true;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The crash times, earliest first.
    pub fn crashes(&self) -> Result<Vec<f64>> {
        let Some(list) = &self.crash_at else {
            return Ok(Vec::new());
        };
        let mut times =
            parse_duration_list(list).map_err(|e| anyhow::anyhow!("--crash-at: {e}"))?;
        if times.iter().any(|t| t.is_infinite()) {
            bail!("--crash-at: a crash time must be finite");
        }
        times.sort_by(f64::total_cmp);
        if let Some(w) = times.windows(2).find(|w| w[0] == w[1]) {
            bail!(
                "--crash-at: {} is given twice; give each crash time once",
                fmt_ms(w[0])
            );
        }
        Ok(times)
    }
}

#[derive(Serialize)]
struct WindowJson {
    window: i64,
    start_ms: f64,
    end_ms: f64,
    key: String,
    value: u64,
    truth: u64,
}

#[derive(Serialize)]
struct PaneJson {
    window: i64,
    key: String,
    timing: &'static str,
    index: u32,
    proc_time_ms: f64,
    /// `null` for panes emitted at the end of input (watermark +∞).
    watermark_ms: Option<f64>,
    value: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    retraction: Option<i64>,
}

#[derive(Serialize)]
struct DroppedJson {
    offset: usize,
    event_time_ms: f64,
    proc_time_ms: f64,
    key: String,
    window: i64,
    window_end_ms: f64,
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
    config: ConfigJson,
    windows: Vec<WindowJson>,
    panes: Vec<PaneJson>,
    dropped_events: Vec<DroppedJson>,
    #[serde(flatten)]
    pipeline: Option<PipelineJson>,
}

#[derive(Serialize)]
struct PipelineJson {
    pipeline: PipelineInfoJson,
    sink_output: Vec<SinkCellJson>,
    sinks: Vec<SinkTotalJson>,
    checkpoints: Vec<CheckpointJson>,
    crashes: Vec<CrashJson>,
    crashes_not_reached_ms: Vec<f64>,
}

#[derive(Serialize)]
struct PipelineInfoJson {
    partitions: usize,
    parallelism: usize,
    checkpoint_every: Option<String>,
    barriers: &'static str,
    sink: &'static str,
    schedule_seed: u64,
    transit_ms: f64,
    panes_received: u64,
}

#[derive(Serialize)]
struct SinkCellJson {
    window: i64,
    key: String,
    value: i64,
}

#[derive(Serialize)]
struct SinkTotalJson {
    sink: &'static str,
    total: i64,
    wrong_windows: usize,
}

#[derive(Serialize)]
struct CheckpointJson {
    id: u32,
    time_ms: f64,
    completed_ms: f64,
    offsets: Vec<usize>,
    bytes: usize,
    /// Per operator, from its first barrier to its snapshot.
    alignment_ms: Vec<f64>,
    /// Unaligned barriers: in-flight messages stored with the checkpoint.
    in_flight: usize,
}

#[derive(Serialize)]
struct CrashJson {
    time_ms: f64,
    target: String,
    restored_checkpoint: Option<u32>,
    restored_time_ms: f64,
    offsets: Vec<usize>,
    events_replayed: usize,
    duplicate_panes: usize,
    additive_overcount: i64,
    message: String,
}

/// What a run of the pipeline adds to the single processor's answer.
struct PipelineRun {
    cfg: PipelineConfig,
    sink: SinkKind,
    sink_output: BTreeMap<CellId, i64>,
    /// Per sink: total and wrong windows against the oracle.
    sinks: Vec<(SinkKind, i64, usize)>,
    checkpoints: Vec<CheckpointJson>,
    crashes: Vec<CrashJson>,
    not_reached: Vec<f64>,
    panes_received: u64,
}

/// The numbers `run` prints, from the single processor or from the pipeline.
struct RunAnswer {
    counters: Counters,
    finals: BTreeMap<CellId, u64>,
    panes: Vec<Pane>,
    dropped: Vec<Dropped>,
    peak_open_cells: Option<usize>,
    pipeline: Option<PipelineRun>,
}

fn run_pipeline(
    stream: &Stream,
    engine: EngineConfig,
    a: &PipelineArgs,
    truth: &BTreeMap<CellId, u64>,
) -> Result<RunAnswer> {
    let cfg = a.config(engine)?;
    let times = a.crashes()?;
    let sink = a.sink.map_or(SinkKind::Transactional, SinkKind::from);
    let mut p = Pipeline::new(stream, cfg)?;
    let target = a
        .crash_operator
        .map_or(CrashTarget::Job, CrashTarget::Operator);
    for &t in &times {
        p.schedule_crash(t, target)
            .map_err(|e| anyhow::anyhow!("--crash-operator: {e}"))?;
    }
    p.run_to_end();
    let reached = p.crashes().len().min(times.len());
    // The job has finished: every window is final, so every cell that differs is wrong.
    let sinks = sink_scores(&p, truth, |_| true)
        .into_iter()
        .map(|s| (s.kind, s.total, s.wrong))
        .collect();
    let checkpoints = p
        .checkpoints()
        .iter()
        .map(|c| CheckpointJson {
            id: c.id,
            time_ms: c.time,
            completed_ms: c.completed_at,
            offsets: c.offsets.clone(),
            bytes: c.bytes,
            alignment_ms: c.alignment.clone(),
            in_flight: c.in_flight,
        })
        .collect();
    let crashes = p
        .crashes()
        .iter()
        .map(|c| CrashJson {
            time_ms: c.time,
            target: match c.target {
                CrashTarget::Job => "job".to_string(),
                CrashTarget::Operator(i) => format!("operator {i}"),
            },
            restored_checkpoint: c.restored,
            restored_time_ms: c.restored_time,
            offsets: c.offsets.clone(),
            events_replayed: c.replayed,
            duplicate_panes: c.duplicate_panes,
            additive_overcount: c.overcount_total(),
            message: c.to_string(),
        })
        .collect();
    Ok(RunAnswer {
        counters: p.counters(),
        finals: p.finals().clone(),
        panes: p.panes().to_vec(),
        dropped: p.dropped().copied().collect(),
        peak_open_cells: None,
        pipeline: Some(PipelineRun {
            cfg,
            sink,
            sink_output: p.sink_output(sink),
            sinks,
            checkpoints,
            crashes,
            not_reached: times[reached..].to_vec(),
            panes_received: p.panes_received(),
        }),
    })
}

#[derive(Serialize)]
struct ConfigJson {
    window: String,
    watermark: String,
    grace: String,
    early: Option<String>,
    accumulation: &'static str,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

pub fn run(a: &RunArgs, mut out: &mut dyn Write) -> Result<()> {
    let stream = a.source.load()?;
    let cfg = a.engine.config()?;
    let truth = oracle(&stream, &cfg.window);
    let result = if a.pipeline.given() {
        run_pipeline(&stream, cfg, &a.pipeline, &truth)?
    } else {
        let r = run_engine(&stream, cfg, true);
        RunAnswer {
            counters: r.counters,
            finals: r.finals,
            panes: r.output.panes,
            dropped: r.output.dropped,
            peak_open_cells: Some(r.peak_open_cells),
            pipeline: None,
        }
    };
    let score = Score::of(&result.finals, &truth);
    let c = &result.counters;
    match a.format {
        TableOrJson::Json => {
            let windows = truth
                .iter()
                .map(|(cell, &t)| WindowJson {
                    window: cfg.window.index(cell.window),
                    start_ms: cfg.window.start(cell.window),
                    end_ms: cfg.window.end(cell.window),
                    key: stream.key_name(cell.key).to_string(),
                    value: result.finals.get(cell).copied().unwrap_or(0),
                    truth: t,
                })
                .collect();
            let panes = result
                .panes
                .iter()
                .map(|p| PaneJson {
                    window: cfg.window.index(p.cell.window),
                    key: stream.key_name(p.cell.key).to_string(),
                    timing: p.timing.label(),
                    index: p.index,
                    proc_time_ms: p.proc_time,
                    watermark_ms: finite(p.watermark),
                    value: p.value,
                    retraction: p.retraction,
                })
                .collect();
            let dropped_events = result
                .dropped
                .iter()
                .map(|d| DroppedJson {
                    offset: d.offset,
                    event_time_ms: d.event.event_time,
                    proc_time_ms: d.event.proc_time,
                    key: stream.key_name(d.event.key).to_string(),
                    window: cfg.window.index(d.window),
                    window_end_ms: d.window_end,
                    grace_ms: finite(d.grace),
                    watermark_ms: d.watermark,
                })
                .collect();
            let j = RunJson {
                events: c.events,
                on_time: c.on_time,
                dropped: c.dropped,
                late: c.late,
                wrong_windows: score.wrong_windows,
                events_lost: score.events_lost,
                max_error: score.max_error,
                accuracy: score.accuracy(),
                config: ConfigJson {
                    window: cfg.window.describe(),
                    watermark: cfg.watermark.to_string(),
                    grace: fmt_ms(cfg.grace),
                    early: cfg.early.map(fmt_ms),
                    accumulation: cfg.accumulation.name(),
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
                "{} over {} events: {}, grace {}, early {}, {}",
                cfg.window.describe(),
                c.events,
                cfg.watermark,
                fmt_ms(cfg.grace),
                cfg.early.map_or("off".to_string(), fmt_ms),
                cfg.accumulation
            )?;
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
            if let Some(r) = &result.pipeline {
                write_pipeline_table(&mut out, r)?;
            }
            writeln!(out)?;
            let sink_col = result.pipeline.as_ref().map(|r| (r.sink, &r.sink_output));
            match sink_col {
                None => writeln!(
                    out,
                    "  {:>8} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
                    "window", "start", "end", "key", "value", "truth", "error"
                )?,
                Some((kind, _)) => writeln!(
                    out,
                    "  {:>8} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>14}",
                    "window",
                    "start",
                    "end",
                    "key",
                    "value",
                    "truth",
                    "error",
                    kind.name()
                )?,
            }
            for (cell, &t) in &truth {
                let v = result.finals.get(cell).copied().unwrap_or(0);
                write!(
                    out,
                    "  {:>8} {:>9.1}s {:>9.1}s {:>8} {:>8} {:>8} {:>8}",
                    cfg.window.index(cell.window),
                    cfg.window.start(cell.window) / 1000.0,
                    cfg.window.end(cell.window) / 1000.0,
                    stream.key_name(cell.key),
                    v,
                    t,
                    v as i64 - t as i64
                )?;
                if let Some((_, sink_output)) = sink_col {
                    write!(out, " {:>14}", sink_output.get(cell).copied().unwrap_or(0))?;
                }
                writeln!(out)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn pipeline_json(stream: &Stream, r: PipelineRun) -> PipelineJson {
    PipelineJson {
        pipeline: PipelineInfoJson {
            partitions: r.cfg.partitions,
            parallelism: r.cfg.parallelism,
            checkpoint_every: r.cfg.checkpoint_every.map(fmt_ms),
            barriers: r.cfg.mode.name(),
            sink: r.sink.name(),
            schedule_seed: r.cfg.seed,
            transit_ms: r.cfg.transit,
            panes_received: r.panes_received,
        },
        sink_output: r
            .sink_output
            .iter()
            .map(|(cell, &value)| SinkCellJson {
                window: r.cfg.engine.window.index(cell.window),
                key: stream.key_name(cell.key).to_string(),
                value,
            })
            .collect(),
        sinks: r
            .sinks
            .iter()
            .map(|&(k, total, wrong_windows)| SinkTotalJson {
                sink: k.name(),
                total,
                wrong_windows,
            })
            .collect(),
        checkpoints: r.checkpoints,
        crashes: r.crashes,
        crashes_not_reached_ms: r.not_reached,
    }
}

fn write_pipeline_table(out: &mut impl Write, r: &PipelineRun) -> Result<()> {
    writeln!(
        out,
        "  pipeline: {} source partitions -> {} operators -> sink, checkpoint every {} ({} barriers), schedule seed {}, transit {}",
        r.cfg.partitions,
        r.cfg.parallelism,
        r.cfg.checkpoint_every.map_or("off (none taken)".to_string(), fmt_ms),
        r.cfg.mode.name(),
        r.cfg.seed,
        fmt_ms(r.cfg.transit)
    )?;
    let bytes: Vec<usize> = r.checkpoints.iter().map(|c| c.bytes).collect();
    if bytes.is_empty() {
        writeln!(out, "  checkpoints: none completed")?;
    } else {
        writeln!(
            out,
            "  checkpoints: {} completed, #{} at {} s to #{} at {} s, {} to {} bytes each",
            bytes.len(),
            r.checkpoints[0].id,
            r.checkpoints[0].time_ms / 1000.0,
            r.checkpoints[bytes.len() - 1].id,
            r.checkpoints[bytes.len() - 1].time_ms / 1000.0,
            bytes.iter().min().unwrap_or(&0),
            bytes.iter().max().unwrap_or(&0)
        )?;
    }
    for c in &r.crashes {
        writeln!(
            out,
            "  {}; {} panes delivered again (additive over by {})",
            c.message, c.duplicate_panes, c.additive_overcount
        )?;
    }
    for t in &r.not_reached {
        writeln!(
            out,
            "  crash at {} s not reached: the job had finished",
            t / 1000.0
        )?;
    }
    write!(out, "  sinks ({} panes received):", r.panes_received)?;
    for &(k, total, wrong) in &r.sinks {
        write!(out, "   {k} total {total}, {wrong} windows wrong")?;
    }
    writeln!(out)?;
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StreamFormat {
    Csv,
    Jsonl,
}

#[derive(Debug, Args)]
pub struct StreamArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StreamFormat::Csv)]
    pub format: StreamFormat,
}

pub fn stream(a: &StreamArgs, out: &mut dyn Write) -> Result<()> {
    let stream: Stream = a.source.load()?;
    match a.format {
        StreamFormat::Csv => crate::io::csv::write_csv(&stream, out),
        StreamFormat::Jsonl => crate::io::csv::write_jsonl(&stream, out),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableCsvJson {
    Table,
    Csv,
    Json,
}

/// The most points a frontier sweep computes (lags × graces): its answer and the runs behind
/// it grow with the grid.
pub const MAX_FRONTIER_POINTS: usize = 100_000;

#[derive(Debug, Args)]
pub struct FrontierArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Lags to sweep: a list `2s,10s` or a range `0s..120s/10s` (each 0 to 1e11s).
    #[arg(long, default_value = "0s..120s/10s", allow_hyphen_values = true)]
    pub lags: String,
    /// Graces to sweep, likewise (each 0 to 1e11s, or `inf`). At most 100000 lag × grace
    /// points in all.
    #[arg(long, default_value = "0s..120s/10s", allow_hyphen_values = true)]
    pub graces: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableCsvJson::Table)]
    pub format: TableCsvJson,
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

pub fn frontier(a: &FrontierArgs, mut out: &mut dyn Write) -> Result<()> {
    let stream = a.source.load()?;
    let cfg = a.engine.config()?;
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
    let lags = parse_duration_list(&a.lags).map_err(|e| anyhow::anyhow!("--lags: {e}"))?;
    let graces = parse_duration_list(&a.graces).map_err(|e| anyhow::anyhow!("--graces: {e}"))?;
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
    let points = frontier::sweep(&stream, cfg, &lags, &graces);
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
                "{} watermark, {} windows, {} events",
                cfg.watermark.family(),
                cfg.window.describe(),
                stream.len()
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
            for p in &points {
                writeln!(
                    out,
                    "  {:>7} {:>7} {:>11} {:>8} {:>14} {:>12} {:>10} {:>8.2}%",
                    column_secs(p.lag),
                    column_secs(p.grace),
                    column_secs(p.emit_delay),
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

/// A duration in a table column: always in seconds, so a column reads in one unit.
fn column_secs(ms: f64) -> String {
    if ms.is_infinite() {
        "∞".to_string()
    } else if ms % 1000.0 == 0.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{:.3}s", ms / 1000.0)
    }
}
