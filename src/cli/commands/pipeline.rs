//! The parallel pipeline in `twoclocks run`: its flags ([`PipelineArgs`], which also open the
//! terminal UI in job mode), the run of the pipeline they ask for, and what that run adds to
//! `run`'s answer (the sink's output, the sinks' totals, the checkpoints, the crashes, what
//! each source partition did and how long the combined watermark stalled) as JSON and as table
//! lines.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::answer::{CheckpointJson, CrashJson, PipelineRun, RunAnswer};
use super::json::{bound, finite};
use super::outputs::{settings, SinkDriver};
use crate::cli::args::{check_interval, parse_duration, parse_duration_list};
use crate::engine::duration::Duration;
use crate::engine::pipeline::{
    CheckpointMode, CrashExcess, CrashTarget, Outage, PartitionBy, Pipeline, PipelineConfig,
};
use crate::engine::scenario::JobShape;
use crate::engine::Clock;
use crate::engine::{CellId, EngineConfig, SinkKind, Stream};
use crate::io::quote::quoted;
use crate::io::sink::RunMeta;

/// `--sink`: the sink whose output `run` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum SinkArg {
    // Adds every pane's value: a replayed pane counts again.
    Additive,
    // Upserts on (window, key, pane index): a replayed pane overwrites itself.
    Idempotent,
    // Stages until the next completed checkpoint; a crash discards what was staged.
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

/// `--barriers`: how operators treat checkpoint barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum BarrierArg {
    // Aligned barriers: each record is in a snapshot or replayed after it, never both.
    Aligned,
    // Unaligned barriers: snapshot at the first barrier, in-flight data stored with it.
    Unaligned,
    // Barriers not aligned: what faster inputs deliver early is snapshotted and replayed.
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

/// `--partition-by`: how events are spread over the source partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PartitionByArg {
    Index,
    Key,
}

impl From<PartitionByArg> for PartitionBy {
    fn from(p: PartitionByArg) -> Self {
        match p {
            PartitionByArg::Index => PartitionBy::Index,
            PartitionByArg::Key => PartitionBy::Key,
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
    /// Source partitions; event i goes to partition i mod P unless --partition-by key (1 by
    /// default).
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub partitions: Option<usize>,
    /// How events are spread over the partitions: by index (i mod P) or by key (all of a key's
    /// events in one partition; index by default).
    #[arg(long, value_enum)]
    pub partition_by: Option<PartitionByArg>,
    /// A partition that delivers nothing from FROM for FOR of processing time, then everything
    /// it held back, e.g. 1@200s+90s (repeatable; needs --partitions).
    #[arg(long, value_name = "PART@FROM+FOR", allow_hyphen_values = true)]
    pub outage: Vec<String>,
    /// A partition that emits nothing for this long marks itself idle and operators leave it
    /// out of their watermark until it emits again (1ms to 1e11s; off by default).
    #[arg(long, value_name = "DUR", value_parser = parse_duration, allow_hyphen_values = true)]
    pub idle_timeout: Option<f64>,
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
            || self.partition_by.is_some()
            || !self.outage.is_empty()
            || self.idle_timeout.is_some()
    }

    /// These flags over a scenario's job: each flag given stands, the job's shape fills in
    /// the rest (its outages only when no `--outage` is given).
    pub fn over(&self, job: &JobShape) -> PipelineArgs {
        let mut a = self.clone();
        a.partitions = a.partitions.or(Some(job.partitions));
        a.partition_by = a.partition_by.or(Some(match job.partition_by {
            PartitionBy::Index => PartitionByArg::Index,
            PartitionBy::Key => PartitionByArg::Key,
        }));
        a.parallelism = a.parallelism.or(Some(job.parallelism));
        a.checkpoint_every = a.checkpoint_every.or(job.checkpoint_every);
        if a.outage.is_empty() {
            a.outage = job
                .outages
                .iter()
                .map(|o| {
                    format!(
                        "{}@{}+{}",
                        o.partition,
                        Duration::short(o.from),
                        Duration::short(o.until - o.from)
                    )
                })
                .collect();
        }
        a
    }

    /// The pipeline's dials over the engine's `engine`, checked; outputs are kept for listing.
    pub fn config(&self, engine: EngineConfig) -> Result<PipelineConfig> {
        if let Some(every) = self.checkpoint_every {
            check_interval("--checkpoint-every", every)?;
        }
        if let Some(t) = self.idle_timeout {
            check_interval("--idle-timeout", t)?;
        }
        let mut cfg = PipelineConfig::new(engine);
        cfg.partitions = self.partitions.unwrap_or(1);
        if let Some(by) = self.partition_by {
            cfg.partition_by = by.into();
        }
        cfg.idle_timeout = self.idle_timeout;
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
                Duration::short(w[0])
            );
        }
        Ok(times)
    }

    /// The outages, each checked against the number of partitions.
    pub fn outages(&self) -> Result<Vec<Outage>> {
        if self.outage.is_empty() {
            return Ok(Vec::new());
        }
        let Some(partitions) = self.partitions else {
            bail!(
                "--outage needs --partitions: give the number of source partitions, e.g. \
                 --partitions 4 --outage 1@200s+90s"
            );
        };
        self.outage
            .iter()
            .map(|s| {
                let o =
                    parse_outage(s).map_err(|e| anyhow::anyhow!("--outage {}: {e}", quoted(s)))?;
                if o.partition >= partitions {
                    bail!(
                        "--outage {}: partition {} does not exist (--partitions {partitions}: \
                         partitions 0 to {})",
                        quoted(s),
                        o.partition,
                        partitions.saturating_sub(1)
                    );
                }
                Ok(o)
            })
            .collect()
    }
}

/// Reads `PART@FROM+FOR`: partition PART delivers nothing from FROM for FOR (durations as the
/// other flags write them; FOR above 0 and finite).
fn parse_outage(s: &str) -> Result<Outage, String> {
    const FORM: &str = "write it as PART@FROM+FOR, e.g. 1@200s+90s";
    let (part, span) = s.split_once('@').ok_or_else(|| FORM.to_string())?;
    let partition: usize = part
        .trim()
        .parse()
        .map_err(|_| format!("{} is not a partition number; {FORM}", quoted(part.trim())))?;
    // FROM+FOR: the first `+` after which both sides read as durations (an exponent's `+`,
    // as in 1e+3s, is not the separator).
    let mut last_error = None;
    for (i, _) in span.match_indices('+') {
        let (a, b) = (&span[..i], &span[i + 1..]);
        match (parse_duration(a), parse_duration(b)) {
            (Ok(from), Ok(length)) => {
                if !from.is_finite() {
                    return Err("an outage must start at a finite time".to_string());
                }
                if !length.is_finite() {
                    return Err(format!("{} is not a length: an outage must end", quoted(b)));
                }
                if length <= 0.0 {
                    return Err(format!(
                        "an outage must last longer than 0, got {}",
                        quoted(b)
                    ));
                }
                if from + length <= from {
                    return Err(format!(
                        "{} is too short to end after {}",
                        quoted(b),
                        quoted(a)
                    ));
                }
                return Ok(Outage {
                    partition,
                    from,
                    until: from + length,
                });
            }
            (Err(e), _) | (_, Err(e)) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| FORM.to_string()))
}

#[derive(Serialize)]
pub(super) struct PipelineJson {
    pipeline: PipelineInfoJson,
    sink_output: Vec<SinkCellJson>,
    sinks: Vec<SinkTotalJson>,
    checkpoints: Vec<CheckpointJson>,
    crashes: Vec<CrashJson>,
    crashes_not_reached_ms: Vec<f64>,
    partitions: Vec<PartitionJson>,
    watermark_stats: WatermarkStatsJson,
}

#[derive(Serialize)]
struct PipelineInfoJson {
    partitions: usize,
    partition_by: &'static str,
    parallelism: usize,
    checkpoint_every: Option<String>,
    idle_timeout: Option<String>,
    barriers: &'static str,
    sink: &'static str,
    schedule_seed: u64,
    transit_ms: f64,
    panes_received: u64,
}

/// A sink's cell; the window's number is `null` for sessions, known by their span alone.
#[derive(Serialize)]
struct SinkCellJson {
    window: Option<i64>,
    start_ms: Option<f64>,
    end_ms: Option<f64>,
    key: String,
    value: i64,
}

#[derive(Serialize)]
struct SinkTotalJson {
    sink: &'static str,
    total: i64,
    wrong_windows: usize,
}

/// One source partition: its events, outages and idle spans (`null`: idle until the end),
/// and where its last record left its watermark.
#[derive(Serialize)]
struct PartitionJson {
    partition: usize,
    events: usize,
    out: Vec<[Option<f64>; 2]>,
    idle: Vec<[Option<f64>; 2]>,
    last_watermark: Option<f64>,
}

/// What the combined watermark (the smallest operator watermark) did.
#[derive(Serialize)]
struct WatermarkStatsJson {
    /// The longest span before the end of input in which it did not advance.
    longest_stall_ms: f64,
    stall_from_ms: f64,
    stall_until_ms: f64,
    /// The most open cells, and state bytes, the operators held together.
    peak_open_cells: usize,
    peak_state_bytes: usize,
}

pub(super) fn run_pipeline(
    stream: &Stream,
    engine: EngineConfig,
    a: &PipelineArgs,
    truth: &BTreeMap<CellId, u64>,
    sinks: &mut SinkDriver<'_>,
) -> Result<RunAnswer> {
    let cfg = a.config(engine)?;
    let times = a.crashes()?;
    let outages = a.outages()?;
    let partition_experiment = !outages.is_empty() || cfg.idle_timeout.is_some();
    let sink = a.sink.map_or(SinkKind::Transactional, SinkKind::from);
    let mut p = Pipeline::new(stream, cfg)?.with_outages(outages)?;
    let target = a
        .crash_operator
        .map_or(CrashTarget::Job, CrashTarget::Operator);
    let unscheduled = (!times.is_empty()).then(|| p.clone());
    for &t in &times {
        p.schedule_crash(t, target)
            .map_err(|e| anyhow::anyhow!("--crash-operator: {e}"))?;
    }
    // What each crash added to the additive sink, from copies of the job run to the end.
    let excess = unscheduled.map(|job| {
        let crashes: Vec<(f64, CrashTarget)> = times.iter().map(|&t| (t, target)).collect();
        CrashExcess::of(&job, &crashes)
    });
    if sinks.wanted() {
        let mut meta_settings = settings(&cfg.engine);
        meta_settings.extend(pipeline_settings(&cfg, a));
        sinks.open(RunMeta {
            sink: Some(sink),
            accumulation: cfg.engine.accumulation.name(),
            settings: meta_settings,
        })?;
        // The same steps `run_to_end` takes, the sink's writes carried out after each.
        p = p.record_sink_writes(sink);
        while p.step().is_some() {
            for w in p.take_sink_writes() {
                sinks.write(&w)?;
            }
        }
    }
    p.run_to_end();
    let reached = p.crashes().len().min(times.len());
    // The job has finished: every window is final, so every cell that differs is wrong.
    let sinks = p
        .sink_scores(truth, |_| true)
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
        .enumerate()
        .map(|(n, c)| CrashJson {
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
            additive_overcount: excess
                .as_ref()
                .and_then(|e| e.per_crash.get(n).copied())
                .unwrap_or_else(|| c.overcount_total()),
            message: c.to_string(),
        })
        .collect();
    Ok(RunAnswer {
        counters: p.counters(),
        finals: p.finals().clone(),
        panes: p.panes().to_vec(),
        dropped: p.dropped().copied().collect(),
        spooled_json: None,
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
            partitions: p.partitions(),
            stats: p.watermark_stats(),
            partition_experiment,
        }),
    })
}

/// The pipeline's dials as the database's `meta` table keeps them.
fn pipeline_settings(cfg: &PipelineConfig, a: &PipelineArgs) -> Vec<(String, String)> {
    vec![
        ("partitions".to_string(), cfg.partitions.to_string()),
        (
            "partition_by".to_string(),
            cfg.partition_by.name().to_string(),
        ),
        ("parallelism".to_string(), cfg.parallelism.to_string()),
        (
            "checkpoint_every".to_string(),
            cfg.checkpoint_every
                .map_or("off".to_string(), Duration::short),
        ),
        ("barriers".to_string(), cfg.mode.name().to_string()),
        (
            "crash_at".to_string(),
            a.crash_at.clone().unwrap_or_default(),
        ),
        ("schedule_seed".to_string(), cfg.seed.to_string()),
    ]
}

pub(super) fn pipeline_json(stream: &Stream, r: PipelineRun) -> PipelineJson {
    PipelineJson {
        pipeline: PipelineInfoJson {
            partitions: r.cfg.partitions,
            partition_by: r.cfg.partition_by.name(),
            parallelism: r.cfg.parallelism,
            checkpoint_every: r.cfg.checkpoint_every.map(Duration::short),
            idle_timeout: r.cfg.idle_timeout.map(Duration::short),
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
                window: r.cfg.engine.window.number(cell.window),
                start_ms: bound(cell.window.start()),
                end_ms: bound(cell.window.end()),
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
        partitions: r
            .partitions
            .iter()
            .map(|v| PartitionJson {
                partition: v.partition,
                events: v.events,
                out: v.out.iter().map(|&(a, b)| [finite(a), finite(b)]).collect(),
                idle: v
                    .idle
                    .iter()
                    .map(|&(a, b)| [finite(a), b.and_then(finite)])
                    .collect(),
                last_watermark: v.last_watermark,
            })
            .collect(),
        watermark_stats: WatermarkStatsJson {
            longest_stall_ms: r.stats.longest_stall,
            stall_from_ms: r.stats.stall_from,
            stall_until_ms: r.stats.stall_until,
            peak_open_cells: r.stats.peak_open_cells,
            peak_state_bytes: r.stats.peak_state_bytes,
        },
    }
}

pub(super) fn write_pipeline_table(
    out: &mut impl Write,
    r: &PipelineRun,
    clock: &Clock,
) -> Result<()> {
    writeln!(
        out,
        "  pipeline: {} source partitions -> {} operators -> sink, checkpoint every {} ({} barriers), schedule seed {}, transit {}",
        r.cfg.partitions,
        r.cfg.parallelism,
        r.cfg.checkpoint_every.map_or("off (none taken)".to_string(), Duration::short),
        r.cfg.mode.name(),
        r.cfg.seed,
        Duration::short(r.cfg.transit)
    )?;
    let bytes: Vec<usize> = r.checkpoints.iter().map(|c| c.bytes).collect();
    if bytes.is_empty() {
        writeln!(out, "  checkpoints: none completed")?;
    } else {
        let at_whole = |ms: f64| {
            if clock.is_wall() {
                clock.at(ms)
            } else {
                format!("{} s", ms / 1000.0)
            }
        };
        writeln!(
            out,
            "  checkpoints: {} completed, #{} at {} to #{} at {}, {} to {} bytes each",
            bytes.len(),
            r.checkpoints[0].id,
            at_whole(r.checkpoints[0].time_ms),
            r.checkpoints[bytes.len() - 1].id,
            at_whole(r.checkpoints[bytes.len() - 1].time_ms),
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
        if clock.is_wall() {
            writeln!(
                out,
                "  crash at {} not reached: the job had finished",
                clock.at(*t)
            )?;
        } else {
            writeln!(
                out,
                "  crash at {} s not reached: the job had finished",
                t / 1000.0
            )?;
        }
    }
    if r.partition_experiment {
        write_partitions(out, r, clock)?;
    }
    write!(out, "  sinks ({} panes received):", r.panes_received)?;
    for &(k, total, wrong) in &r.sinks {
        write!(out, "   {k} total {total}, {wrong} windows wrong")?;
    }
    writeln!(out)?;
    Ok(())
}

/// `12.3s`: a processing or event time in seconds, as the table prints them; a date and time
/// on a wall clock.
fn at(clock: &Clock, ms: f64) -> String {
    if !ms.is_finite() {
        "∞".to_string()
    } else if clock.is_wall() {
        clock.at(ms)
    } else {
        format!("{:.1}s", ms / 1000.0)
    }
}

/// A duration as the table prints it: seconds (`12.3s`), or in the largest sensible units on
/// a wall clock.
fn lasting(clock: &Clock, ms: f64) -> String {
    if !ms.is_finite() {
        "∞".to_string()
    } else if clock.is_wall() {
        clock.duration(ms)
    } else {
        format!("{:.1}s", ms / 1000.0)
    }
}

/// The partitions section: per partition its events, outages, idle spans and watermark, then
/// the combined watermark's longest stall and the peak state.
fn write_partitions(out: &mut impl Write, r: &PipelineRun, clock: &Clock) -> Result<()> {
    let at = |ms: f64| at(clock, ms);
    writeln!(
        out,
        "  partitions by {}, idle timeout {}:",
        r.cfg.partition_by.name(),
        r.cfg
            .idle_timeout
            .map_or("off".to_string(), Duration::short)
    )?;
    for v in &r.partitions {
        write!(out, "    p{}: {} events", v.partition, v.events)?;
        for &(from, until) in &v.out {
            write!(out, ", out {} to {}", at(from), at(until))?;
        }
        for &(from, until) in &v.idle {
            match until {
                Some(u) => write!(out, ", idle {} to {}", at(from), at(u))?,
                None => write!(out, ", idle from {}", at(from))?,
            }
        }
        match v.last_watermark {
            Some(w) => writeln!(out, ", watermark {}", at(w))?,
            None => writeln!(out, ", no watermark")?,
        }
    }
    let st = &r.stats;
    writeln!(
        out,
        "  combined watermark: longest stall {} ({} to {}), peak state {} open cells ({} bytes)",
        lasting(clock, st.longest_stall),
        at(st.stall_from),
        at(st.stall_until),
        st.peak_open_cells,
        st.peak_state_bytes
    )?;
    Ok(())
}
