//! `twoclocks stream`: the events of a stream, as CSV or JSON lines, at full precision.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use crate::cli::args::{scenario_stream, Given, SourceArgs};
use crate::engine::scenario::ScenarioName;
use crate::engine::Stream;

/// `stream`'s output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
// clap turns doc comments into --help text: a `///` on a variant would add a "Possible
// values" list to `--help`, so the variants say what they are in `//` comments.
#[allow(missing_docs)]
pub enum StreamFormat {
    // CSV with the header event_time_ms,proc_time_ms,key.
    Csv,
    // One JSON object per event, one per line.
    Jsonl,
}

/// `stream`'s flags: the stream and the output format.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// A built-in stream with its dials; the flags given override its presets (not with
    /// --input).
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// The stream to write: read from a CSV file or generated.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StreamFormat::Csv)]
    pub format: StreamFormat,
    /// The flags given on the command line, which override the scenario's presets.
    #[arg(skip)]
    pub given: Given,
}

/// Writes the events of the stream `a` names.
pub fn stream(a: &StreamArgs, out: &mut dyn Write) -> Result<()> {
    let stream: Stream = match a.scenario {
        Some(name) => scenario_stream(name, &a.source, &a.given)?.0,
        None => a.source.load()?,
    };
    match a.format {
        StreamFormat::Csv => crate::io::csv::write_csv(&stream, out),
        StreamFormat::Jsonl => crate::io::csv::write_jsonl(&stream, out),
    }
}
