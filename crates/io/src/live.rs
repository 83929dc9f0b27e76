//! Standard input read live, for the UI: CSV or JSON Lines parsed one line at a time as the
//! lines arrive, by the same row parsers as a file, and handed on in batches ([`Feed`]) while
//! the producer is still writing. A batch goes out whenever reading would wait for more input
//! (and at least every [`BATCH_ROWS`] rows), so a slow producer's rows show one by one and a
//! fast one's in large batches. Parquet (its footer comes last) and compressed input cannot be
//! read row by row: they are read whole, as a file is, and handed on at once.
//!
//! Processing times: a processing-time column, when the input has one (CSV: in its header;
//! JSON Lines: in its first row), is read as for a file. Without one, or with `--arrival
//! clock`, a row's processing time is its arrival time: the first row's event time plus the
//! whole milliseconds of wall-clock time since the first row arrived, so that the two clocks
//! start together. `--arrival file-order` keeps its rule (the largest event time read so far).
//!
//! The clock: each batch carries the clock of every row read so far ([`crate::times`]'s rule,
//! as a file's), so a live log of dates reads as dates from its first batch.
//!
//! Keys are numbered in order of first appearance (a file's are numbered in name order, which
//! a live input cannot know in advance): a key seen late gets the next number.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::rc::Rc;

use anyhow::{anyhow, Result};

use crate::csv::{header_columns, parse_row as csv_row, Columns, LogLines};
use crate::jsonl::parse_row as json_row;
use crate::source::{
    read_source_from, Arrival, InputFormat, OnBadRow, SourceOptions, SourceReport, GZIP_MAGIC,
    MAX_ROWS, PARQUET_MAGIC, ZSTD_MAGIC,
};
use crate::times::ClockEvidence;
use twoclocks_engine::clock::{Clock, Zone};
use twoclocks_engine::{Event, Stream};

/// The name standard input goes by in messages.
pub const NAME: &str = "standard input";

/// A batch goes out after at most this many rows, even if more are waiting.
pub const BATCH_ROWS: usize = 65_536;

/// Rows read since the last batch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    /// The rows, as events in the order they were read; their keys number the input's keys
    /// in order of first appearance.
    pub events: Vec<Event>,
    /// The keys seen for the first time since the last batch, in order: their numbers follow
    /// those of the keys before them.
    pub new_keys: Vec<String>,
    /// Bad rows skipped under `--on-bad-row skip`.
    pub skipped_rows: u64,
    /// Rows whose processing time is before their event time (kept).
    pub clock_skew_rows: u64,
    /// The clock of every row read so far, this batch's and the ones before it
    /// ([`crate::times`]): what the stream grown by them is on.
    pub clock: Clock,
}

/// What the reader hands on.
#[derive(Debug, Clone, PartialEq)]
pub enum Feed {
    /// Rows that arrived.
    Rows(Batch),
    /// The whole input at once (Parquet, or compressed), as a file is read: events sorted by
    /// processing time, keys in name order.
    Whole(Stream, SourceReport),
    /// The input has ended.
    Ended,
    /// Reading stopped: a bad row under `--on-bad-row error`, a read error, an input without
    /// events. The message names the line, the column and the value.
    Failed(String),
}

/// What reads the rows: where the columns are and where processing times come from.
enum Layout {
    Csv(Columns),
    Jsonl { reads_proc_time: bool },
}

/// The batch being filled, shared by the row loop and the reader under it (which sends it
/// before a read that would wait).
struct Outbox<S: FnMut(Feed) -> bool> {
    batch: Batch,
    send: S,
    /// The receiver has gone: stop reading.
    closed: bool,
    /// What the rows read so far say of their clock.
    evidence: ClockEvidence,
}

impl<S: FnMut(Feed) -> bool> Outbox<S> {
    fn flush(&mut self) {
        if self.closed || (self.batch.events.is_empty() && self.batch.skipped_rows == 0) {
            return;
        }
        let mut batch = std::mem::take(&mut self.batch);
        batch.clock = self.evidence.clock(&Zone::utc());
        self.closed = !(self.send)(Feed::Rows(batch));
    }

    fn send(&mut self, feed: Feed) {
        if !self.closed {
            self.closed = !(self.send)(feed);
        }
    }
}

/// The input under the line reader: before a read that would wait for the producer, the rows
/// read so far go out.
struct Flushing<R: Read, S: FnMut(Feed) -> bool> {
    inner: BufReader<R>,
    outbox: Rc<RefCell<Outbox<S>>>,
}

impl<R: Read, S: FnMut(Feed) -> bool> Read for Flushing<R, S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut outbox = self.outbox.borrow_mut();
        if self.inner.buffer().is_empty() {
            outbox.flush();
        }
        if outbox.closed {
            return Ok(0);
        }
        drop(outbox);
        self.inner.read(buf)
    }
}

/// Reads `reader` live with `opts` until it ends, the receiver goes (`send` answers false) or
/// a row stops it, handing on what it reads through `send`. `now` is the wall clock, ms (any
/// origin): a row's arrival time when it carries no processing time.
pub fn read_live<R: Read>(
    reader: R,
    opts: &SourceOptions,
    now: impl FnMut() -> f64,
    send: impl FnMut(Feed) -> bool,
) {
    let outbox = Rc::new(RefCell::new(Outbox {
        batch: Batch::default(),
        send,
        closed: false,
        evidence: ClockEvidence::default(),
    }));
    let result = read_rows(reader, opts, now, &outbox);
    let mut o = outbox.borrow_mut();
    o.flush();
    match result {
        Ok(()) => o.send(Feed::Ended),
        Err(e) => o.send(Feed::Failed(format!("{e:#}"))),
    }
}

/// The row loop: the format from the flag or the first bytes, then one row at a time.
fn read_rows<R: Read, S: FnMut(Feed) -> bool>(
    reader: R,
    opts: &SourceOptions,
    mut now: impl FnMut() -> f64,
    outbox: &Rc<RefCell<Outbox<S>>>,
) -> Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, reader);
    let head = input
        .fill_buf()
        .map_err(|e| anyhow!("{NAME}: cannot read ({e})"))?;
    if head.is_empty() {
        return Err(anyhow!(
            "{NAME}: the input is empty: it holds no events (not even a header)"
        ));
    }
    let packed = [GZIP_MAGIC, ZSTD_MAGIC, PARQUET_MAGIC]
        .iter()
        .any(|m| head.starts_with(m));
    if packed || opts.format == Some(InputFormat::Parquet) {
        // Not readable row by row: read whole, as a file is.
        let whole = SourceOptions {
            arrival: match opts.arrival {
                Arrival::Clock => Arrival::FileOrder,
                a => a,
            },
            ..opts.clone()
        };
        let (stream, report) = read_source_from(input, NAME, None, &whole)?;
        outbox.borrow_mut().send(Feed::Whole(stream, report));
        return Ok(());
    }
    let json = match opts.format {
        Some(f) => f == InputFormat::Jsonl,
        None => head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'),
    };
    let mut lines = LogLines::new(
        Flushing {
            inner: input,
            outbox: outbox.clone(),
        },
        NAME,
    );
    let mut layout = if json {
        None
    } else {
        let Some((_, header)) = lines.next_line()? else {
            return Ok(());
        };
        let proc_time = match opts.arrival {
            Arrival::Column => None,
            Arrival::FileOrder | Arrival::Clock => Some(false),
        };
        Some(Layout::Csv(
            header_columns(header?, NAME, opts, proc_time)?.0,
        ))
    };
    let mut keys: HashMap<String, u32> = HashMap::new();
    let mut ranges = Vec::new();
    let mut rows = 0usize;
    let mut skipped = 0u64;
    // The first row's event time and arrival: the arrival clock's zero.
    let mut zero: Option<(f64, f64)> = None;
    let mut max_event_time = f64::NEG_INFINITY;
    while let Some((line, text)) = lines.next_line()? {
        let layout = layout.get_or_insert_with(|| Layout::Jsonl {
            reads_proc_time: opts.arrival == Arrival::Column
                && text
                    .as_ref()
                    .is_ok_and(|t| has_member(t, &opts.proc_time_col)),
        });
        let parsed = text.and_then(|text| match layout {
            Layout::Csv(columns) => csv_row(text, NAME, line, columns, &mut ranges, opts)
                .map(|(et, pt, key, spelling)| (et, pt, key.into_owned(), spelling)),
            Layout::Jsonl { reads_proc_time } => json_row(text, opts, *reads_proc_time)
                .map(|(et, pt, key, spelling)| (et, pt, key.into_owned(), spelling))
                .map_err(|e| anyhow!("{NAME}, line {line}: {e}")),
        });
        let (event_time, proc_time, key, spelling) = match parsed {
            Ok(row) => row,
            Err(e) if opts.on_bad_row == OnBadRow::Error => return Err(e),
            Err(_) => {
                skipped += 1;
                outbox.borrow_mut().batch.skipped_rows += 1;
                continue;
            }
        };
        if rows >= MAX_ROWS.min(opts.max_rows) {
            return Err(anyhow!(
                "{NAME}, line {line}: more than {} events, more than the UI holds: stop the \
                 producer sooner or cut its output",
                MAX_ROWS.min(opts.max_rows)
            ));
        }
        rows += 1;
        max_event_time = max_event_time.max(event_time);
        let arrived = now();
        let (et0, at0) = *zero.get_or_insert((event_time, arrived));
        let proc_time = match (proc_time, opts.arrival) {
            (Some(pt), _) => pt,
            (None, Arrival::FileOrder) => max_event_time,
            (None, _) => et0 + (arrived - at0).max(0.0).floor(),
        };
        let mut o = outbox.borrow_mut();
        o.evidence.spelled(spelling);
        o.evidence.time(event_time);
        o.evidence.time(proc_time);
        let next = keys.len() as u32;
        let id = *keys.entry(key).or_insert_with_key(|k| {
            o.batch.new_keys.push(k.clone());
            next
        });
        if proc_time < event_time {
            o.batch.clock_skew_rows += 1;
        }
        o.batch.events.push(Event {
            event_time,
            proc_time,
            key: id,
        });
        if o.batch.events.len() >= BATCH_ROWS {
            o.flush();
        }
        if o.closed {
            return Ok(());
        }
    }
    if rows == 0 {
        return Err(match skipped {
            0 => anyhow!("{NAME}: the input ended without any event"),
            n => anyhow!("{NAME}: every row is bad ({n} skipped)"),
        });
    }
    Ok(())
}

/// Whether a JSON Lines row has the member `name` (not null): its first row says whether the
/// input carries processing times.
fn has_member(text: &str, name: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get(name).filter(|m| !m.is_null()).map(|_| ()))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(input: &str, opts: &SourceOptions) -> Vec<Feed> {
        let mut out = Vec::new();
        let mut clock = 0.0;
        read_live(
            input.as_bytes(),
            opts,
            || {
                clock += 250.0;
                clock
            },
            |f| {
                out.push(f);
                true
            },
        );
        out
    }

    fn events(feeds: &[Feed]) -> Vec<(f64, f64, u32)> {
        feeds
            .iter()
            .flat_map(|f| match f {
                Feed::Rows(b) => b.events.clone(),
                _ => Vec::new(),
            })
            .map(|e| (e.event_time, e.proc_time, e.key))
            .collect()
    }

    #[test]
    fn rows_without_processing_times_arrive_by_the_clock_from_the_first_event_time() {
        let opts = SourceOptions::default();
        let out = feed(
            "{\"event_time_ms\": 5000, \"key\": \"b\"}\n{\"event_time_ms\": 5100, \"key\": \"a\"}\n",
            &opts,
        );
        assert_eq!(events(&out), vec![(5000.0, 5000.0, 0), (5100.0, 5250.0, 1)]);
        assert_eq!(out.last(), Some(&Feed::Ended));
        let keys: Vec<String> = out
            .iter()
            .flat_map(|f| match f {
                Feed::Rows(b) => b.new_keys.clone(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(keys, ["b", "a"], "keys in order of first appearance");
    }

    #[test]
    fn a_processing_time_column_is_read_unless_the_clock_is_asked_for() {
        let csv = "event_time_ms,proc_time_ms,key\n1000,1500,a\n900,1600,a\n";
        let out = feed(csv, &SourceOptions::default());
        assert_eq!(events(&out), vec![(1000.0, 1500.0, 0), (900.0, 1600.0, 0)]);
        let clock = SourceOptions {
            arrival: Arrival::Clock,
            ..SourceOptions::default()
        };
        let out = feed(csv, &clock);
        assert_eq!(events(&out), vec![(1000.0, 1000.0, 0), (900.0, 1250.0, 0)]);
    }

    #[test]
    fn a_bad_row_stops_reading_or_is_counted() {
        let jsonl = "{\"event_time_ms\": 1, \"key\": \"a\"}\n{\"event_time_ms\": \"x\", \"key\": \"a\"}\n{\"event_time_ms\": 2, \"key\": \"a\"}\n";
        let out = feed(jsonl, &SourceOptions::default());
        match out.last() {
            Some(Feed::Failed(e)) => assert!(
                e.contains("line 2") && e.contains("event_time_ms") && e.contains("'x'"),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(events(&out).len(), 1, "the rows before it are handed on");
        let skip = SourceOptions {
            on_bad_row: OnBadRow::Skip,
            ..SourceOptions::default()
        };
        let out = feed(jsonl, &skip);
        assert_eq!(events(&out).len(), 2);
        let skipped: u64 = out
            .iter()
            .map(|f| match f {
                Feed::Rows(b) => b.skipped_rows,
                _ => 0,
            })
            .sum();
        assert_eq!(skipped, 1);
        assert_eq!(out.last(), Some(&Feed::Ended));
    }

    #[test]
    fn an_empty_input_and_a_missing_column_say_so() {
        let out = feed("", &SourceOptions::default());
        assert!(matches!(&out[..], [Feed::Failed(e)] if e.contains("empty")));
        let out = feed("time,key\n1,a\n", &SourceOptions::default());
        assert!(
            matches!(&out[..], [Feed::Failed(e)] if e.contains("no column 'event_time_ms'")),
            "{out:?}"
        );
    }
}
