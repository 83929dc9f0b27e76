//! Ingest speed of a user's log, in MB/s on one core: the three event columns as CSV, JSON
//! Lines and Parquet (uncompressed), read into a sorted [`Stream`](twoclocks::engine::Stream).
//! Run: `cargo bench --bench io`.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use twoclocks::engine::Stream;
use twoclocks::engine::StreamParams;
use twoclocks::io::csv::{write_csv, write_jsonl};
use twoclocks::io::source::{read_source_from, SourceOptions};

const EVENTS: usize = 200_000;

fn parquet_bytes(stream: &twoclocks::engine::Stream) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type(
            "message events { required double event_time_ms; required double proc_time_ms; \
             required binary key (UTF8); }",
        )
        .expect("schema"),
    );
    let props = Arc::new(WriterProperties::builder().build());
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, props).expect("writer");
    let mut group = w.next_row_group().expect("row group");
    let mut i = 0;
    while let Some(mut col) = group.next_column().expect("column") {
        match i {
            0 | 1 => {
                let v: Vec<f64> = stream
                    .events
                    .iter()
                    .map(|e| if i == 0 { e.event_time } else { e.proc_time })
                    .collect();
                col.typed::<DoubleType>()
                    .write_batch(&v, None, None)
                    .expect("write");
            }
            _ => {
                let v: Vec<ByteArray> = stream
                    .events
                    .iter()
                    .map(|e| ByteArray::from(stream.key_name(e.key)))
                    .collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, None, None)
                    .expect("write");
            }
        }
        col.close().expect("close");
        i += 1;
    }
    group.close().expect("close");
    w.close().expect("close");
    out
}

fn ingest(c: &mut Criterion) {
    let stream = Stream::generate(&StreamParams {
        events: EVENTS,
        ..Default::default()
    })
    .expect("a stream");
    let mut csv = Vec::new();
    write_csv(&stream, &mut csv).expect("csv");
    let mut jsonl = Vec::new();
    write_jsonl(&stream, &mut jsonl).expect("jsonl");
    let parquet = parquet_bytes(&stream);
    let opts = SourceOptions::default();
    let mut g = c.benchmark_group("ingest");
    g.sample_size(10);
    for (name, bytes) in [
        ("events.csv", &csv),
        ("events.jsonl", &jsonl),
        ("events.parquet", &parquet),
    ] {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let (s, _) =
                    read_source_from(bytes.as_slice(), name, Some(name), &opts).expect("reads");
                assert_eq!(s.len(), EVENTS);
                s
            })
        });
    }
    g.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
