//! The JSON Lines sink: every pane the sink received, one JSON object a line, with the fields
//! of `panes` in `run --format json` ([`PaneRow`]).

use std::io::{BufWriter, Write};

use anyhow::{Context, Result};

use super::{PaneRow, Sink};
use crate::staged::StagedFile;

/// Writes panes as JSON lines to a file or standard output.
pub struct JsonlSink<'a> {
    out: Box<dyn Write + 'a>,
    /// The file written (none for standard output or another writer).
    file: Option<StagedFile>,
    /// The flag that names it in messages.
    flag: String,
}

impl<'a> JsonlSink<'a> {
    /// Writes to `out` (standard output, or any writer), named in messages by `flag`.
    pub fn new(out: Box<dyn Write + 'a>, flag: String) -> Self {
        JsonlSink {
            out,
            file: None,
            flag,
        }
    }

    /// Writes to a staged file (its unfinished copy, or the device it names), named in
    /// messages by `flag`.
    pub fn to_file(file: StagedFile, flag: String) -> Result<JsonlSink<'static>> {
        let f = file
            .writer()
            .context("cannot open the file to write")
            .context(flag.clone())?;
        Ok(JsonlSink {
            out: Box::new(BufWriter::new(f)),
            file: Some(file),
            flag,
        })
    }

    fn write(&mut self, row: &PaneRow) -> Result<()> {
        serde_json::to_writer(&mut self.out, row)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }
}

impl Sink for JsonlSink<'_> {
    fn flag(&self) -> &str {
        &self.flag
    }

    /// One pane, one line.
    fn received(&mut self, row: &PaneRow) -> Result<()> {
        self.write(row)
            .with_context(|| format!("{}: cannot write", self.flag))
    }

    /// Flushes what is buffered.
    fn finish(mut self: Box<Self>) -> Result<Option<StagedFile>> {
        self.out
            .flush()
            .with_context(|| format!("{}: cannot write", self.flag))?;
        Ok(self.file.take())
    }
}
