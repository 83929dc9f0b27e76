//! Event logs as Apache Parquet files: the columns named by the column flags (other columns
//! are not decoded). A time is an integer, a float or a decimal (in the `--time-format` unit,
//! ms by default; a decimal read as its digits are in a CSV field, and refused past ±2^53 ms
//! by its exact value), a Parquet timestamp (its own unit) or a text; a key is a text or an
//! integer.
//! Columns of those plain types are read as Arrow arrays, a batch of rows at a time; a column
//! of any other type (a date, a decimal, a nested column…) is read row by row, so that it is
//! named in its error as the row reader shows it.

use std::fmt::Write as _;
use std::sync::Arc;

use ::parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use ::parquet::arrow::ProjectionMask;
use ::parquet::basic::{Compression, ConvertedType, Type as PhysicalType};
use ::parquet::file::metadata::ParquetMetaData;
use ::parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use ::parquet::record::Field;
use ::parquet::schema::types::SchemaDescriptor;
use anyhow::{anyhow, bail, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, BinaryArray, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef, TimeUnit};

use crate::quote::quoted;
use crate::rows::{
    check_key, find_column, number_shown, read_time, Arrival, RawTime, Rows, SourceOptions,
    SourceReport, TimeFormat, TIME_LIMIT,
};
use crate::spool::Events;
use crate::times::{civil_ms_in, Spelling};

/// Reads the rows of a Parquet file, with the columns named by `opts`: from the file itself
/// (its pages read as they are needed, not the whole file at once) or from bytes held in
/// memory (standard input, a decompressed file).
pub fn read_rows<R: ChunkReader + 'static>(
    source: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    read_batches(source, name, opts, BATCH_ROWS)
}

/// [`read_rows`] with batches of `batch_rows` rows.
fn read_batches<R: ChunkReader + 'static>(
    source: R,
    name: &str,
    opts: &SourceOptions,
    batch_rows: usize,
) -> Result<(Events, SourceReport)> {
    // The Arrow schema is derived from the Parquet one alone: a schema some writer embedded
    // (pyarrow's) could cast the values (a timestamp in seconds stored as ms) or ask for
    // dictionaries and views.
    let arrow = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let metadata = match ArrowReaderMetadata::load(&source, arrow) {
        Ok(metadata) => metadata,
        // The row reader says what is wrong with the file, as it always has.
        Err(_) => return read_records(source, name, opts),
    };
    let columns = Columns::find(metadata.parquet_schema(), name, opts)?;
    let event_stamped = Stamped::of(metadata.parquet_schema(), Some(columns.event_time));
    let proc_stamped = Stamped::of(metadata.parquet_schema(), columns.proc_time);
    check_codecs(
        metadata.metadata(),
        &columns.wanted,
        metadata.parquet_schema(),
        name,
    )?;
    let kinds = columns
        .roots()
        .map(|(root, role)| batch_kind(metadata.parquet_schema(), metadata.schema(), root, role));
    let [Some(event_kind), proc_kind, Some(key_kind)] = kinds else {
        return read_records(source, name, opts);
    };
    if columns.proc_time.is_some() && proc_kind.is_none() {
        return read_records(source, name, opts);
    }
    // Keys read as a dictionary: each distinct key of a batch is checked and found once.
    let metadata = dictionary_keys(metadata, columns.key);
    let mask = ProjectionMask::roots(metadata.parquet_schema(), columns.wanted.iter().copied());
    let total_rows = metadata.metadata().file_metadata().num_rows();
    let batches = ParquetRecordBatchReaderBuilder::new_with_metadata(source, metadata)
        .with_projection(mask)
        .with_batch_size(batch_rows)
        .build()
        .map_err(|e| anyhow!("{name}: cannot read the Parquet rows ({e})"))?;
    let mut rows = Rows::new(opts, name, "row");
    rows.reserve(usize::try_from(total_rows).unwrap_or(0));
    let (event_at, proc_at, key_at) = columns.ranks();
    let mut key_text = String::new();
    let mut known = KnownKeys::default();
    let mut next: u64 = 1;
    for batch in batches {
        let batch = batch.map_err(|e| {
            anyhow!(
                "{name}, row {next}: cannot read the row, the file is corrupt or truncated ({e})"
            )
        })?;
        let event = Cells::of(batch.column(event_at).as_ref(), event_kind);
        let proc = match (proc_at, proc_kind) {
            (Some(p), Some(kind)) => Some(Cells::of(batch.column(p).as_ref(), kind)),
            _ => None,
        };
        let key = Cells::of(batch.column(key_at).as_ref(), key_kind);
        known.meet(&key);
        let plain = PlainRows::of(&event, proc.as_ref(), &key, opts);
        for i in 0..batch.num_rows() {
            let at = next + i as u64;
            // Most rows of most logs: two times in ms and a key already known, pushed as
            // the general path below would push them.
            if let Some((et, pt, id)) = plain.as_ref().and_then(|p| p.row(i, &known)) {
                rows.check_room(at)?;
                rows.spelled(Spelling::NUMBER);
                rows.push_id(et, Some(pt), id)?;
                continue;
            }
            let cell = key.get(i);
            let entry = match cell {
                Cell::Entry(k, _) => Some(k),
                _ => None,
            };
            let parsed = (|| -> Result<(f64, Option<f64>, Option<u32>, Spelling)> {
                let (et, mut spelling) =
                    cell_time(event.get(i), &opts.event_time_col, opts, event_stamped)?;
                let pt = match &proc {
                    Some(p) => {
                        let (pt, spelled) =
                            cell_time(p.get(i), &opts.proc_time_col, opts, proc_stamped)?;
                        spelling = spelling.or(spelled);
                        Some(pt)
                    }
                    None => None,
                };
                if let Some(id) = entry.and_then(|k| known.id(k)) {
                    return Ok((et, pt, Some(id), spelling));
                }
                cell_key(cell, &opts.key_col, &mut key_text)?;
                check_key(&key_text, &opts.key_col)?;
                Ok((et, pt, None, spelling))
            })()
            .map_err(|e| anyhow!("{name}, row {at}: {e}"));
            match parsed {
                Ok((et, pt, id, spelling)) => {
                    rows.check_room(at)?;
                    rows.spelled(spelling);
                    let id = match id {
                        Some(id) => id,
                        None => {
                            let id = rows.key_id(at, &key_text)?;
                            if let Some(k) = entry {
                                known.learn(k, id);
                            }
                            id
                        }
                    };
                    rows.push_id(et, pt, id)?;
                }
                Err(e) => rows.bad(at, e)?,
            }
        }
        next += batch.num_rows() as u64;
    }
    rows.finish("the Parquet file holds no rows")
}

/// A batch whose times are floats with no nulls, read in ms, and whose keys are a dictionary
/// with no nulls: each row's times and its key's entry straight from the arrays.
struct PlainRows<'a> {
    event: &'a [f64],
    proc: &'a [f64],
    entries: &'a [i32],
}

impl<'a> PlainRows<'a> {
    fn of(
        event: &Cells<'a>,
        proc: Option<&Cells<'a>>,
        key: &Cells<'a>,
        opts: &SourceOptions,
    ) -> Option<PlainRows<'a>> {
        let no_nulls = |c: &Cells<'_>| c.nulls.is_none_or(|n| n.null_count() == 0);
        let proc = proc?;
        if opts.time_format.is_some() || ![event, proc, key].into_iter().all(no_nulls) {
            return None;
        }
        match (&event.values, &proc.values, &key.values) {
            (Values::F64(event), Values::F64(proc), Values::Dict(entries, _, _))
                if event.len() == entries.len() && proc.len() == entries.len() =>
            {
                Some(PlainRows {
                    event,
                    proc,
                    entries,
                })
            }
            _ => None,
        }
    }

    /// Row `i`'s times and key id, when both times are finite ms within the range (what
    /// [`cell_time`] takes as they are) and its key's entry has an id; `None` sends the row
    /// down the general path, which reads it or says what is wrong with it.
    #[inline]
    fn row(&self, i: usize, known: &KnownKeys) -> Option<(f64, f64, u32)> {
        let within = |v: f64| v.is_finite() && v.abs() <= TIME_LIMIT;
        let (et, pt) = (*self.event.get(i)?, *self.proc.get(i)?);
        if !(within(et) && within(pt)) {
            return None;
        }
        let id = known.id(usize::try_from(*self.entries.get(i)?).ok()?)?;
        Some((et, pt, id))
    }
}

/// The metadata with the key column asked for as a dictionary of texts (the pages' own
/// dictionary when they have one, else one the reader builds), when the key is a text; as it
/// was otherwise, or if the reader refuses.
fn dictionary_keys(metadata: ArrowReaderMetadata, key: usize) -> ArrowReaderMetadata {
    // The Arrow schema holds every top-level column, in the file's order.
    let fields = metadata.schema().fields();
    let Some(field) = fields.get(key) else {
        return metadata;
    };
    if field.data_type() != &DataType::Utf8 {
        return metadata;
    }
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let hinted: Vec<FieldRef> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if i == key {
                Arc::new(f.as_ref().clone().with_data_type(dictionary.clone()))
            } else {
                f.clone()
            }
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(
        hinted,
        metadata.schema().metadata().clone(),
    ));
    let options = ArrowReaderOptions::new().with_schema(schema);
    ArrowReaderMetadata::try_new(metadata.metadata().clone(), options).unwrap_or(metadata)
}

/// The key ids of a dictionary's texts, learnt as rows first use them (a key is an id only
/// once a good row has it, as a key read row by row is), and kept while the batches share
/// one dictionary.
#[derive(Default)]
struct KnownKeys {
    /// The dictionary's texts, held so that their buffers stay where they are: the
    /// addresses of their bytes and offsets and their count tell a batch's dictionary from
    /// another one (a freed buffer's address could be given to the next).
    dictionary: Option<(ArrayRef, [usize; 3])>,
    /// Each entry's id, [`KnownKeys::UNKNOWN`] until learnt.
    ids: Vec<u32>,
}

impl KnownKeys {
    const UNKNOWN: u32 = u32::MAX;

    /// Starts a batch: forgets the ids if its dictionary is another one.
    fn meet(&mut self, cells: &Cells<'_>) {
        let Values::Dict(_, texts, held) = cells.values else {
            self.dictionary = None;
            return;
        };
        let this = [
            texts.values().as_ptr() as usize,
            texts.value_offsets().as_ptr() as usize,
            texts.len(),
        ];
        if self.dictionary.as_ref().map(|(_, at)| *at) != Some(this) {
            self.dictionary = Some((held.clone(), this));
            self.ids.clear();
            self.ids.resize(texts.len(), Self::UNKNOWN);
        }
    }

    fn id(&self, entry: usize) -> Option<u32> {
        self.ids
            .get(entry)
            .copied()
            .filter(|&id| id != Self::UNKNOWN)
    }

    fn learn(&mut self, entry: usize, id: u32) {
        if let Some(slot) = self.ids.get_mut(entry) {
            *slot = id;
        }
    }
}

/// Rows per Arrow batch: large enough that a batch's set-up is nothing beside its rows, small
/// enough that its columns stay in the cache.
const BATCH_ROWS: usize = 16 * 1024;

/// The columns a log is read from: each one's index among the file's top-level fields, and
/// the sorted list of those read (a projection keeps the file's order).
struct Columns {
    event_time: usize,
    proc_time: Option<usize>,
    key: usize,
    wanted: Vec<usize>,
}

/// What a column is read for: a time or the key.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Time,
    Key,
}

impl Columns {
    /// Finds the columns `opts` names, or says which is missing or named twice.
    fn find(schema: &SchemaDescriptor, name: &str, opts: &SourceOptions) -> Result<Columns> {
        let root = schema.root_schema();
        let found: Vec<String> = root
            .get_fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect();
        let find = |column: &str, flag: &str| find_column(&found, column, flag, name);
        let event_time = find(&opts.event_time_col, "--event-time-col")?;
        let proc_time = if opts.arrival == Arrival::Column {
            Some(find(&opts.proc_time_col, "--proc-time-col")?)
        } else {
            None
        };
        let key = find(&opts.key_col, "--key-col")?;
        let mut wanted: Vec<usize> = [Some(event_time), proc_time, Some(key)]
            .into_iter()
            .flatten()
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        Ok(Columns {
            event_time,
            proc_time,
            key,
            wanted,
        })
    }

    /// Each column read, with what it is read for: event time, processing time, key.
    fn roots(&self) -> [(Option<usize>, Role); 3] {
        [
            (Some(self.event_time), Role::Time),
            (self.proc_time, Role::Time),
            (Some(self.key), Role::Key),
        ]
    }

    /// Where each column read is among those read.
    fn ranks(&self) -> (usize, Option<usize>, usize) {
        let rank = |i: usize| {
            self.wanted
                .iter()
                .position(|&w| w == i)
                .unwrap_or(usize::MAX)
        };
        (
            rank(self.event_time),
            self.proc_time.map(rank),
            rank(self.key),
        )
    }
}

/// The rows of a Parquet file read one by one as records: for a file whose Arrow schema
/// cannot be derived, or whose columns read are of a type the batches do not take.
fn read_records<R: ChunkReader + 'static>(
    source: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let reader = SerializedFileReader::new(source)
        .map_err(|e| anyhow!("{name}: not a readable Parquet file, or a truncated one ({e})"))?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let columns = Columns::find(&schema, name, opts)?;
    let event_stamped = Stamped::of(&schema, Some(columns.event_time));
    let proc_stamped = Stamped::of(&schema, columns.proc_time);
    check_codecs(reader.metadata(), &columns.wanted, &schema, name)?;
    let (event_time, proc_time, key) = columns.ranks();
    let root = schema.root_schema();
    let projection = ::parquet::schema::types::Type::group_type_builder(root.name())
        .with_fields(
            columns
                .wanted
                .iter()
                .map(|&i| root.get_fields()[i].clone())
                .collect(),
        )
        .build()
        .map_err(|e| anyhow!("{name}: cannot select the columns ({e})"))?;
    let mut rows = Rows::new(opts, name, "row");
    let iter = reader
        .get_row_iter(Some(projection))
        .map_err(|e| anyhow!("{name}: cannot read the Parquet rows ({e})"))?;
    for (i, row) in iter.enumerate() {
        let at = i as u64 + 1;
        let row = row.map_err(|e| {
            anyhow!("{name}, row {at}: cannot read the row, the file is corrupt or truncated ({e})")
        })?;
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let parsed = (|| -> Result<(f64, Option<f64>, String, Spelling)> {
            let (et, mut spelling) = time(
                fields.get(event_time).copied(),
                &opts.event_time_col,
                opts,
                event_stamped,
            )?;
            let pt = match proc_time {
                Some(p) => {
                    let (pt, spelled) = time(
                        fields.get(p).copied(),
                        &opts.proc_time_col,
                        opts,
                        proc_stamped,
                    )?;
                    spelling = spelling.or(spelled);
                    Some(pt)
                }
                None => None,
            };
            let k = key_text(fields.get(key).copied(), &opts.key_col)?;
            check_key(&k, &opts.key_col)?;
            Ok((et, pt, k, spelling))
        })()
        .map_err(|e| anyhow!("{name}, row {at}: {e}"));
        match parsed {
            Ok((et, pt, k, spelling)) => {
                rows.spelled(spelling);
                rows.push(at, et, pt, &k)?
            }
            Err(e) => rows.bad(at, e)?,
        }
    }
    rows.finish("the Parquet file holds no rows")
}

/// Refuses a file whose columns read are compressed with a codec this build cannot decode
/// (LZO), naming it, before any row is read: the rows' own error would call the file corrupt.
fn check_codecs(
    metadata: &ParquetMetaData,
    columns: &[usize],
    schema: &SchemaDescriptor,
    name: &str,
) -> Result<()> {
    for group in metadata.row_groups() {
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
                .any(|&i| Some(schema.root_schema().get_fields()[i].name()) == root);
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

/// How the values of a column read in batches are to be taken: as they are, or as a Parquet
/// timestamp in ms or in µs (which the row reader turns into ms).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Unit {
    Plain,
    Millis,
    Micros,
}

/// How the top-level column `root` is read in batches, for `role`, decided from its Parquet
/// type as the row reader decides a value's [`Field`] (by the converted type), and checked
/// against the Arrow type the batches will hold; `None` when only the row reader takes it.
fn batch_kind(
    schema: &SchemaDescriptor,
    arrow: &SchemaRef,
    root: Option<usize>,
    role: Role,
) -> Option<Unit> {
    let root = root?;
    if !schema.root_schema().get_fields().get(root)?.is_primitive() {
        return None;
    }
    let leaf = (0..schema.num_columns()).find(|&l| schema.get_column_root_idx(l) == root)?;
    let column = schema.column(leaf);
    if column.max_rep_level() != 0 {
        return None;
    }
    // The Arrow schema holds every top-level column, in the file's order.
    let data_type = arrow.fields().get(root)?.data_type();
    // Without the embedded schema, the reader's own types are these.
    let unit = match (column.physical_type(), column.converted_type(), data_type) {
        (PhysicalType::INT32, ConvertedType::NONE | ConvertedType::INT_32, DataType::Int32)
        | (PhysicalType::INT32, ConvertedType::INT_8, DataType::Int8)
        | (PhysicalType::INT32, ConvertedType::INT_16, DataType::Int16)
        | (PhysicalType::INT32, ConvertedType::UINT_8, DataType::UInt8)
        | (PhysicalType::INT32, ConvertedType::UINT_16, DataType::UInt16)
        | (PhysicalType::INT32, ConvertedType::UINT_32, DataType::UInt32)
        | (PhysicalType::INT64, ConvertedType::UINT_64, DataType::UInt64)
        | (PhysicalType::FLOAT, ConvertedType::NONE, DataType::Float32)
        | (PhysicalType::DOUBLE, ConvertedType::NONE, DataType::Float64)
        | (PhysicalType::BYTE_ARRAY, ConvertedType::UTF8, DataType::Utf8) => Unit::Plain,
        // A timestamp in ns has no converted type: the row reader gives its plain number.
        (
            PhysicalType::INT64,
            ConvertedType::NONE | ConvertedType::INT_64,
            DataType::Int64 | DataType::Timestamp(..),
        ) => Unit::Plain,
        (PhysicalType::BYTE_ARRAY, ConvertedType::NONE, DataType::Binary) if role == Role::Key => {
            Unit::Plain
        }
        (PhysicalType::INT64, ConvertedType::TIMESTAMP_MILLIS, DataType::Timestamp(..))
            if role == Role::Time =>
        {
            Unit::Millis
        }
        (PhysicalType::INT64, ConvertedType::TIMESTAMP_MICROS, DataType::Timestamp(..))
            if role == Role::Time =>
        {
            Unit::Micros
        }
        _ => return None,
    };
    Some(unit)
}

/// One column of a batch, its values as the Arrow array holds them.
enum Values<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Text(&'a StringArray),
    Bytes(&'a BinaryArray),
    /// Texts as a dictionary: each row's entry, the entries, and the array that holds them.
    Dict(&'a [i32], &'a StringArray, &'a ArrayRef),
    /// A type [`batch_kind`] does not pass.
    Other,
}

/// A column of a batch, ready to give each row's value.
struct Cells<'a> {
    values: Values<'a>,
    nulls: Option<&'a NullBuffer>,
    unit: Unit,
}

/// One row's value of a column, as the row reader's [`Field`] would have held it.
enum Cell<'a> {
    Null,
    Int(i64),
    UInt(u64),
    F32(f32),
    F64(f64),
    /// A Parquet timestamp, in its unit (ms or µs).
    Stamp(i64, TimeFormat),
    Text(&'a str),
    /// A text and its entry in the batch's dictionary.
    Entry(usize, &'a str),
    Bytes(&'a [u8]),
    Other,
}

impl<'a> Cells<'a> {
    fn of(array: &'a dyn Array, unit: Unit) -> Cells<'a> {
        let values = match array.data_type() {
            DataType::Int8 => Values::I8(array.as_primitive::<Int8Type>().values()),
            DataType::Int16 => Values::I16(array.as_primitive::<Int16Type>().values()),
            DataType::Int32 => Values::I32(array.as_primitive::<Int32Type>().values()),
            DataType::Int64 => Values::I64(array.as_primitive::<Int64Type>().values()),
            DataType::UInt8 => Values::U8(array.as_primitive::<UInt8Type>().values()),
            DataType::UInt16 => Values::U16(array.as_primitive::<UInt16Type>().values()),
            DataType::UInt32 => Values::U32(array.as_primitive::<UInt32Type>().values()),
            DataType::UInt64 => Values::U64(array.as_primitive::<UInt64Type>().values()),
            DataType::Float32 => Values::F32(array.as_primitive::<Float32Type>().values()),
            DataType::Float64 => Values::F64(array.as_primitive::<Float64Type>().values()),
            DataType::Timestamp(TimeUnit::Second, _) => {
                Values::I64(array.as_primitive::<TimestampSecondType>().values())
            }
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                Values::I64(array.as_primitive::<TimestampMillisecondType>().values())
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                Values::I64(array.as_primitive::<TimestampMicrosecondType>().values())
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                Values::I64(array.as_primitive::<TimestampNanosecondType>().values())
            }
            DataType::Utf8 => Values::Text(array.as_string::<i32>()),
            DataType::Binary => Values::Bytes(array.as_binary::<i32>()),
            DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => {
                let dictionary = array.as_dictionary::<Int32Type>();
                match dictionary.values().as_string_opt::<i32>() {
                    Some(texts) => {
                        Values::Dict(dictionary.keys().values(), texts, dictionary.values())
                    }
                    None => Values::Other,
                }
            }
            _ => Values::Other,
        };
        Cells {
            values,
            nulls: array.nulls(),
            unit,
        }
    }

    /// Row `i`'s value.
    #[inline]
    fn get(&self, i: usize) -> Cell<'a> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return Cell::Null;
        }
        match self.values {
            Values::I8(v) => Cell::Int(v[i].into()),
            Values::I16(v) => Cell::Int(v[i].into()),
            Values::I32(v) => Cell::Int(v[i].into()),
            Values::I64(v) => match self.unit {
                Unit::Plain => Cell::Int(v[i]),
                Unit::Millis => Cell::Stamp(v[i], TimeFormat::Ms),
                Unit::Micros => Cell::Stamp(v[i], TimeFormat::Us),
            },
            Values::U8(v) => Cell::Int(v[i].into()),
            Values::U16(v) => Cell::Int(v[i].into()),
            Values::U32(v) => Cell::Int(v[i].into()),
            Values::U64(v) => Cell::UInt(v[i]),
            Values::F32(v) => Cell::F32(v[i]),
            Values::F64(v) => Cell::F64(v[i]),
            Values::Text(a) => Cell::Text(a.value(i)),
            Values::Bytes(a) => Cell::Bytes(a.value(i)),
            Values::Dict(entries, texts, _) => match usize::try_from(entries[i]) {
                Ok(k) if k < texts.len() => Cell::Entry(k, texts.value(k)),
                _ => Cell::Other,
            },
            Values::Other => Cell::Other,
        }
    }
}

/// A time from a batch's cell and how it was spelled (a timestamp is a date): what [`time`]
/// makes of the same value read as a record.
fn cell_time(
    cell: Cell<'_>,
    column: &str,
    opts: &SourceOptions,
    stamped: Stamped,
) -> Result<(f64, Spelling)> {
    let zone = opts.time_zone.as_ref();
    let number = |v: f64| read_time(RawTime::Number(v), opts.time_format, zone, column);
    let integer = |v: i128| read_time(RawTime::Integer(v), opts.time_format, zone, column);
    match cell {
        Cell::Null => bail!("{column} is missing (null)"),
        Cell::Int(v) if stamped.nanos => stamp_time(v, TimeFormat::Ns, stamped, column, opts),
        Cell::Int(v) => integer(v.into()),
        Cell::UInt(v) => integer(v.into()),
        Cell::F32(v) => number(v as f64),
        // A float in ms as most logs hold it: what `time_ms` gives, without its call.
        Cell::F64(v) if opts.time_format.is_none() && v.is_finite() && v.abs() <= TIME_LIMIT => {
            Ok((v, Spelling::NUMBER))
        }
        Cell::F64(v) => number(v),
        Cell::Stamp(v, unit) => stamp_time(v, unit, stamped, column, opts),
        Cell::Text(s) | Cell::Entry(_, s) => {
            read_time(RawTime::Text(s), opts.time_format, zone, column)
        }
        Cell::Bytes(_) | Cell::Other => {
            bail!("{column} is not a time (a number, a timestamp or a date as text)")
        }
    }
}

/// What a time column's Parquet type says beyond its values: a timestamp in nanoseconds
/// (which both readers see as plain integers), and a timestamp not adjusted to UTC (a civil
/// time, as DuckDB's TIMESTAMP and pandas' datetimes without a zone are written).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Stamped {
    nanos: bool,
    local: bool,
}

impl Stamped {
    /// What the top-level column `root`'s logical type says.
    fn of(schema: &SchemaDescriptor, root: Option<usize>) -> Stamped {
        use ::parquet::basic::{LogicalType, TimeUnit as StampUnit};
        let field = root.and_then(|r| schema.root_schema().get_fields().get(r));
        match field.and_then(|f| f.get_basic_info().logical_type_ref()) {
            Some(LogicalType::Timestamp(t)) => Stamped {
                nanos: t.unit == StampUnit::NANOS,
                local: !t.is_adjusted_to_u_t_c,
            },
            _ => Stamped::default(),
        }
    }
}

/// A Parquet timestamp `v` in `unit`: an instant, or (not adjusted to UTC) a civil time read
/// in the zone in force (UTC unless --time-zone names another), as a date without an offset is.
fn stamp_time(
    v: i64,
    unit: TimeFormat,
    stamped: Stamped,
    column: &str,
    opts: &SourceOptions,
) -> Result<(f64, Spelling)> {
    let (ms, _) = read_time(RawTime::Integer(v.into()), Some(unit), None, column)?;
    if !stamped.local {
        return Ok((ms, Spelling::DATE));
    }
    let Some(zone) = &opts.time_zone else {
        return Ok((ms, Spelling::LOCAL_DATE));
    };
    match civil_ms_in(ms, zone) {
        Some(ms) => Ok((ms, Spelling::LOCAL_DATE)),
        None => bail!(
            "{column} {} {} is not a time in {}",
            v,
            unit.name(),
            zone.name()
        ),
    }
}

/// A key from a batch's cell, written into `out`: what [`key_text`] makes of the same value
/// read as a record.
fn cell_key(cell: Cell<'_>, column: &str, out: &mut String) -> Result<()> {
    out.clear();
    match cell {
        Cell::Null => bail!("{column} is missing (null)"),
        Cell::Text(s) | Cell::Entry(_, s) => out.push_str(s),
        Cell::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Cell::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Cell::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => out.push_str(s),
            Err(_) => bail!("{column} holds bytes that are not UTF-8 text"),
        },
        Cell::F32(v) => bail!(
            "{column} {} is a number, not a key (a text or an integer)",
            quoted(&format!("{v:?}"))
        ),
        Cell::F64(v) => bail!(
            "{column} {} is a number, not a key (a text or an integer)",
            number_shown(v)
        ),
        Cell::Stamp(..) | Cell::Other => bail!("{column} is not a key (a text or an integer)"),
    }
    Ok(())
}

/// A time from a record's field and how it was spelled (a timestamp is a date).
fn time(
    field: Option<&Field>,
    column: &str,
    opts: &SourceOptions,
    stamped: Stamped,
) -> Result<(f64, Spelling)> {
    let zone = opts.time_zone.as_ref();
    let number = |v: f64| read_time(RawTime::Number(v), opts.time_format, zone, column);
    let integer = |v: i128| read_time(RawTime::Integer(v), opts.time_format, zone, column);
    // A Parquet timestamp carries its unit.
    let stamp = |v: i64, unit| stamp_time(v, unit, stamped, column, opts);
    match field {
        None | Some(Field::Null) => bail!("{column} is missing (null)"),
        Some(Field::Long(v)) if stamped.nanos => stamp(*v, TimeFormat::Ns),
        Some(Field::Byte(v)) => integer((*v).into()),
        Some(Field::Short(v)) => integer((*v).into()),
        Some(Field::Int(v)) => integer((*v).into()),
        Some(Field::Long(v)) => integer((*v).into()),
        Some(Field::UByte(v)) => integer((*v).into()),
        Some(Field::UShort(v)) => integer((*v).into()),
        Some(Field::UInt(v)) => integer((*v).into()),
        Some(Field::ULong(v)) => integer((*v).into()),
        Some(Field::Float(v)) => number(*v as f64),
        Some(Field::Double(v)) => number(*v),
        Some(Field::TimestampMillis(v)) => stamp(*v, TimeFormat::Ms),
        Some(Field::TimestampMicros(v)) => stamp(*v, TimeFormat::Us),
        Some(Field::Str(s)) => read_time(RawTime::Text(s), opts.time_format, zone, column),
        // Read as its digits are in a CSV field: the same parser, so the same bits.
        Some(Field::Decimal(d)) => {
            let Some((unscaled, scale)) = decimal_value(d) else {
                bail!(
                    "{column} is a decimal of more than 38 digits, beyond any time (within \
                     ±2^53 ms)"
                );
            };
            read_time(
                RawTime::Written(&decimal_text(unscaled, scale)),
                opts.time_format,
                zone,
                column,
            )
        }
        Some(other) => bail!(
            "{column} {} is not a time (a number, a timestamp or a date as text)",
            quoted(&field_shown(other))
        ),
    }
}

/// A value as the row reader writes it, but a date or a timestamp past the years its printer
/// takes (about ±262000, where it panics) as its number and unit: `9007199254740993 ms`.
pub(crate) fn field_shown(field: &Field) -> String {
    // 8e15 ms, some 253 000 years, well inside the printer's range.
    const PRINTED_MS: i64 = 8_000_000_000_000_000;
    match *field {
        Field::Date(d) if i64::from(d).abs() > PRINTED_MS / 86_400_000 => format!("day {d}"),
        Field::TimestampMillis(v) if v.unsigned_abs() > PRINTED_MS as u64 => format!("{v} ms"),
        Field::TimestampMicros(v) if v.unsigned_abs() / 1000 > PRINTED_MS as u64 => {
            format!("{v} µs")
        }
        ref other => other.to_string(),
    }
}

/// A Parquet decimal (stored as INT32, INT64 or bytes, big-endian two's complement): its
/// unscaled value and its scale, `None` when the unscaled value does not fit in 128 bits.
fn decimal_value(d: &::parquet::data_type::Decimal) -> Option<(i128, u32)> {
    let bytes = d.data();
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // Bytes before the last 16 may only extend the sign, which the 16 must then carry.
    let cut = bytes.len().saturating_sub(16);
    let fill = if negative { 0xff } else { 0 };
    if bytes[..cut].iter().any(|&b| b != fill)
        || bytes.get(cut).is_some_and(|b| (b & 0x80 != 0) != negative)
    {
        return None;
    }
    let unscaled = bytes[cut..]
        .iter()
        .fold(if negative { -1i128 } else { 0 }, |v, &b| {
            (v << 8) | i128::from(b)
        });
    Some((unscaled, u32::try_from(d.scale()).ok()?))
}

/// The exact value of `unscaled` at `scale` as text: `-27780400` at scale 2 is `-277804.00`.
fn decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = digits.split_at(digits.len() - scale);
    format!("{sign}{whole}.{fraction}")
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
            quoted(&field_shown(other))
        ),
    })
}

#[cfg(test)]
mod tests {
    //! The batch reader against the row reader: the same events, report and errors for every
    //! column type the batches take, nulls, bad rows, dictionaries and options.
    use super::*;
    use crate::rows::{outcome, OnBadRow};
    use ::parquet::data_type::Int64Type as I64;
    use ::parquet::data_type::{ByteArray, ByteArrayType, DoubleType, FloatType, Int32Type as I32};
    use ::parquet::file::properties::WriterProperties;
    use ::parquet::file::writer::SerializedFileWriter;

    /// A column's values as written (`None`: null, in an optional column).
    #[derive(Clone)]
    enum Col {
        I32(Vec<Option<i32>>),
        I64(Vec<Option<i64>>),
        F32(Vec<Option<f32>>),
        F64(Vec<Option<f64>>),
        Bytes(Vec<Option<Vec<u8>>>),
        /// Fixed-length byte arrays.
        Fixed(Vec<Option<Vec<u8>>>),
    }

    fn write(message: &str, columns: &[Col], dictionary: bool, group_rows: usize) -> Vec<u8> {
        let schema = Arc::new(::parquet::schema::parser::parse_message_type(message).unwrap());
        let props = Arc::new(
            WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .build(),
        );
        let rows = match &columns[0] {
            Col::I32(v) => v.len(),
            Col::I64(v) => v.len(),
            Col::F32(v) => v.len(),
            Col::F64(v) => v.len(),
            Col::Bytes(v) | Col::Fixed(v) => v.len(),
        };
        let mut out = Vec::new();
        let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
        let mut from = 0;
        while from < rows {
            let to = (from + group_rows).min(rows);
            let mut group = w.next_row_group().unwrap();
            let mut i = 0;
            while let Some(mut col) = group.next_column().unwrap() {
                fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
                    let values = v.iter().flatten().cloned().collect();
                    let levels = v.iter().map(|x| i16::from(x.is_some())).collect();
                    (values, levels)
                }
                let optional = col_optional(message, i);
                macro_rules! put {
                    ($t:ty, $v:expr) => {{
                        let (values, levels) = split(&$v[from..to]);
                        let levels = optional.then_some(&levels[..]);
                        col.typed::<$t>()
                            .write_batch(&values, levels, None)
                            .unwrap();
                    }};
                }
                match &columns[i] {
                    Col::I32(v) => put!(I32, v),
                    Col::I64(v) => put!(I64, v),
                    Col::F32(v) => put!(FloatType, v),
                    Col::F64(v) => put!(DoubleType, v),
                    Col::Bytes(v) => {
                        let v: Vec<Option<ByteArray>> = v
                            .iter()
                            .map(|b| b.as_ref().map(|b| ByteArray::from(b.clone())))
                            .collect();
                        put!(ByteArrayType, v)
                    }
                    Col::Fixed(v) => {
                        let v: Vec<Option<::parquet::data_type::FixedLenByteArray>> = v
                            .iter()
                            .map(|b| b.as_ref().map(|b| ByteArray::from(b.clone()).into()))
                            .collect();
                        put!(::parquet::data_type::FixedLenByteArrayType, v)
                    }
                }
                col.close().unwrap();
                i += 1;
            }
            group.close().unwrap();
            from = to;
        }
        w.close().unwrap();
        out
    }

    /// Whether the `i`-th field of `message` is optional.
    fn col_optional(message: &str, i: usize) -> bool {
        message
            .split(';')
            .nth(i)
            .is_some_and(|f| f.contains("optional"))
    }

    fn same(message: &str, columns: &[Col]) {
        let options = [
            SourceOptions::default(),
            SourceOptions {
                on_bad_row: OnBadRow::Skip,
                ..SourceOptions::default()
            },
            SourceOptions {
                time_format: Some(TimeFormat::S),
                on_bad_row: OnBadRow::Skip,
                ..SourceOptions::default()
            },
            SourceOptions {
                arrival: Arrival::FileOrder,
                on_bad_row: OnBadRow::Skip,
                ..SourceOptions::default()
            },
            SourceOptions {
                key_col: "event_time_ms".into(),
                on_bad_row: OnBadRow::Skip,
                ..SourceOptions::default()
            },
            SourceOptions {
                max_rows: 3,
                ..SourceOptions::default()
            },
            SourceOptions {
                time_zone: Some(crate::times::zone_named("America/New_York").unwrap()),
                on_bad_row: OnBadRow::Skip,
                ..SourceOptions::default()
            },
        ];
        for dictionary in [true, false] {
            for group_rows in [2, 7, 50_000] {
                let bytes = bytes::Bytes::from(write(message, columns, dictionary, group_rows));
                for opts in &options {
                    let batches = outcome(read_batches(bytes.clone(), "t.parquet", opts, 3));
                    let records = outcome(read_records(bytes.clone(), "t.parquet", opts));
                    if batches != records {
                        let at = batches
                            .bytes()
                            .zip(records.bytes())
                            .position(|(a, b)| a != b)
                            .unwrap_or(batches.len().min(records.len()));
                        let around = |s: &str| {
                            let from = s.floor_char_boundary(at.saturating_sub(150));
                            s[from..s.ceil_char_boundary((at + 150).min(s.len()))].to_string()
                        };
                        panic!(
                            "{message} {opts:?} dictionary {dictionary} groups of \
                             {group_rows}:\nbatches …{}…\nrecords …{}…",
                            around(&batches),
                            around(&records)
                        );
                    }
                }
            }
        }
    }

    fn texts(v: &[&str]) -> Col {
        Col::Bytes(v.iter().map(|s| Some(s.as_bytes().to_vec())).collect())
    }

    const PLAIN: &str = "required double event_time_ms; required double proc_time_ms; \
                         required binary key (UTF8);";

    #[test]
    fn numbers_and_texts_read_alike() {
        let e = || {
            Col::F64(vec![
                Some(5.0),
                Some(1.5),
                Some(f64::NAN),
                Some(2.0),
                Some(3.0),
            ])
        };
        let p = || {
            Col::F64(vec![
                Some(6.0),
                Some(1e300),
                Some(3.0),
                Some(1.0),
                Some(4.0),
            ])
        };
        same(
            &format!("message m {{ {PLAIN} }}"),
            &[e(), p(), texts(&["a", "b", "", "a", "c\u{7}"])],
        );
        same(
            "message m { required int32 event_time_ms; required int32 proc_time_ms (UINT_16); \
             required int32 key; }",
            &[
                Col::I32(vec![Some(1), Some(-2), Some(3)]),
                Col::I32(vec![Some(2), Some(65535), Some(4)]),
                Col::I32(vec![Some(7), Some(-7), Some(7)]),
            ],
        );
        same(
            "message m { required int32 event_time_ms (INT_8); required int64 proc_time_ms \
             (UINT_64); required int64 key (UINT_64); }",
            &[
                Col::I32(vec![Some(1), Some(-2), Some(3)]),
                Col::I64(vec![Some(2), Some(-1), Some(4)]),
                Col::I64(vec![Some(2), Some(-1), Some(4)]),
            ],
        );
        same(
            "message m { required float event_time_ms; required float proc_time_ms; \
             required float key; }",
            &[
                Col::F32(vec![Some(1.5), Some(2.0)]),
                Col::F32(vec![Some(2.5), Some(3.0)]),
                Col::F32(vec![Some(0.0), Some(1.0)]),
            ],
        );
        same(
            "message m { required double event_time_ms; required double proc_time_ms; \
             required double key; }",
            &[
                Col::F64(vec![Some(1.5)]),
                Col::F64(vec![Some(2.5)]),
                Col::F64(vec![Some(0.0)]),
            ],
        );
    }

    #[test]
    fn timestamps_read_in_their_unit_or_as_numbers() {
        for unit in [
            "TIMESTAMP_MILLIS",
            "TIMESTAMP_MICROS",
            "TIMESTAMP(NANOS,true)",
            "TIMESTAMP(MILLIS,false)",
            "INT_64",
        ] {
            same(
                &format!(
                    "message m {{ required int64 event_time_ms ({unit}); required int64 \
                     proc_time_ms ({unit}); required binary key (UTF8); }}"
                ),
                &[
                    Col::I64(vec![Some(1_000), Some(2_000_000), Some(i64::MAX)]),
                    Col::I64(vec![Some(1_500), Some(2_500_000), Some(3)]),
                    texts(&["a", "b", "a"]),
                ],
            );
        }
    }

    #[test]
    fn times_as_text_and_keys_as_bytes() {
        same(
            "message m { required binary event_time_ms (UTF8); required binary proc_time_ms \
             (UTF8); required binary key; }",
            &[
                texts(&["1000", "2026-12-04T08:00:00.250Z", "soon", "", "3"]),
                texts(&["1001", "2026-12-04T08:00:01Z", "4", "5", "1e400"]),
                Col::Bytes(vec![
                    Some(b"k".to_vec()),
                    Some(vec![0xff, 0xfe]),
                    Some(b"k".to_vec()),
                    Some(b"j".to_vec()),
                    Some(b"j".to_vec()),
                ]),
            ],
        );
    }

    #[test]
    fn nulls_are_missing_values() {
        same(
            "message m { optional double event_time_ms; optional double proc_time_ms; \
             optional binary key (UTF8); }",
            &[
                Col::F64(vec![Some(1.0), None, Some(3.0), Some(4.0)]),
                Col::F64(vec![Some(2.0), Some(3.0), None, Some(5.0)]),
                Col::Bytes(vec![
                    Some(b"a".to_vec()),
                    Some(b"b".to_vec()),
                    Some(b"c".to_vec()),
                    None,
                ]),
            ],
        );
    }

    #[test]
    fn types_only_the_row_reader_takes_read_as_before() {
        same(
            "message m { required int32 event_time_ms (DATE); required double proc_time_ms; \
             required binary key (UTF8); }",
            &[
                Col::I32(vec![Some(1), Some(2)]),
                Col::F64(vec![Some(1.0), Some(2.0)]),
                texts(&["a", "b"]),
            ],
        );
        same(
            "message m { required double event_time_ms; required double proc_time_ms; \
             required int64 key (TIMESTAMP_MILLIS); }",
            &[
                Col::F64(vec![Some(1.0)]),
                Col::F64(vec![Some(2.0)]),
                Col::I64(vec![Some(3)]),
            ],
        );
    }

    #[test]
    fn many_batches_many_keys_and_a_bad_row_among_them() {
        let n = 40;
        let e: Vec<Option<f64>> = (0..n).map(|i| Some(i as f64 * 0.5)).collect();
        let mut p: Vec<Option<f64>> = (0..n).map(|i| Some(i as f64 * 0.5 + 7.0)).collect();
        p[13] = Some(f64::INFINITY);
        let keys: Vec<Option<Vec<u8>>> = (0..n)
            .map(|i| Some(format!("user-{}", (i * 7919) % 11).into_bytes()))
            .collect();
        let mut keys = keys;
        keys[29] = Some(Vec::new());
        same(
            &format!("message m {{ {PLAIN} }}"),
            &[Col::F64(e), Col::F64(p), Col::Bytes(keys)],
        );
    }

    #[test]
    fn rows_of_plain_times_and_known_keys_read_as_every_other_row() {
        // Batches of three: most rows two finite times in ms and a key met before, among
        // them times the general path reads or refuses (not finite, past the range, a
        // negative zero, unordered), keys first met, a bad key, and nulls in some batches.
        let n = 60;
        let mut e: Vec<Option<f64>> = (0..n).map(|i| Some(i as f64 * 250.5)).collect();
        let mut p: Vec<Option<f64>> = (0..n).map(|i| Some(i as f64 * 250.5 + 9.0)).collect();
        let mut keys: Vec<Option<Vec<u8>>> = (0..n)
            .map(|i| Some(["b", "a", "c"][(i * 7) % 3].as_bytes().to_vec()))
            .collect();
        e[4] = Some(f64::NAN);
        p[8] = Some(f64::NEG_INFINITY);
        e[11] = Some(TIME_LIMIT * 2.0);
        p[16] = Some(-0.0);
        e[17] = Some(-TIME_LIMIT);
        p[23] = Some(1.0);
        keys[31] = Some("late".as_bytes().to_vec());
        keys[35] = Some(Vec::new());
        keys[38] = None;
        e[44] = None;
        p[52] = None;
        same(
            "message m { optional double event_time_ms; optional double proc_time_ms; \
             optional binary key (UTF8); }",
            &[
                Col::F64(e.clone()),
                Col::F64(p.clone()),
                Col::Bytes(keys.clone()),
            ],
        );
        let whole = |v: &[Option<f64>]| v.iter().map(|t| t.or(Some(0.0))).collect();
        let named = keys
            .iter()
            .map(|k| k.clone().or(Some(b"z".to_vec())))
            .collect();
        same(
            &format!("message m {{ {PLAIN} }}"),
            &[Col::F64(whole(&e)), Col::F64(whole(&p)), Col::Bytes(named)],
        );
    }

    /// `value`'s last `n` big-endian two's-complement bytes, sign-extended to `n`.
    fn be(value: i128, n: usize) -> Vec<u8> {
        let fill = if value < 0 { 0xff } else { 0 };
        let mut bytes = vec![fill; n.saturating_sub(16)];
        bytes.extend_from_slice(&value.to_be_bytes()[16usize.saturating_sub(n)..]);
        bytes
    }

    /// The log in `message`, read: what reading its values as CSV `text` gives, or the error.
    fn as_csv(message: &str, columns: &[Col], text: &str, opts: &SourceOptions) {
        let bytes = bytes::Bytes::from(write(message, columns, false, 50_000));
        let got = outcome(read_rows(bytes, "t.parquet", opts));
        let want = outcome(crate::csv::read_rows(text.as_bytes(), "t.parquet", opts))
            .replace("unit: \"line\"", "unit: \"row\"");
        assert_eq!(got, want, "{message}");
    }

    #[test]
    fn decimal_times_are_read_as_their_digits_would_be() {
        // A decimal(20,0) time was refused: "event_time_ms '277804.' is not a time".
        let times: [i128; 4] = [277_804, -1, 0, (1 << 53) - 1];
        let fixed = Col::Fixed(times.iter().map(|&v| Some(be(v, 9))).collect());
        // decimal(18,3) in INT64, decimal(9,2) in INT32, decimal(30,4) in a binary.
        let proc = Col::I64(vec![Some(277_805_500), Some(-1), Some(1), Some(9)]);
        let keys = Col::I32(vec![Some(7), Some(-2), Some(0), Some(3)]);
        as_csv(
            "message m { required fixed_len_byte_array(9) event_time_ms (DECIMAL(20,0)); \
             required int64 proc_time_ms (DECIMAL(18,3)); required int32 key; }",
            &[fixed, proc, keys],
            "event_time_ms,proc_time_ms,key\n277804,277805.500,7\n-1,-0.001,-2\n0,0.001,0\n\
             9007199254740991,0.009,3\n",
            &SourceOptions::default(),
        );
        let small = Col::I32(vec![Some(150), Some(-5)]);
        let wide = Col::Bytes(vec![Some(be(12_345, 2)), Some(be(-10_000_000, 13))]);
        let keys = Col::Bytes(vec![Some(b"a".to_vec()), Some(b"b".to_vec())]);
        for opts in [
            SourceOptions::default(),
            SourceOptions {
                time_format: Some(TimeFormat::S),
                ..SourceOptions::default()
            },
        ] {
            as_csv(
                "message m { required int32 event_time_ms (DECIMAL(9,2)); \
                 required binary proc_time_ms (DECIMAL(30,4)); required binary key (UTF8); }",
                &[small.clone(), wide.clone(), keys.clone()],
                "event_time_ms,proc_time_ms,key\n1.50,1.2345,a\n-0.05,-1000.0000,b\n",
                &opts,
            );
        }
    }

    #[test]
    fn a_decimal_is_within_the_range_by_its_exact_value() {
        let within = |unscaled: i128, scale: u32, format: Option<TimeFormat>| {
            let text = decimal_text(unscaled, scale);
            crate::rows::time_ms(RawTime::Written(&text), format, "t").is_ok()
        };
        let limit = 1i128 << 53;
        assert!(within(limit, 0, None));
        assert!(!within(limit + 1, 0, None));
        assert!(!within(-limit - 1, 0, None));
        // 2^53 ms and a thousandth more, in seconds at scale 3 and in µs.
        assert!(within(limit, 3, Some(TimeFormat::S)));
        assert!(!within(limit + 1, 3, Some(TimeFormat::S)));
        assert!(within(limit * 1000, 0, Some(TimeFormat::Us)));
        assert!(!within(limit * 1000 + 1, 0, Some(TimeFormat::Us)));
        assert!(within(i128::MAX, 38, Some(TimeFormat::Ns)));
        assert_eq!(decimal_text(-27_780_400, 2), "-277804.00");
        assert_eq!(decimal_text(5, 3), "0.005");
        assert_eq!(decimal_text(i128::MIN, 0), i128::MIN.to_string());
    }

    #[test]
    fn an_integer_time_beyond_the_range_is_refused_not_rounded_into_it() {
        // 2^53 + 1 as an INT64 became the float 2^53 and was read as 9007199254740992 ms;
        // 2^53 µs and one more as a timestamp, the same.
        let limit = 1i64 << 53;
        for (unit, over, shown) in [
            ("INT_64", limit + 1, "9007199254740993"),
            ("INT_64", -limit - 1, "-9007199254740993"),
            ("TIMESTAMP_MILLIS", limit + 1, "9007199254740993"),
            ("TIMESTAMP_MICROS", limit * 1000 + 1, "9007199254740992001"),
        ] {
            let message = format!(
                "message m {{ required int64 event_time_ms ({unit}); required int64 \
                 proc_time_ms ({unit}); required binary key (UTF8); }}"
            );
            let edge = if unit == "TIMESTAMP_MICROS" {
                limit * 1000
            } else {
                limit
            };
            let columns = [
                Col::I64(vec![Some(edge), Some(-edge), Some(over)]),
                Col::I64(vec![Some(1), Some(2), Some(3)]),
                texts(&["a", "b", "a"]),
            ];
            same(&message, &columns);
            let bytes = bytes::Bytes::from(write(&message, &columns, false, 10));
            let got = outcome(read_rows(bytes, "t.parquet", &SourceOptions::default()));
            let want = format!("t.parquet, row 3: event_time_ms '{shown}' is out of range");
            assert!(got.contains(&want), "{unit}: {got}");
        }
        // Under --time-format us, 2^53 ms and a microsecond more; a nanosecond epoch under
        // ns, well within the range (no INT64 of nanoseconds lies past it).
        let message = "message m { required int64 event_time_ms; required int64 proc_time_ms; \
                       required binary key (UTF8); }";
        let read = |format, times: Vec<Option<i64>>| {
            let opts = SourceOptions {
                time_format: Some(format),
                ..SourceOptions::default()
            };
            let n = times.len();
            let columns = [
                Col::I64(times),
                Col::I64(vec![Some(1); n]),
                texts(&vec!["a"; n]),
            ];
            let bytes = bytes::Bytes::from(write(message, &columns, false, 10));
            outcome(read_rows(bytes, "t.parquet", &opts))
        };
        let got = read(
            TimeFormat::Us,
            vec![Some(limit * 1000), Some(limit * 1000 + 1)],
        );
        assert!(
            got.contains("row 2: event_time_ms '9007199254740992001' is out of range"),
            "{got}"
        );
        let got = read(TimeFormat::Us, vec![Some(-limit * 1000)]);
        assert!(got.contains("-9007199254740992.0"), "{got}");
        let epoch = 1_700_000_000_123_456_789i64;
        let got = read(TimeFormat::Ns, vec![Some(epoch), Some(i64::MAX)]);
        assert!(
            got.contains(&format!("{:?}", epoch as f64 / 1e6))
                && got.contains(&format!("{:?}", i64::MAX as f64 / 1e6)),
            "{got}"
        );
    }

    #[test]
    fn a_decimal_time_beyond_the_range_is_refused_with_its_row_and_value() {
        let keys = || Col::Bytes(vec![Some(b"a".to_vec())]);
        let bad = |time: Col, message: &str| {
            let bytes = bytes::Bytes::from(write(
                &format!(
                    "message m {{ {message}; required double proc_time_ms; \
                     required binary key (UTF8); }}"
                ),
                &[time, Col::F64(vec![Some(1.0)]), keys()],
                false,
                10,
            ));
            outcome(read_rows(bytes, "t.parquet", &SourceOptions::default()))
        };
        // 2^53 + 1 ms is not a time a float holds exactly: refused as out of range.
        let err = bad(
            Col::Fixed(vec![Some(be((1 << 53) + 1, 9))]),
            "required fixed_len_byte_array(9) event_time_ms (DECIMAL(20,0))",
        );
        assert!(
            err.contains("row 1")
                && err.contains("event_time_ms '9007199254740993' is out of range"),
            "{err}"
        );
        // An unscaled value past 128 bits.
        let mut huge = vec![0u8; 17];
        huge[0] = 1;
        let err = bad(
            Col::Fixed(vec![Some(huge)]),
            "required fixed_len_byte_array(17) event_time_ms (DECIMAL(40,0))",
        );
        assert!(
            err.contains("row 1")
                && err.contains("event_time_ms is a decimal of more than 38 digits"),
            "{err}"
        );
    }
}
