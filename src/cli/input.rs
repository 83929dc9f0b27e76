//! The flags that say how to read a user's event log (`--input FILE`): its format, its
//! columns, its time unit, where processing times come from and what a bad row does; and the
//! shell around reading it: a progress bar on a terminal, notes on standard error.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;

use crate::cli::choice::one_of;
use crate::engine::clock::Zone;
use crate::engine::Stream;
use crate::io::source::{
    read_source_events_with, Arrival, InputFormat, OnBadRow, SourceOptions, SourceReport,
    TimeFormat,
};
use crate::io::spool::{Events, Follower};
use crate::io::times::zone_named;

/// How to read `--input` (the column flags and `--time-format` also name the columns of the
/// table `advise --sql` queries: they require `--input` or `--sql`, the argument group `log`).
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// The input's format (default: by the file's extension, then by its first bytes; a
    /// .gz or .zst file is decompressed first).
    #[arg(long, value_parser = one_of::<InputFormat>(), requires = "input")]
    pub input_format: Option<InputFormat>,
    /// The column (or JSON member) that holds the event time (of --input, or of the table
    /// advise --sql queries).
    #[arg(long, default_value = "event_time_ms", requires = "log")]
    pub event_time_col: String,
    /// The column that holds the processing time.
    #[arg(long, default_value = "proc_time_ms", requires = "log")]
    pub proc_time_col: String,
    /// The column that holds the key.
    #[arg(long, default_value = "key", requires = "log")]
    pub key_col: String,
    /// What a time is (default: a number is ms, a text is a date such as 2013-01-01T05:15:00Z
    /// or 2013-01-01 05:15:00; advise --sql needs it said: rfc3339 for a timestamp or text
    /// column).
    #[arg(long, value_parser = one_of::<TimeFormat>(), requires = "log")]
    pub time_format: Option<TimeFormat>,
    /// The time zone a date without an offset is read in, and every date and time of day is
    /// written in: an IANA name (America/New_York), UTC, or an offset (+05:30) [default: UTC].
    #[arg(long, value_name = "ZONE", value_parser = zone_named, requires = "input")]
    pub time_zone: Option<Zone>,
    /// Where processing times come from: a column, the file's order (a row's processing
    /// time is then the largest event time read up to it), or the clock (when the row arrived:
    /// the UI reading a live --input - only).
    #[arg(long, value_parser = one_of::<Arrival>(), default_value_t = Arrival::Column, requires = "input")]
    pub arrival: Arrival,
    /// What a bad row does: stop with an error naming it, or skip it (counted and reported).
    #[arg(long, value_parser = one_of::<OnBadRow>(), default_value_t = OnBadRow::Error, requires = "input")]
    pub on_bad_row: OnBadRow,
}

impl InputArgs {
    /// The reading options these flags give.
    pub fn options(&self) -> SourceOptions {
        SourceOptions {
            format: self.input_format,
            event_time_col: self.event_time_col.clone(),
            proc_time_col: self.proc_time_col.clone(),
            key_col: self.key_col.clone(),
            time_format: self.time_format,
            time_zone: self.time_zone.clone(),
            arrival: self.arrival,
            on_bad_row: self.on_bad_row,
            ..SourceOptions::default()
        }
    }

    /// Reads the log at `path` (`-` is standard input), with a progress bar on a terminal
    /// once reading takes a second, and prints the report's notes on standard error.
    pub fn read(&self, path: &Path) -> Result<(Stream, SourceReport)> {
        let (events, report) = self.read_events(path, false, None)?;
        Ok((events.into_stream()?, report))
    }

    /// [`InputArgs::read`], the events held in a temporary file when `spool` is asked for and
    /// the log is in processing-time order (to be replayed one at a time), handed on as they
    /// are read to `follower` when one is given.
    pub fn read_events(
        &self,
        path: &Path,
        spool: bool,
        follower: Option<Follower>,
    ) -> Result<(Events, SourceReport)> {
        let (events, report) = self.read_events_quietly(path, spool, follower)?;
        for note in report.notes() {
            eprintln!("twoclocks: {note}");
        }
        Ok((events, report))
    }

    /// [`InputArgs::read_events`] without printing the report's notes: a log read again says
    /// them once, when it was first read.
    pub fn read_events_quietly(
        &self,
        path: &Path,
        spool: bool,
        follower: Option<Follower>,
    ) -> Result<(Events, SourceReport)> {
        if self.arrival == Arrival::Clock {
            anyhow::bail!(
                "--arrival clock times rows as they arrive: it is for the UI reading a live \
                 producer (--input - from a pipe); a file needs a processing-time column or \
                 --arrival file-order"
            );
        }
        let size = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let opts = SourceOptions {
            spool,
            follower,
            ..self.options()
        };
        read_source_events_with(path, &opts, |r| Box::new(Progress::new(r, size)))
    }
}

/// A progress bar on standard error (a terminal only) for the events of a run, shown once
/// the run has taken a second.
pub struct RunProgress {
    total: u64,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
    terminal: bool,
}

impl RunProgress {
    /// Progress through `total` events.
    pub fn new(total: u64) -> Self {
        use std::io::IsTerminal;
        RunProgress {
            total,
            start: Instant::now(),
            bar: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// `done` events have run.
    pub fn set(&mut self, done: u64) {
        if !self.terminal {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() > Duration::from_secs(1) {
            let bar = indicatif::ProgressBar::new(self.total).with_style(
                indicatif::ProgressStyle::with_template(
                    "running {bar:40} {human_pos}/{human_len} events ({eta} left)",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A reader that shows a progress bar on standard error (a terminal only) once it has read
/// for a second: bytes read of the file's size, or bytes read alone from a pipe.
struct Progress<'r> {
    inner: Box<dyn Read + 'r>,
    size: Option<u64>,
    read: u64,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
    terminal: bool,
}

impl<'r> Progress<'r> {
    fn new(inner: Box<dyn Read + 'r>, size: Option<u64>) -> Self {
        use std::io::IsTerminal;
        Progress {
            inner,
            size,
            read: 0,
            start: Instant::now(),
            bar: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }
}

impl Read for Progress<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.terminal {
            if self.bar.is_none() && self.start.elapsed() > Duration::from_secs(1) {
                let bar = match self.size {
                    Some(size) => indicatif::ProgressBar::new(size).with_style(
                        indicatif::ProgressStyle::with_template(
                            "reading {bar:40} {bytes}/{total_bytes} ({eta} left)",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    ),
                    None => indicatif::ProgressBar::new_spinner().with_style(
                        indicatif::ProgressStyle::with_template("reading {spinner} {bytes}")
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                    ),
                };
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                self.bar = Some(bar);
            }
            if let Some(bar) = &self.bar {
                bar.set_position(self.read);
            }
        }
        Ok(n)
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
