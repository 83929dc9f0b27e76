//! The logs the source tests read: the standard three events as CSV and as Parquet (the
//! standard columns, or columns of any schema), gzip- and zstd-compressed bytes, files in a
//! folder of their own, and a log read from a file or from text, an error as one line.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tempfile::TempDir;
use twoclocks::engine::Stream;
use twoclocks::io::source::{read_source, read_source_from, SourceOptions, SourceReport};

/// The standard three events as CSV: keys a and b, the third event out of order.
pub const CSV: &str = "event_time_ms,proc_time_ms,key\n1000,1500,a\n2000,2600,b\n500,3000,a\n";

/// A folder of the binary's own for the logs the tests write, made once (each test names its
/// files apart).
pub fn dir() -> PathBuf {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap())
        .path()
        .to_path_buf()
}

/// A file `name` in [`dir`] holding `contents`.
pub fn file(name: &str, contents: &[u8]) -> PathBuf {
    let path = dir().join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// `bytes` gzip-compressed.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `bytes` zstd-compressed.
pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

/// The log at `path` read, or its error as one line.
pub fn read(path: &Path, opts: &SourceOptions) -> Result<(Stream, SourceReport), String> {
    read_source(path, opts).map_err(|e| format!("{e:#}"))
}

/// The log `body`, named `name`, read, or its error as one line.
pub fn text(
    name: &str,
    body: &str,
    opts: &SourceOptions,
) -> Result<(Stream, SourceReport), String> {
    read_source_from(body.as_bytes(), name, Some(name), opts).map_err(|e| format!("{e:#}"))
}

/// The log `body`, named `name`, which must read.
pub fn ok(name: &str, body: &str, opts: &SourceOptions) -> Stream {
    text(name, body, opts).unwrap().0
}

/// The error line of the log `body`, named `name`, which must not read.
pub fn err(name: &str, body: &str, opts: &SourceOptions) -> String {
    match text(name, body, opts) {
        Ok(_) => panic!("{name}: read without an error"),
        Err(e) => e,
    }
}

/// The standard three events as a Parquet file: event times as doubles, processing times as
/// int64, keys as UTF-8 text; `compression` for its pages.
pub fn parquet(rows: &[(f64, i64, &str)], compression: parquet::basic::Compression) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type(
            "message events { required double event_time_ms; required int64 proc_time_ms; \
             required binary key (UTF8); }",
        )
        .unwrap(),
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .build(),
    );
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut group = w.next_row_group().unwrap();
    let mut i = 0;
    while let Some(mut col) = group.next_column().unwrap() {
        match i {
            0 => {
                let v: Vec<f64> = rows.iter().map(|r| r.0).collect();
                col.typed::<DoubleType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
            1 => {
                let v: Vec<i64> = rows.iter().map(|r| r.1).collect();
                col.typed::<Int64Type>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
            _ => {
                let v: Vec<ByteArray> = rows.iter().map(|r| ByteArray::from(r.2)).collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
        }
        col.close().unwrap();
        i += 1;
    }
    group.close().unwrap();
    w.close().unwrap();
    out
}

/// The standard three events, as read from [`CSV`].
pub fn standard() -> Stream {
    ok("t.csv", CSV, &SourceOptions::default())
}

/// One column of a Parquet file written by a test: its values.
pub enum Column {
    Double(Vec<f64>),
    Int64(Vec<i64>),
    Text(Vec<String>),
}

/// A Parquet file of one row group with the schema `message` (its fields in the order of
/// `columns`) and `compression` for its pages.
pub fn parquet_file(
    message: &str,
    columns: &[Column],
    compression: parquet::basic::Compression,
) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .build(),
    );
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut group = w.next_row_group().unwrap();
    for column in columns {
        let mut col = group
            .next_column()
            .unwrap()
            .expect("a column per value list");
        match column {
            Column::Double(v) => {
                col.typed::<DoubleType>()
                    .write_batch(v, None, None)
                    .unwrap();
            }
            Column::Int64(v) => {
                col.typed::<Int64Type>().write_batch(v, None, None).unwrap();
            }
            Column::Text(v) => {
                let v: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
        }
        col.close().unwrap();
    }
    group.close().unwrap();
    w.close().unwrap();
    out
}

/// The schema of the standard columns, every time as a double.
pub const EVENTS_DOUBLE: &str = "message events { required double event_time_ms; required double \
                             proc_time_ms; required binary key (UTF8); }";
