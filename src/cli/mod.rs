//! The command line: `report`, `run`, `stream` and `frontier` print what the engine computes;
//! with no subcommand, the terminal UI opens on the classroom stream.

pub mod args;
pub mod commands;
pub mod report;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use args::{EngineArgs, SourceArgs};

/// twoclocks: stream processing made visible. Events arrive in processing time, are placed by
/// event time, a watermark claims completeness, windows fire early, on time and late.
#[derive(Debug, Parser)]
#[command(name = "twoclocks", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The seven blocks and their assembly on the classroom stream, with every figure.
    Report(commands::ReportArgs),
    /// One configuration of the engine over a stream: final values, panes, drops.
    Run(commands::RunArgs),
    /// The events of a stream, as CSV or JSON lines, at full precision.
    Stream(commands::StreamArgs),
    /// The accuracy/latency sweep over lags and graces.
    Frontier(commands::FrontierArgs),
}

/// Runs the program; errors are printed as one line and give exit code 2.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Report(a)) => commands::report(&a),
        Some(Command::Run(a)) => commands::run(&a),
        Some(Command::Stream(a)) => commands::stream(&a),
        Some(Command::Frontier(a)) => commands::frontier(&a),
        None => commands::report(&commands::ReportArgs {
            source: default_source(),
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("twoclocks: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The classroom stream's source flags.
pub fn default_source() -> SourceArgs {
    #[derive(Parser)]
    struct Only {
        #[command(flatten)]
        source: SourceArgs,
    }
    Only::parse_from(["twoclocks"]).source
}

/// The default engine flags.
pub fn default_engine() -> EngineArgs {
    #[derive(Parser)]
    struct Only {
        #[command(flatten)]
        engine: EngineArgs,
    }
    Only::parse_from(["twoclocks"]).engine
}
