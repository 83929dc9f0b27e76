//! What every format's reader shares: the options a source is read with (its format, time
//! format, arrival and what a bad row does), raw times turned into milliseconds, keys checked,
//! [`Rows`], which turns rows into events and counts what it saw into a [`SourceReport`]. The
//! readers (`csv`, `jsonl`, `parquet`) import it; `source` picks a reader for an input and
//! re-exports all of it under its old paths.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};
use rustc_hash::FxBuildHasher;

use crate::decimal::read_number;
use crate::quote::quoted;
use crate::spool::{check_in_memory, Events, SpoolWriter};
use crate::times::{
    date_ms, date_nanos, ClockEvidence, Spelling, DATE_EXAMPLE, WALL_FROM_MS, WALL_UNTIL_MS,
};
use twoclocks_engine::clock::Zone;
use twoclocks_engine::{Event, Stream};

/// The most events an input may hold: it is held in memory to be sorted by processing time.
pub const MAX_ROWS: usize = 100_000_000;

/// How many skipped rows' line numbers a report keeps.
pub const FIRST_SKIPPED: usize = 5;

/// Times beyond ±2^53 ms lose integer precision and are refused (see [`within_range`]).
pub const TIME_LIMIT: f64 = 9_007_199_254_740_992.0;

/// The layout of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-separated values under a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// An Apache Parquet file.
    Parquet,
}

impl InputFormat {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [InputFormat; 3] = [InputFormat::Csv, InputFormat::Jsonl, InputFormat::Parquet];

    /// The format's name as the flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Parquet => "parquet",
        }
    }
}

impl std::str::FromStr for InputFormat {
    type Err = String;

    /// The format `--input-format` names: `csv`, `jsonl` or `parquet`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        InputFormat::ALL
            .into_iter()
            .find(|f| f.name() == text)
            .ok_or_else(|| format!("{} is not a format: csv, jsonl or parquet", quoted(text)))
    }
}

impl std::fmt::Display for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

pub use crate::times::TimeFormat;

/// Where a row's processing time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arrival {
    /// The processing-time column.
    #[default]
    Column,
    /// The file's order: a row's processing time is the largest event time read up to it.
    FileOrder,
    /// The wall clock: a row's processing time is when it arrived (the UI reading a live
    /// --input - only).
    Clock,
}

/// What a bad row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnBadRow {
    /// Stop with an error naming the row.
    #[default]
    Error,
    /// Skip it, count it and report it.
    Skip,
}

impl Arrival {
    /// Every arrival, in the order `--help` lists them.
    pub const ALL: [Arrival; 3] = [Arrival::Column, Arrival::FileOrder, Arrival::Clock];

    /// The arrival's name as `--arrival` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Column => "column",
            Arrival::FileOrder => "file-order",
            Arrival::Clock => "clock",
        }
    }
}

impl std::str::FromStr for Arrival {
    type Err = String;

    /// The arrival `--arrival` names: `column`, `file-order` or `clock`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Arrival::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| {
                format!(
                    "{} is not an arrival: column, file-order or clock",
                    quoted(text)
                )
            })
    }
}

impl std::fmt::Display for Arrival {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl OnBadRow {
    /// Both answers, in the order `--help` lists them.
    pub const ALL: [OnBadRow; 2] = [OnBadRow::Error, OnBadRow::Skip];

    /// The answer's name as `--on-bad-row` spells it.
    pub fn name(self) -> &'static str {
        match self {
            OnBadRow::Error => "error",
            OnBadRow::Skip => "skip",
        }
    }
}

impl std::str::FromStr for OnBadRow {
    type Err = String;

    /// What `--on-bad-row` names: `error` or `skip`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OnBadRow::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| format!("{} is not what a bad row does: error or skip", quoted(text)))
    }
}

impl std::fmt::Display for OnBadRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read an input: its format, its columns and what to do with a bad row.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceOptions {
    /// The format; `None` picks it by the file's extension or its first bytes.
    pub format: Option<InputFormat>,
    /// The event-time column.
    pub event_time_col: String,
    /// The processing-time column (not read with [`Arrival::FileOrder`]).
    pub proc_time_col: String,
    /// The key column.
    pub key_col: String,
    /// What a timestamp is; `None`: numbers are ms, texts are dates.
    pub time_format: Option<TimeFormat>,
    /// The zone a date without an offset is read in and every wall-clock time is written in;
    /// `None`: UTC, not named (so a log of such dates gets a note saying so).
    pub time_zone: Option<Zone>,
    /// Where processing times come from.
    pub arrival: Arrival,
    /// What a bad row does.
    pub on_bad_row: OnBadRow,
    /// The most events read into memory.
    pub max_rows: usize,
    /// Whether the events go to a temporary file as they are read (see [`crate::spool`]),
    /// to be replayed in order when the log is already in processing-time order.
    pub spool: bool,
    /// Where a spool hands on its events as it writes them (see [`crate::spool::Follower`]).
    pub follower: Option<crate::spool::Follower>,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            format: None,
            event_time_col: "event_time_ms".into(),
            proc_time_col: "proc_time_ms".into(),
            key_col: "key".into(),
            time_format: None,
            time_zone: None,
            arrival: Arrival::Column,
            on_bad_row: OnBadRow::Error,
            max_rows: MAX_ROWS,
            spool: false,
            follower: None,
        }
    }
}

/// What reading an input saw besides its events: rows skipped and rows with clock skew.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceReport {
    /// The input's name as errors give it.
    pub name: String,
    /// "line" or "row": what the numbers in `skipped_at` count.
    pub unit: &'static str,
    /// Events read.
    pub rows: u64,
    /// Bad rows skipped under `--on-bad-row skip`.
    pub skipped_rows: u64,
    /// The first skipped rows' numbers (at most [`FIRST_SKIPPED`]).
    pub skipped_at: Vec<u64>,
    /// The first skipped row's error.
    pub first_skip_reason: Option<String>,
    /// Rows whose processing time is before their event time (kept).
    pub clock_skew_rows: u64,
    /// What the times call for (dates without an offset read in UTC, numbers that look like
    /// another unit than ms), each a line naming the input ([`crate::times`]).
    pub time_notes: Vec<String>,
}

impl SourceReport {
    /// The lines to print on standard error: one for skipped rows, one for clock skew, none
    /// when there is nothing to say.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.skipped_rows > 0 {
            let at: Vec<String> = self.skipped_at.iter().map(u64::to_string).collect();
            let more = if self.skipped_rows > self.skipped_at.len() as u64 {
                ", …"
            } else {
                ""
            };
            let plural = if self.skipped_at.len() > 1 { "s" } else { "" };
            notes.push(format!(
                "{}: skipped {} bad row{} of {} ({}{plural} {}{more}); the first: {}",
                self.name,
                self.skipped_rows,
                if self.skipped_rows == 1 { "" } else { "s" },
                self.rows + self.skipped_rows,
                self.unit,
                at.join(", "),
                self.first_skip_reason.as_deref().unwrap_or("?")
            ));
        }
        if self.clock_skew_rows > 0 {
            notes.push(format!(
                "{}: {} of {} rows have a processing time before their event time (clock \
                 skew); they are kept",
                self.name, self.clock_skew_rows, self.rows
            ));
        }
        notes.extend(self.time_notes.iter().cloned());
        notes
    }
}

/// A timestamp as a reader found it: a number or a text.
#[derive(Debug, Clone, Copy)]
pub enum RawTime<'a> {
    /// A number in the format's unit, from a typed column (Parquet).
    Number(f64),
    /// A whole number in the format's unit, from a typed integer column or a timestamp
    /// (Parquet): exact, where a float past 2^53 is not.
    Integer(i128),
    /// A number in the format's unit as the user wrote it (a JSON number): read by the same
    /// parser as a CSV field, so that both formats give a time the same bits.
    Written(&'a str),
    /// A text: a number or a date.
    Text(&'a str),
}

/// A number from a typed column as an error shows it: Rust's shortest form that reads back
/// to the same value (`0.0`, `1.5`, `1e308`, `NaN`), quoted and cut as any value is.
pub fn number_shown(v: f64) -> String {
    quoted(&format!("{v:?}"))
}

/// A timestamp in ms from what a reader found (a date without an offset read in UTC), or
/// the reason it is not one (naming the column and the value).
pub fn time_ms(raw: RawTime<'_>, format: Option<TimeFormat>, column: &str) -> Result<f64> {
    read_time(raw, format, None, column).map(|(ms, _)| ms)
}

/// [`time_ms`], a date without an offset read in `zone` (UTC when `None`), and how the time
/// was spelled (which decides the log's clock and its notes, [`crate::times`]). The value is
/// quoted only for an error: this runs for every time field read, and building the text for
/// each valid one took about a quarter of a CSV read.
#[inline]
pub fn read_time(
    raw: RawTime<'_>,
    format: Option<TimeFormat>,
    zone: Option<&Zone>,
    column: &str,
) -> Result<(f64, Spelling)> {
    let mut spelling = Spelling::NUMBER;
    let ms = match raw {
        RawTime::Number(v) => {
            if format == Some(TimeFormat::Rfc3339) {
                bail!(
                    "{column} {} is a number, not a date (--time-format rfc3339)",
                    number_shown(v)
                );
            }
            format.map_or(v, |f| f.to_ms(v))
        }
        RawTime::Integer(v) => {
            if format == Some(TimeFormat::Rfc3339) {
                bail!(
                    "{column} {} is a number, not a date (--time-format rfc3339)",
                    quoted(&v.to_string())
                );
            }
            let v = v as f64;
            format.map_or(v, |f| f.to_ms(v))
        }
        RawTime::Written(text) => {
            if format == Some(TimeFormat::Rfc3339) {
                bail!(
                    "{column} {} is a number, not a date (--time-format rfc3339)",
                    quoted(text)
                );
            }
            let v = read_number(text)
                .ok_or_else(|| anyhow!("{column} {} is not a number", quoted(text)))?;
            format.map_or(v, |f| f.to_ms(v))
        }
        RawTime::Text(text) => {
            if text.is_empty() {
                bail!("{column} is missing (an empty field)");
            }
            match format {
                Some(TimeFormat::Rfc3339) => {
                    let (ms, spelled) = date(text, zone, column)?;
                    spelling = spelled;
                    ms
                }
                Some(f) => {
                    let v = read_number(text).ok_or_else(|| {
                        anyhow!(
                            "{column} {} is not a number of {} (--time-format {})",
                            quoted(text),
                            unit_word(f),
                            f.name()
                        )
                    })?;
                    f.to_ms(v)
                }
                None => match read_number(text) {
                    Some(v) => v,
                    None if looks_like_date(text) => {
                        let (ms, spelled) = date(text, zone, column)?;
                        spelling = spelled;
                        ms
                    }
                    None => bail!(
                        "{column} {} is not a number of milliseconds nor a date such as \
                         {DATE_EXAMPLE}",
                        quoted(text)
                    ),
                },
            }
        }
    };
    if !within_range(ms, raw, format) {
        let shown = match raw {
            RawTime::Number(v) => number_shown(v),
            RawTime::Integer(v) => quoted(&v.to_string()),
            RawTime::Written(text) | RawTime::Text(text) => quoted(text),
        };
        let hint = if format.is_none() && epoch_nanoseconds(ms) {
            "; it looks like epoch nanoseconds, which --time-format ns reads"
        } else {
            ""
        };
        bail!("{column} {shown} is out of range (finite, within ±2^53 ms){hint}");
    }
    Ok((ms, spelling))
}

/// Whether a time read as `ms` (from `raw` in `format`) lies within ±2^53 ms by the exact
/// value of what was read, the one range every reader keeps. Reading rounds (a text's digits
/// to a float, an integer past 2^53 to a float, a division by 1e3 or 1e6), and a value just
/// past the range rounds onto its edge: `9007199254740993` reads as 9007199254740992 ms, and
/// so does `9007199254740992001` µs. Each of those steps rounds to the nearest float, so
/// never past one, and the edge is a float in ms, µs and ns (in seconds, the float nearest
/// 9007199254740.992 lies just past it, and a thousand of it read as the edge), so a value
/// past the range never reads as less than the edge, nor one within it as more: a time read
/// inside the edge is within the range by one comparison, and only one read exactly on it is
/// checked again by what was read. NaN is never within.
#[inline]
pub fn within_range(ms: f64, raw: RawTime<'_>, format: Option<TimeFormat>) -> bool {
    let size = ms.abs();
    size < TIME_LIMIT || (size == TIME_LIMIT && on_the_edge_within(raw, format))
}

/// Whether `raw`, read as a time exactly on the edge of the range, lies within it by its
/// exact value: a number by its decimal digits, a date by its nanoseconds.
#[cold]
fn on_the_edge_within(raw: RawTime<'_>, format: Option<TimeFormat>) -> bool {
    match raw {
        // A float's digits to its last one (no f64 has more than 1074 after the point).
        RawTime::Number(v) => digits_within(&format!("{v:.1074}"), format),
        RawTime::Integer(v) => digits_within(&v.to_string(), format),
        RawTime::Written(text) => digits_within(text, format),
        RawTime::Text(text) => {
            let number = format != Some(TimeFormat::Rfc3339) && text.parse::<f64>().is_ok();
            if number {
                return digits_within(text, format);
            }
            date_nanos(text, None)
                .is_some_and(|(t, _)| t.unsigned_abs() <= (1u128 << 53) * 1_000_000)
        }
    }
}

/// Whether the number `text` (as a float is written: a sign, digits around a point, an
/// exponent), a time in `format`'s unit, lies within ±2^53 ms, compared digit by digit with
/// the edge in that unit (9007199254740992 ms, 9007199254740.992 s, 9007199254740992000 µs,
/// 9007199254740992000000 ns), so that no digit is lost, however many there are.
fn digits_within(text: &str, format: Option<TimeFormat>) -> bool {
    // The edge's significant digits, and how many of them come before the point.
    const EDGE: &[u8] = b"9007199254740992";
    let edge_point: i64 = match format {
        Some(TimeFormat::S) => 13,
        Some(TimeFormat::Us) => 19,
        Some(TimeFormat::Ns) => 22,
        Some(TimeFormat::Ms | TimeFormat::Rfc3339) | None => 16,
    };
    let text = text.trim_start_matches(['+', '-']);
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let exponent_digits = exponent.trim_start_matches(['+', '-']);
    let mut shift = exponent_digits.bytes().fold(0i64, |e, d| {
        e.saturating_mul(10)
            .saturating_add(i64::from(d.wrapping_sub(b'0')))
    });
    if exponent.starts_with('-') {
        shift = -shift;
    }
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).collect();
    let Some(first) = digits.iter().position(|&d| d != b'0') else {
        return true; // zero
    };
    let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(first);
    let point = (whole.len() as i64 - first as i64).saturating_add(shift);
    match point.cmp(&edge_point) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => digits[first..=last] <= *EDGE,
    }
}

impl TimeFormat {
    /// What the unit counts, as a note says it.
    pub(crate) fn words(self) -> &'static str {
        unit_word(self)
    }
}

fn unit_word(f: TimeFormat) -> &'static str {
    match f {
        TimeFormat::Ms => "milliseconds",
        TimeFormat::S => "seconds",
        TimeFormat::Us => "microseconds",
        TimeFormat::Ns => "nanoseconds",
        TimeFormat::Rfc3339 => "dates",
    }
}

/// Whether a text starts like a date (`2026-…`, or a year past 9999 with its sign), so that
/// its error speaks of dates.
fn looks_like_date(text: &str) -> bool {
    let b = text.as_bytes();
    let b = match b.first() {
        Some(b'+' | b'-') if b.len() > 7 && b[7] == b'-' => &b[3..],
        _ => b,
    };
    b.len() >= 5 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-'
}

/// The date `text` in ms and how it was spelled, or the error naming the spellings taken.
fn date(text: &str, zone: Option<&Zone>, column: &str) -> Result<(f64, Spelling)> {
    date_ms(text, zone).ok_or_else(|| {
        anyhow!(
            "{column} {} is not a date such as {DATE_EXAMPLE}",
            quoted(text)
        )
    })
}

/// Whether a number read as `ms` lies between 1990 and 2100 read as epoch nanoseconds.
#[cold]
fn epoch_nanoseconds(ms: f64) -> bool {
    let as_ms = ms / 1e6;
    (WALL_FROM_MS..WALL_UNTIL_MS).contains(&as_ms)
}

/// The rows read so far: events with interned keys, and what was skipped or skewed.
pub struct Rows<'o> {
    opts: &'o SourceOptions,
    keys: Vec<String>,
    ids: HashMap<String, u32, FxBuildHasher>,
    events: Vec<Event>,
    /// Where events go instead of `events` under [`SourceOptions::spool`].
    spool: Option<SpoolWriter>,
    /// Where the log passed [`SourceOptions::max_rows`] events, while spooling.
    over_at: Option<(String, u64)>,
    report: SourceReport,
    /// The largest event time read (for file-order arrival).
    max_event_time: f64,
    /// What the rows kept say of the log's clock.
    evidence: ClockEvidence,
}

impl<'o> Rows<'o> {
    /// No rows yet, from the input `name`, numbered by `unit` ("line" or "row").
    pub fn new(opts: &'o SourceOptions, name: &str, unit: &'static str) -> Self {
        Rows {
            opts,
            keys: Vec::new(),
            ids: HashMap::default(),
            events: Vec::new(),
            spool: None,
            over_at: None,
            report: SourceReport {
                name: name.to_string(),
                unit,
                ..SourceReport::default()
            },
            max_event_time: f64::NEG_INFINITY,
            evidence: ClockEvidence::default(),
        }
    }

    /// The options the rows are read with.
    pub fn options(&self) -> &'o SourceOptions {
        self.opts
    }

    /// Whether the processing time is read from a column.
    pub fn reads_proc_time(&self) -> bool {
        self.opts.arrival == Arrival::Column
    }

    /// Notes that a row about to be added had a time spelled so (a reader that
    /// read a date says so: its times alone would not tell a date in 1970 from a number).
    #[inline]
    pub fn spelled(&mut self, spelling: Spelling) {
        self.evidence.spelled(spelling);
    }

    /// Adds one good row, numbered `at`: times in ms (`proc_time` `None` under file-order
    /// arrival), its key checked.
    #[inline]
    pub fn push(
        &mut self,
        at: u64,
        event_time: f64,
        proc_time: Option<f64>,
        key: &str,
    ) -> Result<()> {
        self.check_room(at)?;
        let id = self.key_id(at, key)?;
        self.push_id(event_time, proc_time, id)
    }

    /// Reserves room for `rows` more events held in memory (as many as `--max-rows` allows),
    /// for a reader that knows how many it will read.
    pub fn reserve(&mut self, rows: usize) {
        if !self.opts.spool {
            let room = self.opts.max_rows.saturating_sub(self.events.len());
            self.events.reserve(rows.min(room));
        }
    }

    /// Refuses row `at` when the events held in memory are as many as `--max-rows` allows (a
    /// spooled log notes where it passed them, and goes on).
    #[inline]
    pub fn check_room(&mut self, at: u64) -> Result<()> {
        if self.opts.spool {
            if self.report.rows == self.opts.max_rows as u64 && self.over_at.is_none() {
                let unit = format!("{}, {}", self.report.name, self.report.unit);
                self.over_at = Some((unit, at));
            }
        } else if self.events.len() >= self.opts.max_rows {
            return Err(self.no_room(at));
        }
        Ok(())
    }

    /// The error of a row past `--max-rows` held in memory.
    #[cold]
    fn no_room(&self, at: u64) -> anyhow::Error {
        anyhow!(
            "{}, {} {at}: more than {} events, more than twoclocks sorts in memory: sort \
                 the log by processing time (e.g. `sort -t, -k2,2n`) and cut it into parts \
                 (`split -l {}`)",
            self.report.name,
            self.report.unit,
            self.opts.max_rows,
            self.opts.max_rows
        )
    }

    /// The id of a checked key, first met on row `at`: a new one for a key not seen before.
    #[inline]
    pub fn key_id(&mut self, at: u64, key: &str) -> Result<u32> {
        match self.ids.get(key) {
            Some(&id) => Ok(id),
            None => self.new_key(at, key),
        }
    }

    /// A key not seen before: its id, the next one.
    #[cold]
    fn new_key(&mut self, at: u64, key: &str) -> Result<u32> {
        if self.keys.len() >= u32::MAX as usize {
            bail!(
                "{}, {} {at}: too many distinct keys",
                self.report.name,
                self.report.unit
            );
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.to_string());
        self.ids.insert(key.to_string(), id);
        Ok(id)
    }

    /// Adds one good row whose key's id [`Rows::key_id`] gave, after [`Rows::check_room`]
    /// let it in.
    #[inline]
    pub fn push_id(&mut self, event_time: f64, proc_time: Option<f64>, id: u32) -> Result<()> {
        if event_time > self.max_event_time {
            self.max_event_time = event_time;
        }
        let proc_time = proc_time.unwrap_or(self.max_event_time);
        self.evidence.time(event_time);
        self.evidence.time(proc_time);
        if proc_time < event_time {
            self.report.clock_skew_rows += 1;
        }
        let e = Event {
            event_time,
            proc_time,
            key: id,
        };
        if self.opts.spool {
            let spool = match &mut self.spool {
                Some(s) => s,
                None => self
                    .spool
                    .insert(SpoolWriter::new(self.opts.follower.clone())?),
            };
            spool.push(&e, &self.keys)?;
        } else {
            self.events.push(e);
        }
        self.report.rows += 1;
        Ok(())
    }

    /// A bad row numbered `at`: the error under `--on-bad-row error`, counted and skipped
    /// under `skip`.
    pub fn bad(&mut self, at: u64, error: anyhow::Error) -> Result<()> {
        if self.opts.on_bad_row == OnBadRow::Error {
            return Err(error);
        }
        self.report.skipped_rows += 1;
        if self.report.skipped_at.len() < FIRST_SKIPPED {
            self.report.skipped_at.push(at);
        }
        if self.report.first_skip_reason.is_none() {
            self.report.first_skip_reason = Some(format!("{error:#}"));
        }
        Ok(())
    }

    /// The events (keys numbered in name order; in memory sorted stably by processing time,
    /// or spooled when they were read in that order), on the clock their times are on
    /// ([`crate::times`]), and the report; an input without events is an error.
    pub fn finish(self, header_only: &str) -> Result<(Events, SourceReport)> {
        let Rows {
            keys,
            mut events,
            spool,
            over_at,
            mut report,
            opts,
            evidence,
            ..
        } = self;
        let clock = evidence.clock(opts.time_zone.as_ref().unwrap_or(&Zone::utc()));
        report.time_notes = evidence.notes(&report.name, opts.time_format, opts.time_zone.as_ref());
        if report.rows == 0 {
            if report.skipped_rows > 0 {
                bail!(
                    "{}: every row is bad ({} skipped); the first: {}",
                    report.name,
                    report.skipped_rows,
                    report.first_skip_reason.as_deref().unwrap_or("?")
                );
            }
            bail!("{}: {header_only}", report.name);
        }
        // Key ids follow the names' order, so that output is ordered by key name whatever row a
        // key first appears on (a generated stream and its CSV give the same output).
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
        let mut new_id = vec![0u32; keys.len()];
        for (rank, &old) in order.iter().enumerate() {
            new_id[old as usize] = rank as u32;
        }
        let mut slots: Vec<Option<String>> = keys.into_iter().map(Some).collect();
        let keys = order
            .iter()
            .map(|&i| slots[i as usize].take().unwrap_or_default())
            .collect();
        if let Some(spool) = spool {
            let spool = spool.finish(new_id, keys, clock)?;
            if spool.is_sorted() {
                return Ok((Events::Spooled(spool), report));
            }
            // Out of order: sorted in memory, as without a spool.
            check_in_memory(spool.len(), opts.max_rows, over_at)?;
            return Ok((Events::Memory(spool.into_stream()?), report));
        }
        for e in &mut events {
            e.key = new_id[e.key as usize];
        }
        let stream = Stream {
            clock,
            ..Stream::from_unordered(events, keys)
        };
        Ok((Events::Memory(stream), report))
    }
}

/// Where the column `column` (named by the flag `flag`) is among the columns `found`, or
/// the error, prefixed by `at` (the input and where its columns are named), when it is not
/// there or is there twice.
pub fn find_column<S: AsRef<str>>(
    found: &[S],
    column: &str,
    flag: &str,
    at: &str,
) -> Result<usize> {
    let mut hits = found
        .iter()
        .enumerate()
        .filter(|(_, f)| f.as_ref() == column);
    match (hits.next(), hits.next()) {
        (Some((i, _)), None) => Ok(i),
        (Some((i, _)), Some((j, _))) => bail!(
            "{at}: the column {} ({flag}) appears twice, as columns {} and {}; each column is \
             named once",
            quoted(column),
            i + 1,
            j + 1
        ),
        (None, _) => {
            let listed: Vec<String> = found.iter().map(|f| quoted(f.as_ref())).collect();
            bail!(
                "{at}: no column {} ({flag}); the columns found are {}",
                quoted(column),
                listed.join(", ")
            )
        }
    }
}

/// Checks a key: not empty, no control character (which would reach the terminal).
pub fn check_key(key: &str, column: &str) -> Result<()> {
    if key.is_empty() {
        bail!("{column} is empty: every event needs a key");
    }
    // C0 controls, DEL and the C1 controls (UTF-8 C2 80..C2 9F) are the only bytes to look at.
    if key.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
        if let Some(c) = key.chars().find(|c| c.is_control()) {
            bail!(
                "{column} {} holds a control character (U+{:04X}); keys must be printable",
                quoted(key),
                c as u32
            );
        }
    }
    Ok(())
}

/// What a reading gave, as one text to compare: the keys, the events and the report, or the
/// error with its causes. The readers' tests compare two ways of reading by it.
#[cfg(test)]
pub(crate) fn outcome(result: Result<(Events, SourceReport)>) -> String {
    match result {
        Ok((events, report)) => match events.into_stream() {
            Ok(s) => format!("{:?} {:?} {report:?}", s.keys, s.events),
            Err(e) => format!("error reading the spool back: {e:#}"),
        },
        Err(e) => format!("error: {e:#}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_every_format() {
        let t = |raw, f| time_ms(raw, f, "t").map_err(|e| e.to_string());
        assert_eq!(t(RawTime::Text("1500"), None), Ok(1500.0));
        assert_eq!(t(RawTime::Number(1.5), Some(TimeFormat::S)), Ok(1500.0));
        assert_eq!(
            t(RawTime::Text("1500000"), Some(TimeFormat::Us)),
            Ok(1500.0)
        );
        assert_eq!(t(RawTime::Number(1.5e9), Some(TimeFormat::Ns)), Ok(1500.0));
        assert_eq!(t(RawTime::Text("1970-01-01T00:00:01.5Z"), None), Ok(1500.0));
        assert_eq!(
            t(
                RawTime::Text("1970-01-01T01:00:01.5+01:00"),
                Some(TimeFormat::Rfc3339)
            ),
            Ok(1500.0)
        );
        assert!(t(RawTime::Text("NaN"), None)
            .unwrap_err()
            .contains("out of range"));
        assert!(t(RawTime::Text(""), None).unwrap_err().contains("missing"));
        assert_eq!(
            t(RawTime::Text("2026-13-01T00:00:00Z"), None).unwrap_err(),
            "t '2026-13-01T00:00:00Z' is not a date such as 2013-01-01T05:15:00.250+01:00"
        );
        assert_eq!(
            t(RawTime::Text("soon"), None).unwrap_err(),
            "t 'soon' is not a number of milliseconds nor a date such as \
             2013-01-01T05:15:00.250+01:00"
        );
        assert_eq!(
            t(RawTime::Text("1357017300"), Some(TimeFormat::Rfc3339)).unwrap_err(),
            "t '1357017300' is not a date such as 2013-01-01T05:15:00.250+01:00"
        );
        // A number of nanoseconds read as milliseconds is out of range, and says what it is.
        assert_eq!(
            t(RawTime::Text("1357017300000000000"), None).unwrap_err(),
            "t '1357017300000000000' is out of range (finite, within ±2^53 ms); it looks like \
             epoch nanoseconds, which --time-format ns reads"
        );
    }

    #[test]
    fn the_range_is_kept_by_the_exact_value_read() {
        let t = |raw, f| time_ms(raw, f, "t").map_err(|e| e.to_string());
        let ok = |raw, f| t(raw, f).is_ok();
        let (ms, s, us, ns) = (
            None,
            Some(TimeFormat::S),
            Some(TimeFormat::Us),
            Some(TimeFormat::Ns),
        );
        // Every one of these reads as a float exactly on the edge, 2^53 ms.
        for (text, format, within) in [
            ("9007199254740992", ms, true),
            ("-9007199254740992", ms, true),
            ("+9007199254740992.000", ms, true),
            ("0009007199254740992", ms, true),
            ("900719925474099200e-2", ms, true),
            ("0.9007199254740992E16", ms, true),
            ("9007199254740993", ms, false),
            ("-9007199254740993", ms, false),
            ("9007199254740992.00000000000000000001", ms, false),
            ("9007199254740992.5", ms, false),
            ("9007199254740.992", s, true),
            ("9007199254740.9921", s, false),
            ("9007199254740992000", us, true),
            ("9007199254740992001", us, false),
            ("9007199254740992000000", ns, true),
            ("9007199254740992000001", ns, false),
        ] {
            assert_eq!(ok(RawTime::Text(text), format), within, "{text} {format:?}");
            assert_eq!(
                ok(RawTime::Written(text), format),
                within,
                "{text} {format:?}"
            );
        }
        let edge = 1i128 << 53;
        assert!(ok(RawTime::Integer(edge), ms) && ok(RawTime::Integer(-edge), ms));
        assert!(!ok(RawTime::Integer(edge + 1), ms) && !ok(RawTime::Integer(-edge - 1), ms));
        assert!(ok(RawTime::Integer(edge * 1000), us));
        assert!(!ok(RawTime::Integer(edge * 1000 + 1), us));
        // A float is its own exact value: 9007199254740.992 s is 9007199254740.9921875.
        assert!(ok(RawTime::Number(9_007_199_254_740_992.0), ms));
        assert!(!ok(RawTime::Number(9_007_199_254_740.992), s));
        // A nanosecond epoch, within the range by far, and times nowhere near the edge.
        assert_eq!(
            t(RawTime::Integer(1_700_000_000_123_456_789), ns),
            Ok(1_700_000_000_123_456_789i64 as f64 / 1e6)
        );
        assert_eq!(
            t(RawTime::Text("1700000000123456789"), ns),
            Ok(1_700_000_000_123_456_789i64 as f64 / 1e6)
        );
        assert!(ok(RawTime::Text("0"), ms) && ok(RawTime::Text("-0.0e-999999999999999999999"), ms));
        assert!(!ok(RawTime::Text("NaN"), ms) && !ok(RawTime::Text("-inf"), ms));
    }
}
