//! Slack statistics read back for `advise --stats`: the result of the query `advise --sql`
//! prints, saved as CSV (with a header) or Parquet, one file or a directory of part files (as
//! Spark and Flink write them). Every row is checked: its watermark kind, its window (of the
//! window function given, its size and slide too), its slack bin and step, its count, and that
//! a cell's rows agree on its first clock and that its lowest bin is that clock's; and the
//! whole: both kinds count the same placements, and no count overflows. A bad row stops
//! reading with an error naming the file, the line (or row) and the value.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;
use anyhow::{anyhow, bail, Context, Result};

use crate::bounded::{self, Unread};
use crate::quote::quoted;
use twoclocks_engine::frontier::slack::{CellSlack, Clocked, SlackStats};
use twoclocks_engine::{KeyId, WindowFn, WindowId};

/// The columns a statistics file holds, as the query names them.
pub const COLUMNS: [&str; 10] = [
    "watermark",
    "window_start_ms",
    "window_end_ms",
    "key",
    "first_clock_ms",
    "slack_bin",
    "slack_bin_ms",
    "events",
    "window_size_ms",
    "window_slide_ms",
];

/// The `watermark` of the row that counts the log's rows the query left out: a NULL time or
/// key, an empty key, or a time that is not finite or lies beyond ±2^53 ms.
pub const LEFT_OUT: &str = "rows_left_out";

/// The most placements statistics may count (2^53): sums stay exact.
const MAX_PLACEMENTS: u64 = 1 << 53;

/// What reading a statistics file saw besides the statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsReport {
    /// Rows of the log the query left out: a NULL time or key, an empty key, or a time that is
    /// not finite or beyond ±2^53 ms.
    pub rows_left_out: u64,
    /// The files read (one, or the parts of a directory).
    pub files: usize,
    /// Rows of the statistics file read.
    pub rows: u64,
}

/// One value of a row, as the file holds it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Number(f64),
    Text(String),
}

impl Value {
    fn shown(&self) -> String {
        match self {
            Value::Null => "null".to_string(),
            Value::Number(v) => v.to_string(),
            Value::Text(s) => quoted(s),
        }
    }

    /// The value as a number (a text is parsed).
    fn number(&self, column: &str) -> Result<f64> {
        let v = match self {
            Value::Number(v) => Some(*v),
            Value::Text(s) => s.trim().parse::<f64>().ok(),
            Value::Null => None,
        };
        v.filter(|v| v.is_finite())
            .ok_or_else(|| anyhow!("{column} {} is not a number", self.shown()))
    }

    /// The value as a whole number.
    fn whole(&self, column: &str) -> Result<i64> {
        let v = self.number(column)?;
        if v.fract() != 0.0 || v.abs() > 9e15 {
            bail!("{column} {} is not a whole number", self.shown());
        }
        Ok(v as i64)
    }

    fn text(&self, column: &str) -> Result<String> {
        match self {
            Value::Text(s) => Ok(s.clone()),
            Value::Number(v) => Ok(v.to_string()),
            Value::Null => bail!("{column} is missing (null)"),
        }
    }
}

/// Reads the statistics at `path` (CSV or Parquet, told by each file's first bytes; a
/// directory is read as the part files in it, by name, leaving out names that begin with `.`
/// or `_` and `.crc` checksums) for windows of `window`.
pub fn read_stats(path: &Path, window: WindowFn) -> Result<(SlackStats, StatsReport)> {
    let name = crate::quote::path(path);
    let mut stats = Builder::new(&name, window);
    let files = if path.is_dir() {
        let mut parts: Vec<std::path::PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("{name}: cannot list the directory"))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.file_name().map(|n| n.to_string_lossy().into_owned());
                p.is_file()
                    && n.is_some_and(|n| {
                        !n.starts_with('.') && !n.starts_with('_') && !n.ends_with(".crc")
                    })
            })
            .collect();
        parts.sort();
        if parts.is_empty() {
            bail!("{name}: the directory holds no part files");
        }
        parts
    } else {
        vec![path.to_path_buf()]
    };
    // The parts' sizes together first, so that none is read when they are too many bytes.
    let sizes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    if sizes > bounded::STATISTICS.bytes {
        bail!("{name}: {}", Unread::TooLarge(bounded::STATISTICS));
    }
    let mut read = 0u64;
    for file in &files {
        let part = crate::quote::path(file);
        let bytes = bounded::read_file(file, bounded::STATISTICS.leaving(read)).map_err(|e| {
            match e {
                Unread::Failed(e) => anyhow!("{part}: cannot read the file ({e})"),
                // Named as the whole (a directory's parts count together), by its whole limit.
                Unread::TooLarge(_) => anyhow!(
                    "{}: {}",
                    if files.len() > 1 { &name } else { &part },
                    Unread::TooLarge(bounded::STATISTICS)
                ),
            }
        })?;
        read += bytes.len() as u64;
        if bytes.starts_with(b"PAR1") {
            read_parquet(bytes, &part, &mut stats)?;
        } else {
            read_csv(&bytes, &part, &mut stats)?;
        }
        stats.report.files += 1;
    }
    stats.finish()
}

fn read_csv(bytes: &[u8], name: &str, stats: &mut Builder) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| anyhow!("{name}: cannot read the header line ({e})"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let places = places(&header, name)?;
    for record in reader.records() {
        let record =
            record.map_err(|e| anyhow!("{name}: not a CSV file, or a broken line ({e})"))?;
        let line = record.position().map_or(0, |p| p.line());
        // A key is taken as it is (a blank one is a key); an empty number is missing.
        let values: Vec<Value> = places
            .iter()
            .zip(COLUMNS)
            .map(|(&i, column)| match record.get(i) {
                None => Value::Null,
                Some(s) if column != "key" && s.trim().is_empty() => Value::Null,
                Some(s) => Value::Text(s.to_string()),
            })
            .collect();
        stats
            .row(&values)
            .map_err(|e| anyhow!("{name}, line {line}: {e}"))?;
    }
    Ok(())
}

fn read_parquet(bytes: Vec<u8>, name: &str, stats: &mut Builder) -> Result<()> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| anyhow!("{name}: not a readable Parquet file, or a truncated one ({e})"))?;
    let header: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema()
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let places = places(&header, name)?;
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| anyhow!("{name}: cannot read the Parquet rows ({e})"))?;
    for (i, row) in iter.enumerate() {
        let at = i + 1;
        let row = row.map_err(|e| {
            anyhow!("{name}, row {at}: cannot read the row, the file is corrupt or truncated ({e})")
        })?;
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let values: Vec<Value> = places
            .iter()
            .map(|&i| value(fields.get(i).copied()))
            .collect();
        stats
            .row(&values)
            .map_err(|e| anyhow!("{name}, row {at}: {e}"))?;
    }
    Ok(())
}

/// A Parquet field as a value: numbers of any width, decimals and texts.
fn value(field: Option<&Field>) -> Value {
    match field {
        None | Some(Field::Null) => Value::Null,
        Some(Field::Byte(v)) => Value::Number(*v as f64),
        Some(Field::Short(v)) => Value::Number(*v as f64),
        Some(Field::Int(v)) => Value::Number(*v as f64),
        Some(Field::Long(v)) => Value::Number(*v as f64),
        Some(Field::UByte(v)) => Value::Number(*v as f64),
        Some(Field::UShort(v)) => Value::Number(*v as f64),
        Some(Field::UInt(v)) => Value::Number(*v as f64),
        Some(Field::ULong(v)) => Value::Number(*v as f64),
        Some(Field::Float(v)) => Value::Number(*v as f64),
        Some(Field::Double(v)) => Value::Number(*v),
        Some(Field::Str(s)) => Value::Text(s.clone()),
        Some(other) => Value::Text(crate::parquet::field_shown(other)),
    }
}

/// Where each of [`COLUMNS`] is in the file's header.
fn places(header: &[String], name: &str) -> Result<Vec<usize>> {
    COLUMNS
        .iter()
        .map(|c| {
            header.iter().position(|h| h == c).ok_or_else(|| {
                let found: Vec<String> = header.iter().map(|h| quoted(h)).collect();
                anyhow!(
                    "{name}: no column {} (slack statistics have the columns {}, as advise \
                     --sql names them); the columns found are {}",
                    quoted(c),
                    COLUMNS.join(", "),
                    found.join(", ")
                )
            })
        })
        .collect()
}

/// One cell being read: its first clock and its bins so far.
struct CellRows {
    first_clock: f64,
    bins: BTreeMap<i64, u64>,
}

/// The statistics as they are read, row by row.
struct Builder<'a> {
    name: &'a str,
    window: WindowFn,
    step: Option<i64>,
    keys: HashMap<String, KeyId>,
    cells: BTreeMap<(Clocked, WindowId, KeyId), CellRows>,
    report: StatsReport,
}

impl<'a> Builder<'a> {
    fn new(name: &'a str, window: WindowFn) -> Self {
        Builder {
            name,
            window,
            step: None,
            keys: HashMap::new(),
            cells: BTreeMap::new(),
            report: StatsReport::default(),
        }
    }

    /// Takes one row, its values in the order of [`COLUMNS`].
    fn row(&mut self, v: &[Value]) -> Result<()> {
        self.report.rows += 1;
        let watermark = v[0].text(COLUMNS[0])?;
        let step = v[6].whole(COLUMNS[6])?;
        if step <= 0 {
            bail!("slack_bin_ms {step} is not a step: give the query's result unchanged");
        }
        match self.step {
            None => self.step = Some(step),
            Some(s) if s != step => bail!(
                "slack_bin_ms {step} differs from the {s} of the rows before: the file mixes \
                 the results of two queries"
            ),
            Some(_) => {}
        }
        let events = v[7].whole(COLUMNS[7])?;
        if events < 0 {
            bail!("events {events} is not a count");
        }
        if watermark == LEFT_OUT {
            self.report.rows_left_out = self.report.rows_left_out.saturating_add(events as u64);
            return Ok(());
        }
        let Some(kind) = Clocked::named(&watermark) else {
            bail!(
                "watermark {} is not one the statistics cover: fixed, bounded (or {LEFT_OUT})",
                quoted(&watermark)
            );
        };
        let (size, slide) = (v[8].whole(COLUMNS[8])?, v[9].whole(COLUMNS[9])?);
        let expected = match self.window {
            WindowFn::Tumbling { size, .. } => (size, size),
            WindowFn::Sliding { size, slide, .. } => (size, slide),
            _ => (0, 0),
        };
        if (size, slide) != expected {
            let theirs = if size == slide {
                format!("--window {size}ms")
            } else {
                format!("--window {size}ms --slide {slide}ms")
            };
            bail!(
                "window_size_ms {size}, window_slide_ms {slide}: these statistics are for \
                 other windows than {}: give {theirs}, the window the query was printed for",
                self.window.describe()
            );
        }
        let (start, end) = (v[1].whole(COLUMNS[1])?, v[2].whole(COLUMNS[2])?);
        let window = WindowId::new(start, end);
        if !self
            .window
            .assign(start as f64)
            .into_iter()
            .any(|w| w == window)
        {
            bail!(
                "window_start_ms {start}, window_end_ms {end} is not a window of {}: give the \
                 --window the query was printed for",
                self.window.describe()
            );
        }
        let key_name = v[3].text(COLUMNS[3])?;
        let next = self.keys.len() as KeyId;
        let key = *self.keys.entry(key_name.clone()).or_insert(next);
        let first_clock = v[4].number(COLUMNS[4])?;
        let b = v[5].whole(COLUMNS[5])?;
        if !(SlackStats::BOTTOM_BIN..=SlackStats::TOP_BIN).contains(&b) {
            bail!(
                "slack_bin {b} is outside {}..{}",
                SlackStats::BOTTOM_BIN,
                SlackStats::TOP_BIN
            );
        }
        let cell = self
            .cells
            .entry((kind, window, key))
            .or_insert_with(|| CellRows {
                first_clock,
                bins: BTreeMap::new(),
            });
        if cell.first_clock != first_clock {
            bail!(
                "first_clock_ms {first_clock} differs from the {} of the cell's other rows \
                 ({watermark}, window {start}..{end}, key {})",
                cell.first_clock,
                quoted(&key_name)
            );
        }
        if cell.bins.insert(b, events as u64).is_some() {
            bail!(
                "slack bin {b} of the cell ({watermark}, window {start}..{end}, key {}) comes \
                 twice",
                quoted(&key_name)
            );
        }
        Ok(())
    }

    fn finish(self) -> Result<(SlackStats, StatsReport)> {
        let name = self.name;
        let Some(step) = self.step.filter(|_| !self.cells.is_empty()) else {
            bail!(
                "{name}: the file holds no statistics rows{}",
                if self.report.rows_left_out > 0 {
                    format!(
                        " (only the count of {} rows the query left out)",
                        self.report.rows_left_out
                    )
                } else {
                    String::new()
                }
            );
        };
        let mut kinds: BTreeMap<Clocked, Vec<CellSlack>> = BTreeMap::new();
        let mut totals: BTreeMap<Clocked, u64> = BTreeMap::new();
        for ((kind, _, _), cell) in &self.cells {
            let total = totals.entry(*kind).or_insert(0);
            *total = cell
                .bins
                .values()
                .try_fold(*total, |t, &n| {
                    t.checked_add(n).filter(|&t| t <= MAX_PLACEMENTS)
                })
                .ok_or_else(|| {
                    anyhow!(
                        "{name}: the {} rows count more than 2^53 placements: not a log's \
                         statistics",
                        kind.name()
                    )
                })?;
        }
        if let (Some(f), Some(b)) = (totals.get(&Clocked::Fixed), totals.get(&Clocked::Bounded)) {
            if f != b {
                bail!(
                    "{name}: the fixed rows count {f} placements and the bounded rows {b}: both \
                     count every placement, so the file is not the query's whole result (a part \
                     missing?)"
                );
            }
        }
        for ((kind, window, key), cell) in self.cells {
            let lowest = cell.bins.keys().next().copied();
            let expected = SlackStats::bin(cell.first_clock - window.end(), step as f64);
            if lowest != Some(expected) {
                bail!(
                    "{name}: the cell ({}, window {}..{}) has its lowest slack bin {} but its \
                     first clock {} is in bin {expected}: the file is not the query's result",
                    kind.name(),
                    window.start(),
                    window.end(),
                    lowest.map_or("none".to_string(), |b| b.to_string()),
                    cell.first_clock
                );
            }
            kinds.entry(kind).or_default().push(CellSlack {
                window,
                key,
                first_clock: cell.first_clock,
                bins: cell.bins.into_iter().filter(|&(_, n)| n > 0).collect(),
            });
        }
        Ok((
            SlackStats {
                step: step as f64,
                kinds,
            },
            self.report,
        ))
    }
}
