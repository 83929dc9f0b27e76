//! The subcommands' flags and bodies: each loads a stream, asks the engine, and writes the
//! answer as a table, CSV or JSON.

use std::io::{self, BufWriter, Write};

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::args::{parse_duration_list, EngineArgs, SourceArgs};
use super::report;
use crate::engine::frontier::{self, FrontierPoint};
use crate::engine::window::{fmt_ms, oracle};
use crate::engine::{run as run_engine, Score, Stream, Timing};

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub source: SourceArgs,
}

pub fn report(a: &ReportArgs) -> Result<()> {
    let stream = a.source.load()?;
    let Some(f) = report::figures(&stream) else {
        bail!("the stream is empty: nothing to report");
    };
    let mut out = BufWriter::new(io::stdout().lock());
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

pub fn run(a: &RunArgs) -> Result<()> {
    let stream = a.source.load()?;
    let cfg = a.engine.config()?;
    let result = run_engine(&stream, cfg, true);
    let truth = oracle(&stream, &cfg.window);
    let score = Score::of(&result.finals, &truth);
    let mut out = BufWriter::new(io::stdout().lock());
    let c = &result.counters;
    match a.format {
        TableOrJson::Json => {
            let windows = truth
                .iter()
                .map(|(cell, &t)| WindowJson {
                    window: cell.window,
                    start_ms: cfg.window.start(cell.window),
                    end_ms: cfg.window.end(cell.window),
                    key: stream.key_name(cell.key).to_string(),
                    value: result.finals.get(cell).copied().unwrap_or(0),
                    truth: t,
                })
                .collect();
            let panes = result
                .output
                .panes
                .iter()
                .map(|p| PaneJson {
                    window: p.cell.window,
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
                .output
                .dropped
                .iter()
                .map(|d| DroppedJson {
                    offset: d.offset,
                    event_time_ms: d.event.event_time,
                    proc_time_ms: d.event.proc_time,
                    key: stream.key_name(d.event.key).to_string(),
                    window: d.window,
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
            writeln!(
                out,
                "  windows wrong {} of {}   events lost {}   max error {}   accuracy {:.2}%   peak open cells {}",
                score.wrong_windows,
                truth.len(),
                score.events_lost,
                score.max_error,
                score.accuracy(),
                result.peak_open_cells
            )?;
            writeln!(out)?;
            writeln!(
                out,
                "  {:>8} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
                "window", "start", "end", "key", "value", "truth", "error"
            )?;
            for (cell, &t) in &truth {
                let v = result.finals.get(cell).copied().unwrap_or(0);
                writeln!(
                    out,
                    "  {:>8} {:>9.1}s {:>9.1}s {:>8} {:>8} {:>8} {:>8}",
                    cell.window,
                    cfg.window.start(cell.window) / 1000.0,
                    cfg.window.end(cell.window) / 1000.0,
                    stream.key_name(cell.key),
                    v,
                    t,
                    v as i64 - t as i64
                )?;
            }
        }
    }
    out.flush()?;
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

pub fn stream(a: &StreamArgs) -> Result<()> {
    let stream: Stream = a.source.load()?;
    let out = BufWriter::new(io::stdout().lock());
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

#[derive(Debug, Args)]
pub struct FrontierArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Lags to sweep: a list `2s,10s` or a range `0s..120s/10s`.
    #[arg(long, default_value = "0s..120s/10s")]
    pub lags: String,
    /// Graces to sweep, likewise.
    #[arg(long, default_value = "0s..120s/10s")]
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

pub fn frontier(a: &FrontierArgs) -> Result<()> {
    let stream = a.source.load()?;
    let cfg = a.engine.config()?;
    if cfg.watermark.lag().is_none() {
        bail!(
            "--watermark {} has no lag to sweep: use fixed:DUR or bounded:DUR",
            cfg.watermark
        );
    }
    let lags = parse_duration_list(&a.lags).map_err(|e| anyhow::anyhow!("--lags: {e}"))?;
    let graces = parse_duration_list(&a.graces).map_err(|e| anyhow::anyhow!("--graces: {e}"))?;
    if lags.iter().any(|l| l.is_infinite()) {
        bail!("--lags: a lag must be finite");
    }
    let points = frontier::sweep(&stream, cfg, &lags, &graces);
    let mut out = BufWriter::new(io::stdout().lock());
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
                    fmt_ms(p.lag),
                    fmt_ms(p.grace),
                    fmt_ms(p.emit_delay),
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
    let _ = Timing::Early;
    Ok(())
}
