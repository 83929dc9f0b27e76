//! `run --trigger EXPR`: a stream under any of Beam's triggers, every pane with its
//! `PaneInfo` and output time, as a table or JSON.

use std::io::Write;

use anyhow::{anyhow, bail, Result};
use serde_json::json;

use crate::engine::script::Script;
use crate::engine::trigger::{ClosingBehavior, OnTimeBehavior, TimestampCombiner, Timing, Trigger};
use crate::engine::triggered::TriggeredRun;
use crate::engine::Clock;
use crate::engine::EngineConfig;
use crate::engine::Stream;

use super::run::{behaviors_named, rules_named, RunArgs};
use super::TableOrJson;
use crate::engine::duration::Duration;

/// A time in whole ms as seconds with three decimals (`59.999s`), or as a date and time on a
/// wall clock (`2013-01-01 05:59:59.999`); the global window's bounds and the end of time by
/// name.
fn at(clock: &Clock, ms: i64) -> String {
    if ms >= Script::GLOBAL.end_ms() - 1 {
        "end".to_string()
    } else if ms <= Script::GLOBAL.start_ms() {
        "start".to_string()
    } else if clock.is_wall() {
        clock.at(ms as f64)
    } else {
        format!("{:.3}s", ms as f64 / 1000.0)
    }
}

/// `run` with `--trigger`: checks the flags it cannot take, loads the stream and writes the
/// answer.
pub fn run_triggered(a: &RunArgs, trigger: &Trigger, out: &mut dyn Write) -> Result<()> {
    if a.pipeline.given() {
        bail!("--trigger runs the single processor's windows: drop the pipeline's flags");
    }
    if a.engine.early.is_some() {
        bail!(
            "--early is the built-in trigger's shorthand; with --trigger write the early firings in it: AfterWatermark(early=AfterProcessingTime(DUR), late=AfterCount(1))"
        );
    }
    if !a.output.output.is_empty() {
        bail!("--output takes the built-in trigger's panes; with --trigger the panes are printed");
    }
    let (stream, _, cfg, _) = super::run::load(a, true)?;
    write(&stream, &cfg, trigger, a.timestamp_combiner, a.format, out)
}

/// Runs and writes the answer.
fn write(
    stream: &Stream,
    cfg: &EngineConfig,
    trigger: &Trigger,
    combiner: Option<TimestampCombiner>,
    format: TableOrJson,
    out: &mut dyn Write,
) -> Result<()> {
    let combiner = combiner.unwrap_or_default();
    let r: TriggeredRun =
        TriggeredRun::new(stream, cfg, trigger, combiner).map_err(|e| anyhow!(e))?;
    let key = |k: u32| stream.keys.get(k as usize).cloned().unwrap_or_default();
    match format {
        TableOrJson::Json => {
            let panes: Vec<_> = r
                .panes
                .iter()
                .map(|p| {
                    let w = p.pane.window;
                    json!({
                        "key": key(p.key),
                        "window_start_ms": w.start_ms(),
                        "window_end_ms": w.end_ms(),
                        "timing": p.pane.info.timing.label(),
                        "index": p.pane.info.index,
                        "nonspeculative_index": p.pane.info.nonspeculative_index,
                        "is_first": p.pane.info.is_first,
                        "is_last": p.pane.info.is_last,
                        "timestamp_ms": p.pane.timestamp,
                        "count": p.pane.values.len(),
                        "proc_time_ms": p.proc_time,
                        "watermark_ms": p.watermark,
                    })
                })
                .collect();
            let dropped: Vec<_> = r
                .dropped
                .iter()
                .map(|d| {
                    json!({
                        "offset": d.offset,
                        "event_time_ms": d.event.event_time,
                        "proc_time_ms": d.event.proc_time,
                        "key": key(d.event.key),
                        "window_start_ms": d.window.start_ms(),
                        "window_end_ms": d.window.end_ms(),
                        "watermark_ms": d.watermark,
                    })
                })
                .collect();
            let mut doc = json!({
                "events": r.events,
                "dropped": r.dropped.len(),
                "config": {
                    "window": cfg.window.describe(),
                    "watermark": cfg.watermark.to_string(),
                    "allowed_lateness": Duration::short(cfg.grace),
                    "trigger": trigger.to_string(),
                    "accumulation": cfg.accumulation.name(),
                    "timestamp_combiner": combiner.name(),
                    "conventions": cfg.conventions.name(),
                },
                "panes": panes,
                "dropped_events": dropped,
            });
            // Beam Java's two switches, named only when not at Beam's defaults.
            for (name, value, default) in [
                (
                    "closing",
                    cfg.empty_panes.closing.name(),
                    ClosingBehavior::default().name(),
                ),
                (
                    "on_time",
                    cfg.empty_panes.on_time.name(),
                    OnTimeBehavior::default().name(),
                ),
            ] {
                if value != default {
                    doc["config"][name] = json!(value);
                }
            }
            serde_json::to_writer(&mut *out, &doc)?;
            writeln!(out)?;
        }
        TableOrJson::Table => {
            writeln!(
                out,
                "{} over {} events: {}, allowed lateness {}, trigger {}, {}, output at {}{}{}",
                cfg.window.describe(),
                r.events,
                cfg.watermark,
                Duration::short(cfg.grace),
                trigger,
                cfg.accumulation,
                combiner,
                rules_named(cfg.conventions),
                behaviors_named(cfg.empty_panes)
            )?;
            writeln!(
                out,
                "  panes {} (early {}, on time {}, late {})   dropped {}   in whole milliseconds",
                r.panes.len(),
                r.count(Timing::Early),
                r.count(Timing::OnTime),
                r.count(Timing::Late),
                r.dropped.len()
            )?;
            if let Some(zone) = stream.clock.zone() {
                writeln!(out, "  times in {}", zone.name())?;
            }
            writeln!(out)?;
            // A wall clock's dates and times are wider than seconds: so are their columns.
            let (ws, ts) = if stream.clock.is_wall() {
                (23, 23)
            } else {
                (10, 11)
            };
            let at = |ms: i64| at(&stream.clock, ms);
            writeln!(
                out,
                "  {:>ws$} {:>ws$} {:>8}  {:<7} {:>5} {:>7}  {:<11} {:>ts$} {:>6} {:>ts$}",
                "start",
                "end",
                "key",
                "timing",
                "index",
                "nonspec",
                "first/final",
                "timestamp",
                "count",
                "at"
            )?;
            for p in &r.panes {
                let w = p.pane.window;
                let info = p.pane.info;
                let flags = match (info.is_first, info.is_last) {
                    (true, true) => "first final",
                    (true, false) => "first",
                    (false, true) => "final",
                    (false, false) => "",
                };
                writeln!(
                    out,
                    "  {:>ws$} {:>ws$} {:>8}  {:<7} {:>5} {:>7}  {:<11} {:>ts$} {:>6} {:>ts$}",
                    at(w.start_ms()),
                    at(w.end_ms()),
                    key(p.key),
                    info.timing.label(),
                    info.index,
                    info.nonspeculative_index,
                    flags,
                    at(p.pane.timestamp),
                    p.pane.values.len(),
                    at(p.proc_time)
                )?;
            }
        }
    }
    Ok(())
}
