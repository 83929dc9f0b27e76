//! Event logs as Apache Parquet files: the columns named by the column flags, read row by row
//! (other columns are ignored). A time is an integer or a float (in the `--time-format` unit,
//! ms by default), a Parquet timestamp (its own unit) or a text; a key is a text or an integer.

use ::parquet::basic::Compression;
use ::parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use ::parquet::record::Field;
use anyhow::{anyhow, bail, Result};

use crate::quote::quoted;
use crate::rows::{
    check_key, number_shown, time_ms, RawTime, Rows, SourceOptions, SourceReport, TimeFormat,
};
use crate::spool::Events;

/// Reads the rows of a Parquet file, with the columns named by `opts`: from the file itself
/// (its pages read as they are needed, not the whole file at once) or from bytes held in
/// memory (standard input, a decompressed file).
pub fn read_rows<R: ChunkReader + 'static>(
    source: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let reader = SerializedFileReader::new(source)
        .map_err(|e| anyhow!("{name}: not a readable Parquet file, or a truncated one ({e})"))?;
    let root = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema();
    let found: Vec<String> = root
        .get_fields()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let find = |column: &str, flag: &str| -> Result<usize> {
        let mut at = found.iter().enumerate().filter(|(_, f)| *f == column);
        match (at.next(), at.next()) {
            (Some((i, _)), None) => Ok(i),
            (Some((i, _)), Some((j, _))) => bail!(
                "{name}: the column {} ({flag}) appears twice, as columns {} and {}; each \
                 column is named once",
                quoted(column),
                i + 1,
                j + 1
            ),
            (None, _) => {
                let listed: Vec<String> = found.iter().map(|f| quoted(f)).collect();
                bail!(
                    "{name}: no column {} ({flag}); the columns found are {}",
                    quoted(column),
                    listed.join(", ")
                )
            }
        }
    };
    let mut rows = Rows::new(opts, name, "row");
    let event_time = find(&opts.event_time_col, "--event-time-col")?;
    let proc_time = if rows.reads_proc_time() {
        Some(find(&opts.proc_time_col, "--proc-time-col")?)
    } else {
        None
    };
    let key = find(&opts.key_col, "--key-col")?;
    // Only the columns read are decoded: the projection keeps the file's order, and each
    // column read is found at its rank among them.
    let mut wanted: Vec<usize> = [Some(event_time), proc_time, Some(key)]
        .into_iter()
        .flatten()
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    check_codecs(&reader, &wanted, name)?;
    let rank = |i: usize| wanted.iter().position(|&w| w == i).unwrap_or(usize::MAX);
    let (event_time, proc_time, key) = (rank(event_time), proc_time.map(rank), rank(key));
    let projection = ::parquet::schema::types::Type::group_type_builder(root.name())
        .with_fields(
            wanted
                .iter()
                .map(|&i| root.get_fields()[i].clone())
                .collect(),
        )
        .build()
        .map_err(|e| anyhow!("{name}: cannot select the columns ({e})"))?;
    let iter = reader
        .get_row_iter(Some(projection))
        .map_err(|e| anyhow!("{name}: cannot read the Parquet rows ({e})"))?;
    for (i, row) in iter.enumerate() {
        let at = i as u64 + 1;
        let row = row.map_err(|e| {
            anyhow!("{name}, row {at}: cannot read the row, the file is corrupt or truncated ({e})")
        })?;
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let parsed = (|| -> Result<(f64, Option<f64>, String)> {
            let et = time(fields.get(event_time).copied(), &opts.event_time_col, opts)?;
            let pt = match proc_time {
                Some(p) => Some(time(fields.get(p).copied(), &opts.proc_time_col, opts)?),
                None => None,
            };
            let k = key_text(fields.get(key).copied(), &opts.key_col)?;
            check_key(&k, &opts.key_col)?;
            Ok((et, pt, k))
        })()
        .map_err(|e| anyhow!("{name}, row {at}: {e}"));
        match parsed {
            Ok((et, pt, k)) => rows.push(at, et, pt, &k)?,
            Err(e) => rows.bad(at, e)?,
        }
    }
    rows.finish("the Parquet file holds no rows")
}

/// Refuses a file whose columns read are compressed with a codec this build cannot decode
/// (LZO), naming it, before any row is read: the rows' own error would call the file corrupt.
fn check_codecs<R: ChunkReader + 'static>(
    reader: &SerializedFileReader<R>,
    columns: &[usize],
    name: &str,
) -> Result<()> {
    let leaves = reader.metadata().file_metadata().schema_descr();
    for group in reader.metadata().row_groups() {
        for chunk in group.columns() {
            let codec = chunk.compression();
            let decoded = matches!(
                codec,
                Compression::UNCOMPRESSED
                    | Compression::SNAPPY
                    | Compression::GZIP(_)
                    | Compression::LZ4
                    | Compression::LZ4_RAW
                    | Compression::BROTLI(_)
                    | Compression::ZSTD(_)
            );
            let root = chunk.column_path().parts().first().map(String::as_str);
            let read = columns
                .iter()
                .any(|&i| Some(leaves.root_schema().get_fields()[i].name()) == root);
            if read && !decoded {
                let codec = match codec {
                    Compression::LZO => "LZO".to_string(),
                    other => format!("{other:?}"),
                };
                bail!(
                    "{name}: the column {} is compressed with {codec}, which twoclocks cannot \
                     decode; it reads uncompressed, Snappy, gzip, LZ4, Brotli and zstd pages: \
                     write the file again with one of those",
                    quoted(&chunk.column_path().string())
                );
            }
        }
    }
    Ok(())
}

fn time(field: Option<&Field>, column: &str, opts: &SourceOptions) -> Result<f64> {
    let number = |v: f64| time_ms(RawTime::Number(v), opts.time_format, column);
    // A Parquet timestamp carries its unit.
    let in_ms = |v: f64| time_ms(RawTime::Number(v), Some(TimeFormat::Ms), column);
    match field {
        None | Some(Field::Null) => bail!("{column} is missing (null)"),
        Some(Field::Byte(v)) => number(*v as f64),
        Some(Field::Short(v)) => number(*v as f64),
        Some(Field::Int(v)) => number(*v as f64),
        Some(Field::Long(v)) => number(*v as f64),
        Some(Field::UByte(v)) => number(*v as f64),
        Some(Field::UShort(v)) => number(*v as f64),
        Some(Field::UInt(v)) => number(*v as f64),
        Some(Field::ULong(v)) => number(*v as f64),
        Some(Field::Float(v)) => number(*v as f64),
        Some(Field::Double(v)) => number(*v),
        Some(Field::TimestampMillis(v)) => in_ms(*v as f64),
        Some(Field::TimestampMicros(v)) => in_ms(*v as f64 / 1e3),
        Some(Field::Str(s)) => time_ms(RawTime::Text(s), opts.time_format, column),
        Some(other) => bail!(
            "{column} {} is not a time (a number, a timestamp or an RFC 3339 text)",
            quoted(&other.to_string())
        ),
    }
}

fn key_text(field: Option<&Field>, column: &str) -> Result<String> {
    Ok(match field {
        None | Some(Field::Null) => bail!("{column} is missing (null)"),
        Some(Field::Str(s)) => s.clone(),
        Some(Field::Byte(v)) => v.to_string(),
        Some(Field::Short(v)) => v.to_string(),
        Some(Field::Int(v)) => v.to_string(),
        Some(Field::Long(v)) => v.to_string(),
        Some(Field::UByte(v)) => v.to_string(),
        Some(Field::UShort(v)) => v.to_string(),
        Some(Field::UInt(v)) => v.to_string(),
        Some(Field::ULong(v)) => v.to_string(),
        Some(Field::Bytes(b)) => match std::str::from_utf8(b.data()) {
            Ok(s) => s.to_string(),
            Err(_) => bail!("{column} holds bytes that are not UTF-8 text"),
        },
        Some(Field::Float(v)) => bail!(
            "{column} {} is a number, not a key (a text or an integer)",
            quoted(&format!("{v:?}"))
        ),
        Some(Field::Double(v)) => bail!(
            "{column} {} is a number, not a key (a text or an integer)",
            number_shown(*v)
        ),
        Some(other) => bail!(
            "{column} {} is not a key (a text or an integer)",
            quoted(&other.to_string())
        ),
    })
}
