//! The JSON Lines sink: every pane the sink received, one JSON object a line, with the fields
//! of `panes` in `run --format json` ([`PaneRow`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

use super::PaneRow;

/// Writes panes as JSON lines to a file or standard output.
pub struct JsonlSink<'a> {
    out: Box<dyn Write + 'a>,
}

impl<'a> JsonlSink<'a> {
    /// Writes to `out` (standard output, or any writer).
    pub fn new(out: Box<dyn Write + 'a>) -> Self {
        JsonlSink { out }
    }

    /// Creates (or truncates) the file at `path`.
    pub fn create(path: &Path) -> Result<JsonlSink<'static>> {
        let f = File::create(path).with_context(|| "cannot create the file".to_string())?;
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
