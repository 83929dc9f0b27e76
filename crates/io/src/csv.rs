//! Event logs as CSV (`event_time_ms,proc_time_ms,key`): reading a user's log into a
//! [`Stream`] (sorted into processing order, every bad row an error naming its line), and
//! writing a stream out, as CSV or JSON Lines, with floats at full round-trip precision.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use rustc_hash::FxBuildHasher;
use twoclocks_engine::Stream;

use crate::quote::quoted;
use crate::rows::{check_key, find_column, read_time, RawTime, Rows, SourceOptions, SourceReport};
use crate::spool::Events;
use crate::times::Spelling;

/// The header an event log must start with.
pub const HEADER: [&str; 3] = ["event_time_ms", "proc_time_ms", "key"];

/// The longest line read, in bytes (with its line ending).
const MAX_LINE_BYTES: usize = 16 << 20;

/// Reads an event log in the standard CSV layout from a file.
pub fn read_events(path: &Path) -> Result<Stream> {
    let name = crate::quote::path(path);
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
    read_events_from(file, &name)
}

/// Reads an event log in the standard layout; `name` is used in error messages.
///
/// One event per line: `event_time_ms,proc_time_ms,key`, after the header. Lines end in LF or
/// CRLF. Spaces and tabs around a field are trimmed; a field in double quotes is taken as it is
/// (`""` is a quote), so a key may hold commas and outer spaces. A blank line, a key with a
/// control character and a quote that does not close on its line are errors naming the line
/// (and the column, counted in characters from 1): nothing is skipped.
pub fn read_events_from<R: Read>(reader: R, name: &str) -> Result<Stream> {
    read_rows(reader, name, &SourceOptions::default())?
        .0
        .into_stream()
}

/// Where the columns read are in a row.
pub(crate) struct Columns {
    event_time: usize,
    /// The processing-time column, when it is read.
    pub(crate) proc_time: Option<usize>,
    key: usize,
    /// How many fields a row has.
    count: usize,
}

/// Reads CSV rows with the header's columns named by `opts` (any other columns are ignored).
pub fn read_rows<R: Read>(
    reader: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let mut lines = LogLines::new(reader, name);
    let (_, header) = lines.next_line()?.ok_or_else(|| {
        anyhow!(
            "{name}, line 1: the file is empty; it must start with a header such as `{}`",
            HEADER.join(",")
        )
    })?;
    let header = header?;
    let mut rows = Rows::new(opts, name, "line");
    let (columns, header_line) = header_columns(header, name, opts, Some(rows.reads_proc_time()))?;
    let parser = CsvRows {
        name,
        columns: &columns,
        opts,
    };
    read_in_two(&mut lines, &mut rows, name, &parser)?;
    rows.finish(&format!(
        "the file holds a header and no events (line 1: {})",
        quoted(&header_line)
    ))
}

/// Bytes of whole lines a chunk holds: enough that a chunk's hand-over costs nothing beside
/// its rows, few enough that both threads start at once.
const CHUNK_BYTES: usize = 1 << 18;

/// Lines read, for a thread to parse: their bytes one after another, in parts, and room for
/// their rows (every buffer is handed back and used again, chunk after chunk).
#[derive(Default)]
struct Chunk {
    text: Vec<u8>,
    parts: Vec<Part>,
    rows: Vec<ParsedRow>,
}

/// Lines of a chunk: whole lines taken from the input at once, each ending in a line feed,
/// split where they are parsed; or one line taken alone, with its span of the chunk's text or
/// why it is no row (not UTF-8, blank).
enum Part {
    Lines { from: usize, to: usize, first: u64 },
    Line(u64, Result<(usize, usize)>),
}

/// A row as parsed: its line's number and its event time, processing time (if read), key
/// (numbered by the [`KeyBook`] of the thread that parsed it) and how its times were
/// spelled; or the line's error.
struct ParsedRow {
    line: u64,
    row: Result<(f64, Option<f64>, u32, Spelling)>,
}

/// A chunk's rows as parsed, the keys its parser met first in it (in the order it numbered
/// them), and the chunk's buffers, to be used again.
struct Parsed {
    rows: Vec<ParsedRow>,
    new_keys: Vec<String>,
    text: Vec<u8>,
    parts: Vec<Part>,
}

/// A line's row: its event time, its processing time (if read), its key and how its times
/// were spelled (a date in either makes it [`Spelling::DATE`]).
pub(crate) type LineRow<'t> = (f64, Option<f64>, Cow<'t, str>, Spelling);

/// How a log's lines become rows, for [`read_in_two`]: a line's event time, processing time
/// (when read) and key, or the reason it is no row (naming the input and the line).
pub(crate) trait RowParser: Sync {
    /// Parses line number `line`; `scratch` is the thread's own, to be reused.
    fn parse<'t>(
        &self,
        text: &'t str,
        line: u64,
        scratch: &mut Vec<(usize, usize)>,
    ) -> Result<LineRow<'t>>;
}

/// A CSV log's rows, under its header's columns.
struct CsvRows<'a> {
    name: &'a str,
    columns: &'a Columns,
    opts: &'a SourceOptions,
}

impl RowParser for CsvRows<'_> {
    fn parse<'t>(
        &self,
        text: &'t str,
        line: u64,
        scratch: &mut Vec<(usize, usize)>,
    ) -> Result<LineRow<'t>> {
        parse_row(text, self.name, line, self.columns, scratch, self.opts)
    }
}

/// The keys one parsing thread has met, each numbered in the order it first met them, so
/// that a row carries a number and the thread adding the rows looks a key's name up once. A
/// key of at most seven bytes is looked up as one word (its bytes and its length), which is
/// hashed by one multiplication where a text is hashed byte by byte.
#[derive(Default)]
struct KeyBook {
    short: HashMap<u64, u32, FxBuildHasher>,
    long: HashMap<String, u32, FxBuildHasher>,
}

impl KeyBook {
    /// The number of `key`, a new one (its name added to `new_keys`) for a key not met before.
    #[inline]
    fn number(&mut self, key: &str, new_keys: &mut Vec<String>) -> u32 {
        let next = (self.short.len() + self.long.len()) as u32;
        let id = match short_key(key) {
            Some(word) => *self.short.entry(word).or_insert(next),
            None => match self.long.get(key) {
                Some(&id) => id,
                None => *self.long.entry(key.to_string()).or_insert(next),
            },
        };
        if id == next {
            new_keys.push(key.to_string());
        }
        id
    }
}

/// A key of at most seven bytes as one word: its bytes, and its length in the last byte, so
/// that no two keys are the same word.
#[inline]
fn short_key(key: &str) -> Option<u64> {
    let bytes = key.as_bytes();
    if bytes.len() > 7 {
        return None;
    }
    // Read from the key in place, in at most two loads that may overlap: bytes copied to a
    // word and then read as one wait for the copy.
    let n = bytes.len();
    let four = |at: usize| {
        let mut b = [0u8; 4];
        b.copy_from_slice(&bytes[at..at + 4]);
        u64::from(u32::from_le_bytes(b))
    };
    let word = match n {
        0 => 0,
        1..=3 => {
            let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        _ => four(0) | (four(n - 4) << (8 * (n - 4))),
    };
    Some(word | (n as u64) << 56)
}

/// One parsing thread's state: its keys and its scratch space.
#[derive(Default)]
struct ChunkParser {
    book: KeyBook,
    scratch: Vec<(usize, usize)>,
}

impl ChunkParser {
    /// Parses a chunk's lines into rows, in line order.
    fn parse(&mut self, chunk: Chunk, parser: &impl RowParser, name: &str) -> Parsed {
        let Chunk {
            text,
            mut parts,
            mut rows,
        } = chunk;
        let mut new_keys = Vec::new();
        let mut row = |line: u64, text: Result<&str>| {
            let row = text.and_then(|text| {
                let (et, pt, key, spelling) = parser.parse(text, line, &mut self.scratch)?;
                Ok((et, pt, self.book.number(&key, &mut new_keys), spelling))
            });
            rows.push(ParsedRow { line, row });
        };
        for part in parts.drain(..) {
            match part {
                Part::Lines { from, to, first } => {
                    each_line(&text[from..to], first, name, &mut row)
                }
                Part::Line(line, span) => row(
                    line,
                    span.map(|(from, to)| {
                        // A line's span is of text it checked.
                        std::str::from_utf8(&text[from..to]).unwrap_or_default()
                    }),
                ),
            }
        }
        Parsed {
            rows,
            new_keys,
            text,
            parts,
        }
    }
}

/// Each line of `block` (whole lines, each ending in a line feed, the first numbered
/// `first`) as [`LogLines::next_line`] gives it: its text without its line ending, or why it
/// is no row.
fn each_line(block: &[u8], first: u64, name: &str, mut f: impl FnMut(u64, Result<&str>)) {
    let mut line = first;
    let mut start = 0;
    // One check for the whole block, unless a line in it is not UTF-8.
    if let Ok(whole) = std::str::from_utf8(block) {
        for end in memchr::memchr_iter(b'\n', block) {
            f(line, line_text(&whole[start..=end], name, line));
            line += 1;
            start = end + 1;
        }
        return;
    }
    for end in memchr::memchr_iter(b'\n', block) {
        let raw = &block[start..=end];
        let text = std::str::from_utf8(raw).map_err(|e| not_utf8(name, line, raw, e));
        f(line, text.and_then(|raw| line_text(raw, name, line)));
        line += 1;
        start = end + 1;
    }
}

/// The key names of the rows one parsing thread numbered, for the thread adding the rows:
/// each number's id among the rows' keys once a row with it has been added.
#[derive(Default)]
struct KeyIds {
    names: Vec<String>,
    ids: Vec<Option<u32>>,
}

impl KeyIds {
    /// Adds a parsed chunk's rows to `rows`, in line order.
    fn add(&mut self, parsed: &mut Parsed, rows: &mut Rows<'_>) -> Result<()> {
        self.ids
            .resize(self.ids.len() + parsed.new_keys.len(), None);
        self.names.append(&mut parsed.new_keys);
        for ParsedRow { line, row } in parsed.rows.drain(..) {
            match row {
                Ok((et, pt, key, spelling)) => {
                    rows.spelled(spelling);
                    rows.check_room(line)?;
                    let key = key as usize;
                    let id = match self.ids.get(key).copied().flatten() {
                        Some(id) => id,
                        None => {
                            let name = self.names.get_mut(key).map(std::mem::take);
                            let id = rows.key_id(line, &name.unwrap_or_default())?;
                            if let Some(slot) = self.ids.get_mut(key) {
                                *slot = Some(id);
                            }
                            id
                        }
                    };
                    rows.push_id(et, pt, id)?
                }
                Err(e) => rows.bad(line, e)?,
            }
        }
        Ok(())
    }
}

/// One chunk of every [`LOCAL_EVERY`] is parsed by the reading thread itself, which also adds
/// every row: so that both threads are busy about as long.
const LOCAL_EVERY: usize = 3;

/// A chunk handed out, in the order its rows are to be added: parsed by the other thread, or
/// already here.
enum Pending {
    Away,
    Here(Parsed),
}

/// Reads the rows after the header on two threads: this one reads the lines, parses one chunk
/// in [`LOCAL_EVERY`] and adds the rows in order, the other parses the other chunks meanwhile.
/// Rows, their errors and their order are those of one thread: chunks' rows are added in line
/// order, and an error that stops the reading is given only after every row before it has been
/// added (so an earlier bad row's error comes first).
pub(crate) fn read_in_two<R: Read>(
    lines: &mut LogLines<'_, R>,
    rows: &mut Rows<'_>,
    name: &str,
    parser: &impl RowParser,
) -> Result<()> {
    use std::collections::VecDeque;
    use std::sync::mpsc::sync_channel;
    std::thread::scope(|scope| {
        let (to_parser, chunks) = sync_channel::<Chunk>(3);
        let (to_reader, parsed) = sync_channel::<Parsed>(3);
        scope.spawn(move || {
            let mut away = ChunkParser::default();
            for chunk in chunks {
                if to_reader.send(away.parse(chunk, parser, name)).is_err() {
                    return;
                }
            }
        });
        let stopped = || anyhow!("{name}: the thread parsing the rows stopped");
        let mut here = ChunkParser::default();
        let (mut away_ids, mut here_ids) = (KeyIds::default(), KeyIds::default());
        let mut spare: Vec<Chunk> = Vec::new();
        let mut pending: VecDeque<Pending> = VecDeque::new();
        let mut away = 0usize;
        let mut stop = None;
        for n in 0.. {
            let mut chunk = spare.pop().unwrap_or_default();
            chunk.text.clear();
            let done = match lines.read_lines(&mut chunk.text, &mut chunk.parts, CHUNK_BYTES) {
                Ok(ended) => ended,
                Err(e) => {
                    stop = Some(e);
                    true
                }
            };
            if !chunk.parts.is_empty() {
                if n % LOCAL_EVERY == LOCAL_EVERY - 1 {
                    pending.push_back(Pending::Here(here.parse(chunk, parser, name)));
                } else {
                    to_parser.send(chunk).map_err(|_| stopped())?;
                    pending.push_back(Pending::Away);
                    away += 1;
                }
            }
            // Rows are added once the other thread has more to do, or at the end.
            while away > 2 || (done && !pending.is_empty()) {
                let Some(next) = pending.pop_front() else {
                    break;
                };
                let (ids, mut p) = match next {
                    Pending::Here(p) => (&mut here_ids, p),
                    Pending::Away => {
                        away -= 1;
                        (&mut away_ids, parsed.recv().map_err(|_| stopped())?)
                    }
                };
                ids.add(&mut p, rows)?;
                spare.push(Chunk {
                    text: p.text,
                    parts: p.parts,
                    rows: p.rows,
                });
            }
            if done {
                break;
            }
        }
        match stop {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

fn header_text(found: &[&str]) -> String {
    found.join(",")
}

/// Where the columns named by `opts` are in a header line, and the header as read; the
/// processing-time column is looked for when `proc_time` is `Some(true)`, left out with
/// `Some(false)`, and taken if it is there with `None`.
pub(crate) fn header_columns(
    header: &str,
    name: &str,
    opts: &SourceOptions,
    proc_time: Option<bool>,
) -> Result<(Columns, String)> {
    let got = split_fields(header, name, 1)?;
    let found: Vec<&str> = got.iter().map(|f| f.text.as_ref()).collect();
    let at = format!("{name}, line 1");
    let find = |column: &str, flag: &str| find_column(&found, column, flag, &at);
    let columns = Columns {
        event_time: find(&opts.event_time_col, "--event-time-col")?,
        proc_time: match proc_time {
            Some(true) => Some(find(&opts.proc_time_col, "--proc-time-col")?),
            Some(false) => None,
            None => find(&opts.proc_time_col, "--proc-time-col").ok(),
        },
        key: find(&opts.key_col, "--key-col")?,
        count: found.len(),
    };
    Ok((columns, header_text(&found)))
}

/// One row's event time, processing time (if read), key and how its times were spelled.
pub(crate) fn parse_row<'t>(
    text: &'t str,
    name: &str,
    line: u64,
    columns: &Columns,
    ranges: &mut Vec<(usize, usize)>,
    opts: &SourceOptions,
) -> Result<LineRow<'t>> {
    let at = |e: anyhow::Error| anyhow!("{name}, line {line}: {e}");
    // Most rows hold no quote: their fields are split on the bytes, without allocating.
    let bytes = text.as_bytes();
    let split = if split_plain(bytes, ranges) {
        if ranges.len() != columns.count {
            return Err(wrong_count(name, line, columns.count, ranges.len()));
        }
        Split::Plain(ranges)
    } else {
        let fields = split_fields(text, name, line)?;
        if fields.len() != columns.count {
            return Err(wrong_count(name, line, columns.count, fields.len()));
        }
        Split::Quoted(fields)
    };
    let field = |i: usize| -> (Cow<'t, str>, Place) {
        match &split {
            Split::Plain(ranges) => {
                // Spaces and tabs (FIELD_SPACE) trimmed by their bytes.
                let (mut a, mut b) = ranges[i];
                while a < b && matches!(bytes[a], b' ' | b'\t') {
                    a += 1;
                }
                while b > a && matches!(bytes[b - 1], b' ' | b'\t') {
                    b -= 1;
                }
                (Cow::Borrowed(&text[a..b]), Place::Byte(a))
            }
            Split::Quoted(fields) => {
                let f = &fields[i];
                (f.text.clone(), Place::Column(f.column + f.quoted as usize))
            }
        }
    };
    let (et, _) = field(columns.event_time);
    let (et, mut spelling) = read_time(
        RawTime::Text(&et),
        opts.time_format,
        opts.time_zone.as_ref(),
        &opts.event_time_col,
    )
    .map_err(at)?;
    let pt = match columns.proc_time {
        Some(i) => {
            let (pt, _) = field(i);
            let (pt, spelled) = read_time(
                RawTime::Text(&pt),
                opts.time_format,
                opts.time_zone.as_ref(),
                &opts.proc_time_col,
            )
            .map_err(at)?;
            spelling = spelling.or(spelled);
            Some(pt)
        }
        None => None,
    };
    let (key, place) = field(columns.key);
    if let Err(e) = check_key(&key, &opts.key_col) {
        let column = match place {
            Place::Byte(start) => text[..start].chars().count() + 1,
            Place::Column(column) => column,
        };
        let offset = key.chars().position(char::is_control);
        return Err(match offset {
            Some(i) => anyhow!("{name}, line {line}, column {}: {e}", column + i),
            None => at(e),
        });
    }
    Ok((et, pt, key, spelling))
}

/// Splits a line that holds no quote at its commas, each field's byte range pushed to
/// `ranges` (cleared first), eight bytes at a time; `false` (and `ranges` of no use) when the
/// line holds a quote.
#[inline]
fn split_plain(bytes: &[u8], ranges: &mut Vec<(usize, usize)>) -> bool {
    ranges.clear();
    let mut from = 0;
    let mut at = 0;
    while let Some(eight) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(eight);
        let v = u64::from_le_bytes(word);
        if bytes_equal(v, b'"') != 0 {
            return false;
        }
        let mut commas = bytes_equal(v, b',');
        while commas != 0 {
            let comma = at + (commas.trailing_zeros() / 8) as usize;
            ranges.push((from, comma));
            from = comma + 1;
            commas &= commas - 1;
        }
        at += 8;
    }
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        if b == b',' {
            ranges.push((from, i));
            from = i + 1;
        } else if b == b'"' {
            return false;
        }
    }
    ranges.push((from, bytes.len()));
    true
}

/// The high bit of each byte of `v` that is `b`, and no other bit: exact, as no carry crosses
/// from one byte to the next.
#[inline]
fn bytes_equal(v: u64, b: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = v ^ (u64::from(b) * 0x0101_0101_0101_0101);
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Where a field's text starts: a byte offset into the line (its column is counted only when
/// an error needs it), or the column of a quoted field's first character.
enum Place {
    Byte(usize),
    Column(usize),
}

/// A row's fields: byte ranges of the line, or unquoted fields.
enum Split<'r, 't> {
    Plain(&'r [(usize, usize)]),
    Quoted(Vec<Field<'t>>),
}

fn wrong_count(name: &str, line: u64, expected: usize, found: usize) -> anyhow::Error {
    anyhow!("{name}, line {line}: expected {expected} fields as in the header, found {found}")
}

/// The lines of a log, numbered from 1, without their line ending; a blank line is an error.
pub(crate) struct LogLines<'n, R: Read> {
    reader: BufReader<R>,
    name: &'n str,
    buf: Vec<u8>,
    /// The number of the line last read.
    number: u64,
}

impl<'n, R: Read> LogLines<'n, R> {
    pub(crate) fn new(reader: R, name: &'n str) -> Self {
        LogLines::with_capacity(reader, name, 1 << 16)
    }

    /// Lines read through a buffer of `capacity` bytes.
    fn with_capacity(reader: R, name: &'n str, capacity: usize) -> Self {
        LogLines {
            reader: BufReader::with_capacity(capacity, reader),
            name,
            buf: Vec::new(),
            number: 0,
        }
    }

    /// The next line's number and text, `None` at the end of the input.
    /// A line that is not UTF-8 or blank is a bad row (the inner error); a read error or an
    /// endless line stops reading (the outer one).
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, Result<&str>)>> {
        let name = self.name;
        self.buf.clear();
        // Bounded, so that an endless line (`--input /dev/zero`) ends as an error.
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .with_context(|| format!("{name}, line {}: cannot read", self.number + 1))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let line = self.number;
        if n > MAX_LINE_BYTES {
            bail!(
                "{name}, line {line}: the line is longer than {} MiB; a line holds one event",
                MAX_LINE_BYTES >> 20
            );
        }
        let mut bytes = self.buf.as_slice();
        if line == 1 {
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        let text = std::str::from_utf8(bytes).map_err(|e| not_utf8(name, line, bytes, e));
        Ok(Some((
            line,
            text.and_then(|raw| line_text(raw, name, line)),
        )))
    }
}

impl<R: Read> LogLines<'_, R> {
    /// Reads lines, as [`LogLines::next_line`] gives them one by one, until `text` holds at
    /// least `max` bytes or the input ends: their bytes appended to `text`, in `parts`. Returns
    /// whether the input has ended. The whole lines the buffer holds are taken at once, as
    /// bytes (split and checked where they are parsed, [`each_line`]); anything else (the
    /// first line, a line longer than the buffer, the last line without its line ending)
    /// goes through `next_line`.
    fn read_lines(
        &mut self,
        text: &mut Vec<u8>,
        parts: &mut Vec<Part>,
        max: usize,
    ) -> Result<bool> {
        while text.len() < max {
            if self.number > 0 {
                let name = self.name;
                let buf = self
                    .reader
                    .fill_buf()
                    .with_context(|| format!("{name}, line {}: cannot read", self.number + 1))?;
                if let Some(last) = memchr::memrchr(b'\n', buf) {
                    let block = &buf[..=last];
                    let from = text.len();
                    text.extend_from_slice(block);
                    parts.push(Part::Lines {
                        from,
                        to: text.len(),
                        first: self.number + 1,
                    });
                    self.number += memchr::memchr_iter(b'\n', block).count() as u64;
                    self.reader.consume(last + 1);
                    continue;
                }
            }
            match self.next_line()? {
                Some((line, row)) => {
                    let span = row.map(|row| {
                        let from = text.len();
                        text.extend_from_slice(row.as_bytes());
                        (from, text.len())
                    });
                    parts.push(Part::Line(line, span));
                }
                None => return Ok(true),
            }
        }
        Ok(false)
    }
}

/// The error of line `line`, whose bytes `bytes` are not UTF-8 from where `e` says.
fn not_utf8(name: &str, line: u64, bytes: &[u8], e: std::str::Utf8Error) -> anyhow::Error {
    let column = String::from_utf8_lossy(&bytes[..e.valid_up_to()])
        .chars()
        .count()
        + 1;
    anyhow!("{name}, line {line}, column {column}: not UTF-8 text")
}

/// A line's text without its line ending, refused when blank.
fn line_text<'a>(raw: &'a str, name: &str, line: u64) -> Result<&'a str> {
    let bare = raw.strip_suffix('\n').unwrap_or(raw);
    let bare = bare.strip_suffix('\r').unwrap_or(bare);
    // Byte by byte, which stops at a row's first byte.
    if bare.bytes().all(|b| matches!(b, b' ' | b'\t')) {
        return Err(blank_line(name, line));
    }
    Ok(bare)
}

/// The error of a blank line.
fn blank_line(name: &str, line: u64) -> anyhow::Error {
    anyhow!("{name}, line {line}: the line is blank; remove it (or give --on-bad-row skip)")
}

/// What is trimmed around a field.
const FIELD_SPACE: [char; 2] = [' ', '\t'];

/// One field of a line: its text (unquoted, trimmed) and where it starts.
#[derive(Debug)]
struct Field<'t> {
    /// Borrowed from the line unless quotes had to be undone.
    text: Cow<'t, str>,
    /// The column (characters from 1) of its first character after the trimmed spaces: the
    /// opening quote of a quoted field.
    column: usize,
    quoted: bool,
}

/// Splits a line at its commas: spaces and tabs around a field are trimmed, a field in double
/// quotes is taken as it is (`""` is a quote).
fn split_fields<'t>(text: &'t str, name: &str, line: u64) -> Result<Vec<Field<'t>>> {
    let mut fields = Vec::with_capacity(3);
    let mut chars = text.char_indices().peekable();
    // The column of the next character.
    let mut column = 1;
    let space = |&(_, c): &(usize, char)| FIELD_SPACE.contains(&c);
    loop {
        while chars.next_if(space).is_some() {
            column += 1;
        }
        let start = column;
        let quoted_field = chars.next_if(|&(_, c)| c == '"').is_some();
        let field = if quoted_field {
            column += 1;
            let mut field = String::new();
            loop {
                match chars.next() {
                    None => bail!(
                        "{name}, line {line}, column {start}: the quote does not close on its \
                         line"
                    ),
                    Some((_, '"')) => {
                        column += 1;
                        if chars.next_if(|&(_, c)| c == '"').is_some() {
                            column += 1;
                            field.push('"');
                        } else {
                            break;
                        }
                    }
                    Some((_, c)) => {
                        column += 1;
                        field.push(c);
                    }
                }
            }
            while chars.next_if(space).is_some() {
                column += 1;
            }
            if chars.peek().is_some_and(|&(_, c)| c != ',') {
                bail!(
                    "{name}, line {line}, column {column}: only a comma may follow a quoted field"
                );
            }
            Cow::Owned(field)
        } else {
            let from = chars.peek().map_or(text.len(), |&(i, _)| i);
            let mut to = from;
            while let Some((i, c)) = chars.next_if(|&(_, c)| c != ',') {
                column += 1;
                to = i + c.len_utf8();
            }
            Cow::Borrowed(text[from..to].trim_end_matches(FIELD_SPACE))
        };
        fields.push(Field {
            text: field,
            column: start,
            quoted: quoted_field,
        });
        if chars.next().is_none() {
            return Ok(fields);
        }
        column += 1;
    }
}

/// Writes a stream as CSV with the standard header.
pub fn write_csv<W: Write>(stream: &Stream, out: W) -> Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "{}", HEADER.join(","))?;
    // Each key's field once, quoted where reading it back needs it.
    let keys: Vec<String> = stream.keys.iter().map(|k| key_field(k)).collect();
    for e in &stream.events {
        writeln!(
            w,
            "{},{},{}",
            e.event_time, e.proc_time, keys[e.key as usize]
        )?;
    }
    w.flush()?;
    Ok(())
}

/// A key as a CSV field: in double quotes (a quote doubled) when it holds a comma or a quote,
/// or starts or ends with a space or tab that reading would trim.
fn key_field(key: &str) -> String {
    let needs_quotes =
        key.contains([',', '"']) || key.starts_with(FIELD_SPACE) || key.ends_with(FIELD_SPACE);
    if needs_quotes {
        format!("\"{}\"", key.replace('"', "\"\""))
    } else {
        key.to_string()
    }
}

/// Writes a stream as JSON lines: `{"event_time_ms":…,"proc_time_ms":…,"key":"a"}`.
pub fn write_jsonl<W: Write>(stream: &Stream, mut out: W) -> Result<()> {
    for e in &stream.events {
        let row = serde_json::json!({
            "event_time_ms": e.event_time,
            "proc_time_ms": e.proc_time,
            "key": stream.key_name(e.key),
        });
        serde_json::to_writer(&mut out, &row)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::OnBadRow;

    /// Each line's number and text, or its error, as `next_line` gives them one by one, and
    /// how reading ended.
    fn line_by_line(input: &[u8], capacity: usize) -> (Vec<(u64, String)>, Option<String>) {
        let mut lines = LogLines::with_capacity(input, "t.csv", capacity);
        let mut got = Vec::new();
        loop {
            match lines.next_line() {
                Ok(Some((n, text))) => got.push((
                    n,
                    text.map_or_else(|e| format!("error: {e}"), str::to_string),
                )),
                Ok(None) => return (got, None),
                Err(e) => return (got, Some(e.to_string())),
            }
        }
    }

    /// The same by `read_lines`, at least `max` bytes at a time, each block split into its
    /// lines as a parsing thread splits it.
    fn by_blocks(
        input: &[u8],
        capacity: usize,
        max: usize,
    ) -> (Vec<(u64, String)>, Option<String>) {
        let mut lines = LogLines::with_capacity(input, "t.csv", capacity);
        let mut got = Vec::new();
        let shown = |row: Result<&str>| row.map_or_else(|e| format!("error: {e}"), str::to_string);
        loop {
            let mut text = Vec::new();
            let mut parts = Vec::new();
            let ended = lines.read_lines(&mut text, &mut parts, max);
            for part in parts {
                match part {
                    Part::Lines { from, to, first } => {
                        each_line(&text[from..to], first, "t.csv", |n, row| {
                            got.push((n, shown(row)))
                        })
                    }
                    Part::Line(n, span) => got.push((
                        n,
                        shown(span.map(|(a, b)| std::str::from_utf8(&text[a..b]).unwrap())),
                    )),
                }
            }
            match ended {
                Ok(true) => return (got, None),
                Ok(false) => {}
                Err(e) => return (got, Some(e.to_string())),
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// A thread's keys are numbered in the order it first met them, one number per name,
        /// short or long: names that differ in a byte or in their length (trailing NULs and
        /// spaces, seven bytes and eight) get different numbers, and each new one is listed
        /// once.
        #[test]
        fn keys_are_numbered_in_the_order_first_met(
            keys in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => "[ab]{1,2}",
                    2 => "[ab\\x00 ]{6,9}",
                    1 => "[a-z\\x00é]{0,12}",
                ],
                0..40,
            ),
        ) {
            let mut book = KeyBook::default();
            let mut new_keys = Vec::new();
            let mut first_met: Vec<&str> = Vec::new();
            for key in &keys {
                let want = match first_met.iter().position(|k| k == key) {
                    Some(i) => i,
                    None => {
                        first_met.push(key);
                        first_met.len() - 1
                    }
                };
                prop_assert_eq!(book.number(key, &mut new_keys) as usize, want, "{:?}", key);
            }
            prop_assert_eq!(new_keys, first_met);
        }

        /// Lines taken a buffer at a time are the lines taken one by one, error for error:
        /// CRLF and LF, blank and space-only lines, bytes that are not UTF-8, a byte-order
        /// mark, no line ending at the end, lines longer than the buffer.
        #[test]
        fn lines_by_blocks_are_lines_one_by_one(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => "[a-z0-9,.]{1,30}".prop_map(String::into_bytes),
                    1 => proptest::sample::select(vec!["", " ", "\t ", "é,ü", "\r", "a\rb"])
                        .prop_map(|s| s.as_bytes().to_vec()),
                    1 => proptest::collection::vec(proptest::num::u8::ANY, 0..6)
                        .prop_map(|v| v.into_iter().filter(|&b| b != b'\n').collect()),
                    1 => "[a-z]{100,300}".prop_map(String::into_bytes),
                ],
                0..80,
            ),
            crlf in proptest::bool::ANY,
            bom in proptest::bool::ANY,
            last_ending in proptest::bool::ANY,
            capacity in proptest::sample::select(vec![1usize, 7, 64, 4096]),
            max in 1usize..20,
        ) {
            let ending: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let mut input = Vec::new();
            if bom {
                input.extend_from_slice("\u{feff}".as_bytes());
            }
            for (i, l) in lines.iter().enumerate() {
                input.extend_from_slice(l);
                if i + 1 < lines.len() || last_ending {
                    input.extend_from_slice(ending);
                }
            }
            prop_assert_eq!(by_blocks(&input, capacity, max), line_by_line(&input, capacity));
        }
    }

    /// The rows after the header read on one thread, line by line: what [`read_in_two`] must
    /// give, error for error.
    fn read_in_one<R: Read>(
        lines: &mut LogLines<'_, R>,
        rows: &mut Rows<'_>,
        name: &str,
        columns: &Columns,
        opts: &SourceOptions,
    ) -> Result<()> {
        let mut ranges = Vec::with_capacity(columns.count);
        while let Some((line, text)) = lines.next_line()? {
            match text.and_then(|text| parse_row(text, name, line, columns, &mut ranges, opts)) {
                Ok((et, pt, key, spelling)) => {
                    rows.spelled(spelling);
                    rows.push(line, et, pt, &key)?
                }
                Err(e) => rows.bad(line, e)?,
            }
        }
        Ok(())
    }

    /// Reads `input` on two threads or one, as `read_rows` does: the events and report, or
    /// the error.
    fn reading(input: &[u8], opts: &SourceOptions, two: bool, fail_at: usize) -> String {
        let name = "t.csv";
        let mut lines = LogLines::new(
            Failing {
                bytes: input,
                at: 0,
                fail_at,
            },
            name,
        );
        let result = (|| -> Result<(Events, SourceReport)> {
            let (_, header) = lines.next_line()?.expect("a header");
            let mut rows = Rows::new(opts, name, "line");
            let (columns, _) = header_columns(header?, name, opts, Some(rows.reads_proc_time()))?;
            if two {
                let parser = CsvRows {
                    name,
                    columns: &columns,
                    opts,
                };
                read_in_two(&mut lines, &mut rows, name, &parser)?;
            } else {
                read_in_one(&mut lines, &mut rows, name, &columns, opts)?;
            }
            rows.finish("no events")
        })();
        crate::rows::outcome(result)
    }

    /// A reader that fails once `fail_at` bytes have been read.
    struct Failing<'b> {
        bytes: &'b [u8],
        at: usize,
        fail_at: usize,
    }

    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.at >= self.fail_at {
                return Err(std::io::Error::other("the disk went away"));
            }
            let n = buf
                .len()
                .min(self.bytes.len() - self.at)
                .min(self.fail_at - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn two_threads_read_what_one_does_error_for_error() {
        // Lines of 15 to 20 bytes: a chunk holds more than this many.
        const CHUNK_LINES: usize = CHUNK_BYTES / 20;
        let n = 3 * CHUNK_LINES * LOCAL_EVERY + 17;
        let mut good = String::from("event_time_ms,proc_time_ms,key\n");
        for i in 0..n {
            good.push_str(&format!("{}.5,{},k{}\n", i, i + 3, (i * 7) % 23));
        }
        // Bad rows in several chunks, parsed on either thread: a bad number, a blank line, a
        // short row, an empty key, and a line that is not UTF-8.
        let mut bad = good.clone().into_bytes();
        let mut at_line = |line: usize, with: &[u8]| {
            let mut starts = vec![0];
            starts.extend(
                bad.iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            );
            let (from, to) = (starts[line - 1], starts[line] - 1);
            bad.splice(from..to, with.iter().copied());
        };
        at_line(3, b"x,1,a");
        at_line(CHUNK_LINES + 5, b"  ");
        at_line(2 * CHUNK_LINES + 9, b"1,2");
        at_line(3 * CHUNK_LINES + 2, b"1,2,");
        at_line(7 * CHUNK_LINES + 1, b"1,2,\xff");
        let skip = SourceOptions {
            on_bad_row: OnBadRow::Skip,
            ..SourceOptions::default()
        };
        let few = SourceOptions {
            max_rows: CHUNK_LINES + 3,
            ..SourceOptions::default()
        };
        let first = reading(&bad, &SourceOptions::default(), true, usize::MAX);
        assert!(first.starts_with("error: t.csv, line 3: "), "{first}");
        let skipped = reading(&bad, &skip, true, usize::MAX);
        assert!(
            skipped.contains("skipped_rows: 5,"),
            "{}",
            &skipped[skipped.len() - 300..]
        );
        let cut = reading(&bad, &skip, true, bad.len() / 3);
        assert!(
            cut.ends_with("the disk went away"),
            "{}",
            &cut[cut.len().saturating_sub(200)..]
        );
        for input in [good.as_bytes(), &bad[..]] {
            for opts in [&SourceOptions::default(), &skip, &few] {
                // Whole, and cut by a read error at several places (a chunk's middle, the end).
                for fail_at in [usize::MAX, input.len() / 3, input.len() - 5, 40] {
                    let fail = fail_at.min(input.len() + 1);
                    let one = reading(input, opts, false, fail);
                    let two = reading(input, opts, true, fail);
                    assert!(
                        one == two,
                        "{:?} fail at {fail}: one thread {} / two {}",
                        opts.on_bad_row,
                        &one[..one.len().min(300)],
                        &two[..two.len().min(300)]
                    );
                }
            }
        }
    }

    proptest! {
        /// A line without quotes splits into the fields the general splitter gives, trimmed
        /// the same, however its commas, spaces, tabs and other characters fall.
        #[test]
        fn plain_lines_split_as_the_general_splitter_splits_them(
            line in "[a-z0-9,. \t\\-éü]{0,40}",
        ) {
            let mut ranges = Vec::new();
            prop_assert!(split_plain(line.as_bytes(), &mut ranges));
            let general = split_fields(&line, "t.csv", 2).unwrap();
            let trimmed: Vec<&str> = ranges
                .iter()
                .map(|&(a, b)| line[a..b].trim_matches(FIELD_SPACE))
                .collect();
            let want: Vec<&str> = general.iter().map(|f| f.text.as_ref()).collect();
            prop_assert_eq!(trimmed, want);
            let quoted = format!("{line}\"");
            prop_assert!(!split_plain(quoted.as_bytes(), &mut ranges));
        }
    }

    #[test]
    fn reads_sorts_and_interns() {
        let s = read_events_from(
            "event_time_ms,proc_time_ms,key\n10,30,x\n5,20,y\n7,30,x\n".as_bytes(),
            "t.csv",
        )
        .unwrap();
        assert_eq!(s.keys, vec!["x", "y"]);
        let named = read_events_from(
            "event_time_ms,proc_time_ms,key\n1,2,zed\n1,3,amy\n".as_bytes(),
            "t.csv",
        )
        .unwrap();
        assert_eq!(named.keys, vec!["amy", "zed"]);
        assert_eq!(named.key_name(named.events[0].key), "zed");
        let pts: Vec<f64> = s.events.iter().map(|e| e.proc_time).collect();
        assert_eq!(pts, vec![20.0, 30.0, 30.0]);
        assert_eq!(s.events[1].event_time, 10.0); // stable for equal processing times
    }

    #[test]
    fn bad_rows_name_file_line_and_value() {
        let err = read_events_from(
            "event_time_ms,proc_time_ms,key\n1,2,a\n3,oops,b\n".as_bytes(),
            "t.csv",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "t.csv, line 3: proc_time_ms 'oops' is not a number of milliseconds nor a date such \
             as 2013-01-01T05:15:00.250+01:00"
        );
        let err = read_events_from("a,b,c\n".as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 1"), "{err}");
        let err = read_events_from("event_time_ms,proc_time_ms,key\n1,2\n".as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv, line 2:"), "{err}");
        let err = read_events_from(
            "event_time_ms,proc_time_ms,key\nNaN,2,a\n".as_bytes(),
            "t.csv",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("out of range"), "{err}");
    }

    fn read(text: &str) -> Result<Stream, String> {
        read_events_from(text.as_bytes(), "t.csv").map_err(|e| e.to_string())
    }

    #[test]
    fn a_control_character_in_a_key_is_refused_with_line_and_column() {
        let err = read("event_time_ms,proc_time_ms,key\n1,2,a\n3,4,b\0c\n").unwrap_err();
        assert_eq!(
            err,
            "t.csv, line 3, column 6: key 'b\\u{0}c' holds a control character (U+0000); \
             keys must be printable"
        );
        let err = read("event_time_ms,proc_time_ms,key\n1,2,\"x\u{1b}[2J\"\n").unwrap_err();
        assert!(err.starts_with("t.csv, line 2, column 7: "), "{err}");
        assert!(!err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn blank_lines_are_refused_with_their_line() {
        for (text, line) in [
            ("event_time_ms,proc_time_ms,key\n1,2,a\n\n3,4,b\n", 3),
            (
                "event_time_ms,proc_time_ms,key\r\n1,2,a\r\n\r\n3,4,b\r\n",
                3,
            ),
            ("event_time_ms,proc_time_ms,key\n1,2,a\n   \n", 3),
            ("event_time_ms,proc_time_ms,key\n1,2,a\n3,4,b\n\n", 4),
            ("\nevent_time_ms,proc_time_ms,key\n1,2,a\n", 1),
        ] {
            let err = read(text).unwrap_err();
            assert!(
                err.starts_with(&format!("t.csv, line {line}: the line is blank")),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn lines_are_counted_exactly_with_crlf() {
        let err = read("event_time_ms,proc_time_ms,key\r\n1,2,a\r\n3,x,b\r\n").unwrap_err();
        assert!(err.starts_with("t.csv, line 3: proc_time_ms 'x'"), "{err}");
    }

    #[test]
    fn spaces_around_fields_are_trimmed_and_quotes_keep_them() {
        let s = read("event_time_ms , proc_time_ms,key\n 1 ,\t2,  a b  \n3,4,\" c,\"\"d\"\" \"\n")
            .unwrap();
        assert_eq!(s.keys, vec![" c,\"d\" ", "a b"]);
        let err = read("event_time_ms,proc_time_ms,key\n1,2,\"open\n").unwrap_err();
        assert!(err.starts_with("t.csv, line 2, column 5:"), "{err}");
        let err = read("event_time_ms,proc_time_ms,key\n1,2,\"a\"b\n").unwrap_err();
        assert!(err.starts_with("t.csv, line 2, column 8:"), "{err}");
        let s = read("\u{feff}event_time_ms,proc_time_ms,key\n1,2,a").unwrap();
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn an_endless_line_ends_as_an_error() {
        let endless = std::io::repeat(0).take(1 << 30);
        let err = read_events_from(endless, "zero").unwrap_err().to_string();
        assert_eq!(
            err,
            "zero, line 1: the line is longer than 16 MiB; a line holds one event"
        );
        let mut text = b"event_time_ms,proc_time_ms,key\n1,2,".to_vec();
        text.extend(std::iter::repeat_n(b'k', MAX_LINE_BYTES));
        let err = read_events_from(text.as_slice(), "long")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("long, line 2: the line is longer"), "{err}");
    }

    #[test]
    fn keys_that_need_quotes_round_trip() {
        let s =
            read("event_time_ms,proc_time_ms,key\n1,2,\" \"\n3,4,\"a,\"\"b\"\n5,6,c\n").unwrap();
        let mut buf = Vec::new();
        write_csv(&s, &mut buf).unwrap();
        assert_eq!(read_events_from(buf.as_slice(), "mem").unwrap(), s);
    }

    #[test]
    fn csv_round_trips_exactly() {
        let s = twoclocks_engine::Stream::generate(&twoclocks_engine::StreamParams {
            events: 300,
            ..Default::default()
        })
        .unwrap();
        let mut buf = Vec::new();
        write_csv(&s, &mut buf).unwrap();
        let back = read_events_from(buf.as_slice(), "mem").unwrap();
        assert_eq!(back, s);
        assert_eq!(back.len(), s.len());
        for (a, b) in back.events.iter().zip(&s.events) {
            assert_eq!(a.event_time.to_bits(), b.event_time.to_bits());
            assert_eq!(a.proc_time.to_bits(), b.proc_time.to_bits());
            assert_eq!(back.key_name(a.key), s.key_name(b.key));
        }
    }

    #[test]
    fn a_time_past_the_range_is_refused_not_rounded_into_it() {
        use crate::rows::{outcome, TimeFormat};
        let read = |format: Option<TimeFormat>, rows: &str| {
            let opts = SourceOptions {
                time_format: format,
                ..SourceOptions::default()
            };
            let text = format!("event_time_ms,proc_time_ms,key\n{rows}");
            outcome(read_rows(text.as_bytes(), "t.csv", &opts))
        };
        // 2^53 + 1 ms was read as 2^53: each a float rounds onto the edge of the range.
        for (format, row, error) in [
            (
                None,
                "9007199254740993,1,a",
                "event_time_ms '9007199254740993'",
            ),
            (
                None,
                "1,-9007199254740993,a",
                "proc_time_ms '-9007199254740993'",
            ),
            (
                None,
                "9007199254740992.0001,1,a",
                "event_time_ms '9007199254740992.0001'",
            ),
            (
                None,
                "9.007199254740993e15,1,a",
                "event_time_ms '9.007199254740993e15'",
            ),
            (
                Some(TimeFormat::S),
                "9007199254740.9921,1,a",
                "event_time_ms '9007199254740.9921'",
            ),
            (
                Some(TimeFormat::Us),
                "9007199254740992001,1,a",
                "event_time_ms '9007199254740992001'",
            ),
            (
                Some(TimeFormat::Ns),
                "1,9007199254740992000001,a",
                "proc_time_ms '9007199254740992000001'",
            ),
        ] {
            let got = read(format, &format!("{row}\n"));
            let want = format!("error: t.csv, line 2: {error} is out of range");
            assert!(got.starts_with(&want), "{row}: {got}");
        }
        // On the edge exactly, however written, and a nanosecond epoch, are read.
        for (format, rows) in [
            (
                None,
                "9007199254740992,-9007199254740992.000,a\n90071992547409920e-1,0,a\n",
            ),
            (
                Some(TimeFormat::S),
                "9007199254740.992,-9007199254740.9920,a\n",
            ),
            (
                Some(TimeFormat::Us),
                "9007199254740992000,-9007199254740992000,a\n",
            ),
        ] {
            let got = read(format, rows);
            assert!(
                got.contains("event_time: 9007199254740992.0"),
                "{rows}: {got}"
            );
        }
        let got = read(
            Some(TimeFormat::Ns),
            "1700000000123456789,1700000000223456789,a\n",
        );
        let ms = 1_700_000_000_123_456_789u64 as f64 / 1e6;
        assert!(got.contains(&format!("event_time: {ms:?}")), "{got}");
    }
}
