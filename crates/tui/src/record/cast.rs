//! What the terminal showed, as an asciicast v2 recording (`--cast FILE`), so that a demo can
//! be played with `asciinema play FILE` or shared: a header line (JSON: version, width,
//! height, timestamp), then one `[time, "o", data]` line per flush of the bytes written to the
//! terminal, and `[time, "r", "WxH"]` when it is resized. The terminal's writer hands the bytes
//! over ([`Cast::output`]); they are written out when the terminal is flushed, after a frame.
//! The file is written whole or not at all: to an unfinished copy beside it, put in place when
//! the UI ends ([`Cast::finish`]); a cast whose writing failed leaves nothing at its path.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

use anyhow::Context;

use twoclocks_io::staged::StagedFile;

/// An asciicast being written.
#[derive(Debug)]
pub struct Cast {
    out: Option<BufWriter<File>>,
    /// The file, put in place by [`Cast::finish`]; `None` once finished or failed.
    file: Option<StagedFile>,
    /// Why writing stopped, if it failed.
    failed: Option<String>,
    start: Instant,
    pending: Vec<u8>,
}

impl Cast {
    /// Writes to `file` (taken, and so checked, before the UI opens). The header is written
    /// by [`Cast::begin`].
    pub fn create(file: StagedFile) -> anyhow::Result<Cast> {
        let out = file
            .writer()
            .context("--cast: cannot open the file to write")?;
        Ok(Cast {
            out: Some(BufWriter::new(out)),
            file: Some(file),
            failed: None,
            start: Instant::now(),
            pending: Vec::new(),
        })
    }

    /// The header for a terminal of `width` × `height`: the cast's time starts now.
    pub fn begin(&mut self, width: u16, height: u16) {
        self.start = Instant::now();
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let header = serde_json::json!({
            "version": 2,
            "width": width,
            "height": height,
            "timestamp": timestamp,
            "env": { "TERM": std::env::var("TERM").unwrap_or_else(|_| "xterm-256color".into()) },
            "title": "twoclocks",
        });
        self.line(&header.to_string());
    }

    /// Bytes written to the terminal, kept until the next [`Cast::flush`].
    pub fn output(&mut self, bytes: &[u8]) {
        if self.out.is_some() {
            self.pending.extend_from_slice(bytes);
        }
    }

    /// The bytes written since the last flush, as one output event.
    pub fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let data = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        self.event("o", &data);
    }

    /// The terminal was resized.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.flush();
        self.event("r", &format!("{width}x{height}"));
    }

    fn event(&mut self, kind: &str, data: &str) {
        let t = (self.start.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        let ev = serde_json::json!([t, kind, data]);
        self.line(&ev.to_string());
    }

    /// One line; a write that fails stops the cast (the UI goes on).
    fn line(&mut self, l: &str) {
        if let Some(out) = self.out.as_mut() {
            if let Err(e) = writeln!(out, "{l}") {
                self.out = None;
                self.failed = Some(e.to_string());
            }
        }
    }

    /// The UI has ended (the terminal is restored): [`Cast::close`], saying on standard error
    /// why the cast was not saved, if it was not.
    pub fn finish(&mut self) {
        if let Err(e) = self.close() {
            eprintln!("twoclocks: {e:#}");
        }
    }

    /// Writes what is left and puts the file in place. A cast whose writing failed is not
    /// put in place: the error says why (the path is left as it was).
    pub fn close(&mut self) -> anyhow::Result<()> {
        self.flush();
        if let Some(mut out) = self.out.take() {
            if let Err(e) = out.flush() {
                self.failed = Some(e.to_string());
            }
        }
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        if let Some(why) = self.failed.take() {
            drop(file);
            anyhow::bail!("--cast: the cast could not be written ({why}); nothing was saved");
        }
        file.commit().context("--cast")
    }
}
