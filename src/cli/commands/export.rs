//! `twoclocks export`: the engine's dials, over a scenario's presets if one is given, printed
//! as Flink, Flink SQL, Beam or Kafka Streams code ([`crate::cli::export`] writes it). Only
//! `perfect` and `heuristic` watermarks read the stream: their values come from its delays;
//! and tumbling or sliding windows read a log (`--input`) for the zone its times are in, where
//! its windows fall.

use std::io::Write;

use anyhow::Result;
use clap::Args;

use crate::cli::args::{
    check_interval, chosen_reported, parse_duration, scenario_config, EngineArgs, Given, SourceArgs,
};
use crate::cli::export::{render, Delays, Policy, Target};
use crate::engine::scenario::ScenarioName;
use crate::engine::{Stream, WatermarkKind, WindowFn};

/// `export`'s flags: the target engine, the dials (and a scenario's presets under them), the
/// idle timeout, and the stream the `perfect` and `heuristic` watermarks are measured on.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The engine to write the policy for.
    #[arg(long, value_enum)]
    pub to: Target,
    /// A built-in scenario whose dials to start from; the flags given override them.
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// The stream `perfect` and `heuristic` watermarks take their lag from (the others do not
    /// read it).
    #[command(flatten)]
    pub source: SourceArgs,
    /// The dials to export.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// A partition that emits nothing for this long is left out of the watermark (Flink's
    /// withIdleness; 1ms to 1e11s; off by default).
    #[arg(long, value_name = "DUR", value_parser = parse_duration, allow_hyphen_values = true)]
    pub idle_timeout: Option<f64>,
    /// The flags given on the command line, which override the scenario's presets.
    #[arg(skip)]
    pub given: Given,
}

/// Writes the policy for the target engine.
pub fn export(a: &ExportArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(t) = a.idle_timeout {
        check_interval("--idle-timeout", t)?;
    }
    let mut config = match a.scenario {
        Some(name) => scenario_config(&name.preset(), &a.engine, &a.given)?,
        None => a.engine.config()?,
    };
    let zoned = a.source.input.is_some()
        && a.engine.window_offset.is_none()
        && matches!(
            config.window,
            WindowFn::Tumbling { .. } | WindowFn::Sliding { .. }
        );
    let measured = matches!(
        config.watermark,
        WatermarkKind::Perfect | WatermarkKind::Heuristic { .. }
    );
    let read = if zoned || measured {
        let (stream, read, report) = chosen_reported(a.scenario, &a.source, &a.engine, &a.given)?;
        // The windows as they fall in the log's zone, as a run on it has them.
        config.window = read.window;
        Some((stream, report))
    } else {
        None
    };
    let delays = match (config.watermark, read) {
        (WatermarkKind::Perfect | WatermarkKind::Heuristic { .. }, Some((stream, report))) => {
            let name = match (&a.source.input, report) {
                (Some(_), Some(r)) => r.name,
                _ => match a.scenario {
                    Some(s) => format!("the {} stream", s.label()),
                    None => "the generated stream".to_string(),
                },
            };
            Some(delays(&stream, name, config.watermark)?)
        }
        _ => None,
    };
    let policy = Policy {
        config,
        idle_timeout: a.idle_timeout,
        delays,
    };
    out.write_all(render(a.to, &policy).as_bytes())?;
    Ok(())
}

/// The stream's largest delay and the heuristic's quantile over all its delays, in whole
/// milliseconds (what the engines count in).
fn delays(stream: &Stream, name: String, kind: WatermarkKind) -> Result<Delays> {
    let mut d: Vec<f64> = stream.events.iter().map(|e| e.delay()).collect();
    if d.is_empty() {
        anyhow::bail!(
            "the stream is empty: no delays to set the {} watermark from",
            kind.family()
        );
    }
    d.sort_by(f64::total_cmp);
    let q = match kind {
        WatermarkKind::Heuristic { q, .. } => q,
        _ => 1.0,
    };
    let at = ((q * (d.len() - 1) as f64) as usize).min(d.len() - 1);
    Ok(Delays {
        stream: name,
        max: d[d.len() - 1].max(0.0).round(),
        quantile: d[at].max(0.0).round(),
    })
}
