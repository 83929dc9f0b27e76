//! Where a user's event log comes from: a file or standard input, CSV, JSON Lines or Parquet,
//! plain or gzip/zstd-compressed, with its columns named by flags. Each format's reader hands
//! its rows to [`Rows`], which turns times into milliseconds, interns keys, skips or refuses bad
//! rows and counts what it saw into a [`SourceReport`].

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};

use crate::spool::Events;
use twoclocks_engine::Stream;

pub use super::rows::{
    check_key, number_shown, time_ms, Arrival, InputFormat, OnBadRow, RawTime, Rows, SourceOptions,
    SourceReport, TimeFormat, FIRST_SKIPPED, MAX_ROWS, TIME_LIMIT,
};

/// The magic numbers of what an input may be.
pub(crate) const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
pub(crate) const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
pub(crate) const PARQUET_MAGIC: &[u8] = b"PAR1";

/// A compressed input's decoder, whose read errors say the data is truncated or corrupt.
struct Decoded<R> {
    inner: R,
    what: &'static str,
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("the {} data is truncated or corrupt ({e})", self.what),
            )
        })
    }
}

/// Reads an event log from a path (`-` is standard input) with the options given.
pub fn read_source(path: &Path, opts: &SourceOptions) -> Result<(Stream, SourceReport)> {
    read_source_with(path, opts, |r| r)
}

/// Reads an event log from a path (`-` is standard input), its raw bytes through `wrap`
/// (which may, say, show progress).
pub fn read_source_with<'a>(
    path: &Path,
    opts: &SourceOptions,
    wrap: impl FnOnce(Box<dyn Read + 'a>) -> Box<dyn Read + 'a>,
) -> Result<(Stream, SourceReport)> {
    let (events, report) = read_source_events_with(path, opts, wrap)?;
    Ok((events.into_stream()?, report))
}

/// [`read_source_with`], the events left on disk when [`SourceOptions::spool`] asks for it
/// and they were read in processing-time order.
pub fn read_source_events_with<'a>(
    path: &Path,
    opts: &SourceOptions,
    wrap: impl FnOnce(Box<dyn Read + 'a>) -> Box<dyn Read + 'a>,
) -> Result<(Events, SourceReport)> {
    if path == Path::new("-") {
        return read_source_events_from(
            wrap(Box::new(std::io::stdin().lock())),
            "standard input",
            None,
            opts,
        );
    }
    let name = crate::quote::path(path);
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        bail!("{name} is a folder, not an event log");
    }
    let file_name = path.file_name().map(|n| n.to_string_lossy().to_lowercase());
    // A Parquet file (not compressed as a whole) is read from the file itself: its footer
    // says where each column's pages are, and only those are read.
    // (A regular file only: a pipe given as a path cannot be read twice.)
    // A name that says another format keeps to the path below, which says what is wrong.
    let named_text = file_name.as_deref().is_some_and(|n| {
        [".csv", ".tsv", ".jsonl", ".ndjson", ".json"]
            .iter()
            .any(|e| n.ends_with(e))
    });
    let mut file = file;
    if opts
        .format
        .map_or(!named_text, |f| f == InputFormat::Parquet)
        && file.metadata().is_ok_and(|m| m.is_file())
    {
        let mut magic = [0u8; 4];
        let parquet = file.read_exact(&mut magic).is_ok() && magic == PARQUET_MAGIC;
        file.seek(SeekFrom::Start(0))
            .with_context(|| format!("{name}: cannot read"))?;
        if parquet {
            return crate::parquet::read_rows(file, &name, opts);
        }
    }
    read_source_events_from(wrap(Box::new(file)), &name, file_name.as_deref(), opts)
}

/// Reads an event log from `reader`; `name` names it in errors, `file_name` (lower case)
/// gives the extensions that pick the compression and the format.
pub fn read_source_from<R: Read>(
    reader: R,
    name: &str,
    file_name: Option<&str>,
    opts: &SourceOptions,
) -> Result<(Stream, SourceReport)> {
    let (events, report) = read_source_events_from(reader, name, file_name, opts)?;
    Ok((events.into_stream()?, report))
}

/// [`read_source_from`], the events left on disk when [`SourceOptions::spool`] asks for it
/// and they were read in processing-time order.
pub fn read_source_events_from<R: Read>(
    reader: R,
    name: &str,
    file_name: Option<&str>,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let mut raw = BufReader::with_capacity(1 << 16, reader);
    let head = raw
        .fill_buf()
        .with_context(|| format!("{name}: cannot read"))?
        .to_vec();
    if head.is_empty() {
        bail!("{name}: the input is empty: it holds no events (not even a header)");
    }
    let mut stem = file_name.unwrap_or("");
    for (suffix, magic, what) in [(".gz", GZIP_MAGIC, "gzip"), (".zst", ZSTD_MAGIC, "zstd")] {
        if stem.ends_with(suffix) && !head.starts_with(magic) {
            bail!(
                "{name}: not {what}-compressed (no {what} header), though its name ends in \
                 {suffix}: rename it without {suffix}, or compress it with {what}"
            );
        }
    }
    let decoded: Box<dyn Read + '_> = if head.starts_with(GZIP_MAGIC) || stem.ends_with(".gz") {
        stem = stem.strip_suffix(".gz").unwrap_or(stem);
        Box::new(Decoded {
            inner: flate2::read::MultiGzDecoder::new(raw),
            what: "gzip",
        })
    } else if head.starts_with(ZSTD_MAGIC) || stem.ends_with(".zst") {
        stem = stem.strip_suffix(".zst").unwrap_or(stem);
        let decoder = zstd::stream::read::Decoder::with_buffer(raw)
            .with_context(|| format!("{name}: cannot start the zstd decoder"))?;
        Box::new(Decoded {
            inner: decoder,
            what: "zstd",
        })
    } else {
        Box::new(raw)
    };
    let mut input = BufReader::with_capacity(1 << 16, decoded);
    let head = input
        .fill_buf()
        .map_err(|e| anyhow!("{name}: {e}"))?
        .to_vec();
    if head.is_empty() {
        bail!("{name}: the input is empty once decompressed: it holds no events");
    }
    let by_name = if stem.ends_with(".csv") || stem.ends_with(".tsv") {
        Some(InputFormat::Csv)
    } else if [".jsonl", ".ndjson", ".json"]
        .iter()
        .any(|e| stem.ends_with(e))
    {
        Some(InputFormat::Jsonl)
    } else if stem.ends_with(".parquet") || stem.ends_with(".pq") {
        Some(InputFormat::Parquet)
    } else {
        None
    };
    let sniffed = if head.starts_with(PARQUET_MAGIC) {
        InputFormat::Parquet
    } else if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        InputFormat::Jsonl
    } else {
        InputFormat::Csv
    };
    let format = opts.format.or(by_name).unwrap_or(sniffed);
    if format != InputFormat::Parquet {
        if head.starts_with(PARQUET_MAGIC) {
            bail!(
                "{name}: this is a Parquet file, not {}: give --input-format parquet",
                format.name()
            );
        }
        if looks_binary(&head) {
            bail!(
                "{name}: binary data, not {} text (give --input-format, or a .gz/.zst/.parquet \
                 file by its extension)",
                format.name()
            );
        }
    }
    match format {
        InputFormat::Csv => crate::csv::read_rows(input, name, opts),
        InputFormat::Jsonl => crate::jsonl::read_rows(input, name, opts),
        InputFormat::Parquet => {
            read_piped_parquet(input, name, opts, crate::bounded::PIPED_PARQUET)
        }
    }
}

/// A Parquet log that is not a regular file (standard input, a pipe): held whole, up to
/// `limit`, as its footer at the end says where its pages are.
fn read_piped_parquet(
    input: impl Read,
    name: &str,
    opts: &SourceOptions,
    limit: crate::bounded::Limit,
) -> Result<(Events, SourceReport)> {
    let bytes = crate::bounded::read(input, limit).map_err(|e| match e {
        crate::bounded::Unread::Failed(e) => anyhow!("{name}: {e}"),
        too_large => anyhow!("{name}: {too_large}"),
    })?;
    crate::parquet::read_rows(bytes::Bytes::from(bytes), name, opts)
}

/// Whether the first bytes of a text input are binary: many control bytes other than tab,
/// line feed and carriage return (a stray NUL in a key is left to the row's own error).
fn looks_binary(head: &[u8]) -> bool {
    let head = &head[..head.len().min(1024)];
    let controls = head
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || b == 0x7f)
        .count();
    controls >= 4 && controls * 20 >= head.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parquet_log_from_a_pipe_is_read_to_its_limit_and_no_further() {
        let limit = crate::bounded::Limit {
            what: "a Parquet log from a pipe",
            bytes: 16,
        };
        let endless = std::io::Read::chain(PARQUET_MAGIC, std::io::repeat(0));
        let Err(err) =
            read_piped_parquet(endless, "standard input", &SourceOptions::default(), limit)
        else {
            panic!("an endless input was read");
        };
        assert_eq!(
            err.to_string(),
            "standard input: more than 16 bytes; a Parquet log from a pipe is at most 16 bytes"
        );
    }

    #[test]
    fn binary_heads_are_told_from_text() {
        assert!(!looks_binary(b"event_time_ms,proc_time_ms,key\n1,2,a\0\n"));
        assert!(looks_binary(&[0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    }
}
