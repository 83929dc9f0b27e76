//! `twoclocks export`: the engine's dials, over a scenario's presets if one is given, printed as
//! Flink, Flink SQL, Beam (Java or Python) or Kafka Streams code ([`crate::cli::export`] writes
//! it). Only `perfect` and `heuristic` watermarks read the stream: their values come from its
//! delays; and tumbling or sliding windows read a log (`--input`) for the zone its times are in,
//! where its windows fall.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use crate::cli::args::{
    check_interval, chosen_reported, parse_duration, scenario_config, EngineArgs, Given, SourceArgs,
};
use crate::cli::export::{
    render, shape, CsvLog, Delays, Policy, Shape, Source, SourceKind, Target,
};
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
    /// Where the exported job reads its events: a Kafka topic, or the --input log itself, a
    /// CSV file (a backfill from files; flink, flink-sql and beam-python).
    #[arg(long = "source", value_enum, value_name = "FROM", default_value_t = SourceKind::Kafka)]
    pub from: SourceKind,
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
    let measured = shape(config.watermark).is_measured();
    let read = if zoned || measured {
        let (stream, read, report) = chosen_reported(a.scenario, &a.source, &a.engine, &a.given)?;
        // The windows as they fall in the log's zone, as a run on it has them.
        config.window = read.window;
        Some((stream, report))
    } else {
        None
    };
    let delays = match read {
        Some((stream, report)) if measured => {
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
    if !config.empty_panes.is_default() && a.to != Target::Beam {
        anyhow::bail!(
            "--closing and --on-time are Beam Java's switches (Window.withAllowedLateness(d, \
             ClosingBehavior) and withOnTimeBehavior): the {} export has no such switch; \
             export --to beam",
            a.to.to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string())
        );
    }
    let source = match a.from {
        SourceKind::Kafka => Source::Kafka,
        SourceKind::File => {
            if a.to == Target::BeamPython
                && !matches!(shape(config.watermark), Shape::EventTimeBound { .. })
            {
                anyhow::bail!(
                    "--source file: the beam-python export replays the log under a bounded \
                     watermark (--watermark bounded:B); {} is not one",
                    config.watermark
                );
            }
            Source::File(csv_log(a)?)
        }
    };
    let policy = Policy {
        config,
        idle_timeout: a.idle_timeout,
        delays,
        source,
    };
    out.write_all(render(a.to, &policy).as_bytes())?;
    Ok(())
}

/// The `--input` log as `--source file` reads it: a CSV file of event times in ms since the
/// epoch, its columns named by its header.
fn csv_log(a: &ExportArgs) -> Result<CsvLog> {
    use std::io::BufRead;
    if !a.to.reads_a_file() {
        let readers: Vec<String> = Target::value_variants()
            .iter()
            .filter(|t| t.reads_a_file())
            .map(|t| t.name())
            .collect();
        let readers = match readers.as_slice() {
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => String::new(),
        };
        anyhow::bail!(
            "--source file: only the {readers} exports read a file; the {} export reads Kafka",
            a.to.name()
        );
    }
    let Some(path) = a.source.input.as_deref().filter(|p| p.as_os_str() != "-") else {
        anyhow::bail!("--source file reads the --input log: give --input FILE (a CSV file)");
    };
    let shown = path.display();
    let csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if !csv {
        anyhow::bail!(
            "--source file: {shown}: the file source reads a plain CSV log (a name ending in \
             .csv); compressed, JSON Lines and Parquet logs are read from Kafka"
        );
    }
    let read = &a.source.read;
    if !matches!(
        read.time_format,
        None | Some(crate::io::times::TimeFormat::Ms)
    ) {
        anyhow::bail!(
            "--source file: {shown}: the file source reads event times in ms since the epoch \
             (--time-format ms)"
        );
    }
    let file = std::fs::File::open(path).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    let mut header = String::new();
    std::io::BufReader::new(file)
        .read_line(&mut header)
        .map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    let columns: Vec<String> = header
        .trim_end_matches(['\r', '\n'])
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    for (flag, name) in [
        ("--event-time-col", &read.event_time_col),
        ("--key-col", &read.key_col),
    ] {
        if !columns.contains(name) {
            anyhow::bail!(
                "{shown}:1: the header {:?} has no column {name:?} ({flag})",
                header.trim_end()
            );
        }
    }
    Ok(CsvLog {
        path: shown.to_string(),
        columns,
        event_time: read.event_time_col.clone(),
        key: read.key_col.clone(),
    })
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
    let q = shape(kind).measured_quantile();
    let at = ((q * (d.len() - 1) as f64) as usize).min(d.len() - 1);
    Ok(Delays {
        stream: name,
        max: d[d.len() - 1].max(0.0).round(),
        quantile: d[at].max(0.0).round(),
    })
}
