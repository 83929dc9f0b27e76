//! `twoclocks report`: the seven blocks, their assembly and the silent partition's
//! experiment, figured by `cli::report` and written out as text.

use std::io::Write;

use anyhow::{bail, Result};
use clap::Args;

use crate::cli::args::SourceArgs;
use crate::cli::report;

/// `report`'s flags: the stream to report on (the classroom stream by default).
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The stream to report on.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Writes the report on the stream `a` names; an empty stream is refused.
pub fn report(a: &ReportArgs, out: &mut dyn Write) -> Result<()> {
    let stream = a.source.load()?;
    let Some(f) = report::figures(&stream) else {
        bail!("the stream is empty: nothing to report");
    };
    out.write_all(report::render(&f).as_bytes())?;
    out.flush()?;
    Ok(())
}
