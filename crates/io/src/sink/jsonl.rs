//! The JSON Lines sink: every pane the sink received, one JSON object a line, with the fields
//! of `panes` in `run --format json` ([`PaneRow`]).

use std::io::{BufWriter, Write};

use anyhow::{Context, Result};

use super::PaneRow;
use crate::staged::StagedFile;

/// Writes panes as JSON lines to a file or standard output.
pub struct JsonlSink<'a> {
    out: Box<dyn Write + 'a>,
}

impl<'a> JsonlSink<'a> {
    /// Writes to `out` (standard output, or any writer).
    pub fn new(out: Box<dyn Write + 'a>) -> Self {
        JsonlSink { out }
    }

    /// Writes to a staged file (its unfinished copy, or the device it names).
    pub fn to_file(file: &StagedFile) -> Result<JsonlSink<'static>> {
        let f = file.writer().context("cannot open the file to write")?;
        Ok(JsonlSink {
            out: Box::new(BufWriter::new(f)),
        })
    }

    /// One pane, one line.
    pub fn write(&mut self, row: &PaneRow) -> Result<()> {
        serde_json::to_writer(&mut self.out, row)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// Flushes what is buffered.
    pub fn finish(mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}
