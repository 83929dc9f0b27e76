//! `run --input` on a log already in processing-time order replays it one event at a time
//! from a temporary file; any other log is sorted in memory. Both paths must print the same
//! bytes: a log in order is compared with the same rows with its last two swapped (which only
//! the in-memory sort puts back), in every format, and over random small logs. A table with
//! no other output is run while the log is read, its keys numbered as they first appear and
//! put back in name order at the end: logs whose keys first appear in reverse name order, and
//! on a wall clock in a zone (whose windows are placed by the log's first event), print what
//! the log sorted in memory prints.

use std::io::Write as _;
use std::sync::Arc;

use crate::cli_input_times::COLUMNS;
use proptest::prelude::*;
use twoclocks::io::source::{read_source_events_from, InputFormat, SourceOptions};
use twoclocks::io::spool::Events;

/// One row: event time, processing time (ms), key.
type Row = (f64, f64, String);

fn csv(rows: &[Row]) -> Vec<u8> {
    let mut s = String::from("event_time_ms,proc_time_ms,key\n");
    for (e, p, k) in rows {
        s.push_str(&format!("{e},{p},{k}\n"));
    }
    s.into_bytes()
}

fn jsonl(rows: &[Row]) -> Vec<u8> {
    let mut s = String::new();
    for (e, p, k) in rows {
        s.push_str(&format!(
            "{{\"event_time_ms\":{e},\"proc_time_ms\":{p},\"key\":\"{k}\"}}\n"
        ));
    }
    s.into_bytes()
}

fn parquet(rows: &[Row]) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type(
            "message events { required double event_time_ms; required double proc_time_ms; \
             required binary key (UTF8); }",
        )
        .unwrap(),
    );
    let mut out = Vec::new();
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut group = w.next_row_group().unwrap();
    let mut i = 0;
    while let Some(mut col) = group.next_column().unwrap() {
        match i {
            0 | 1 => {
                let v: Vec<f64> = rows
                    .iter()
                    .map(|r| if i == 0 { r.0 } else { r.1 })
                    .collect();
                col.typed::<DoubleType>()
                    .write_batch(&v, None, None)
                    .unwrap();
            }
            _ => {
                let v: Vec<ByteArray> =
                    rows.iter().map(|r| ByteArray::from(r.2.as_str())).collect();
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

/// The log in `format`, with the file name that says it.
fn encode(format: InputFormat, rows: &[Row]) -> (Vec<u8>, &'static str) {
    match format {
        InputFormat::Csv => (csv(rows), "log.csv"),
        InputFormat::Jsonl => (jsonl(rows), "log.jsonl"),
        InputFormat::Parquet => (parquet(rows), "log.parquet"),
    }
}

/// What `twoclocks run --input FILE ARGS` prints, run in this process.
fn run(dir: &std::path::Path, name: &str, bytes: &[u8], args: &[&str]) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    let mut argv = vec!["twoclocks", "run", "--input", path.to_str().unwrap()];
    argv.extend_from_slice(args);
    let cmd = match twoclocks::cli::parse(argv) {
        Ok(twoclocks::cli::Invocation::Command(c)) => c,
        _ => panic!("bad flags {args:?}"),
    };
    let mut out = Vec::new();
    match twoclocks::cli::execute(&cmd, &mut out) {
        Ok(()) => String::from_utf8(out).unwrap(),
        Err(e) => format!("error: {e:#}"),
    }
}

/// The rows with the last two swapped: out of order when their processing times differ.
fn swapped(rows: &[Row]) -> Vec<Row> {
    let mut r = rows.to_vec();
    let n = r.len();
    r.swap(n - 1, n - 2);
    r
}

/// A log in processing-time order whose keys first appear out of name order, with late
/// events, equal processing times and distinct last two.
fn sample() -> Vec<Row> {
    let keys = ["m", "b", "zz", "a", "k"];
    let mut rows = Vec::new();
    for i in 0..3000u32 {
        let p = f64::from(i / 2) * 37.0;
        let delay = f64::from((i * 7919) % 13) * 900.0 + f64::from(i % 3) * 0.25;
        rows.push((
            p - delay,
            p,
            keys[(i as usize * 31) % keys.len()].to_string(),
        ));
    }
    rows.push((111_000.0, 111_100.0, "b".into()));
    rows.push((111_050.0, 111_200.0, "q".into()));
    rows
}

const CONFIGS: &[&[&str]] = &[
    &["--format", "json"],
    &[],
    &["--window", "30s", "--slide", "10s", "--format", "json"],
    &[
        "--watermark",
        "perfect",
        "--early",
        "5s",
        "--format",
        "json",
    ],
    &[
        "--watermark",
        "heuristic",
        "--grace",
        "10s",
        "--accumulation",
        "discarding",
    ],
    &["--session", "20s", "--format", "json"],
    &["--window", "global", "--ttl", "5s", "--format", "json"],
];

#[test]
fn a_log_in_order_prints_what_the_same_log_sorted_in_memory_prints() {
    let dir = tempfile::tempdir().unwrap();
    let rows = sample();
    for format in [InputFormat::Csv, InputFormat::Jsonl, InputFormat::Parquet] {
        let (sorted, name) = encode(format, &rows);
        let (unsorted, _) = encode(format, &swapped(&rows));
        for args in CONFIGS {
            let a = run(dir.path(), name, &sorted, args);
            let b = run(dir.path(), name, &unsorted, args);
            assert!(!a.starts_with("error"), "{a}");
            assert_eq!(a, b, "{} {args:?}", format.name());
        }
    }
}

/// A log in processing-time order whose keys first appear in reverse name order, some of
/// them only late in the log, with late and dropped events in most windows.
fn reversed_keys() -> Vec<Row> {
    let keys = ["zeta", "y", "x", "m", "b", "a"];
    let mut rows = Vec::new();
    for i in 0..4000u32 {
        let p = f64::from(i) * 41.0;
        let delay = f64::from((i * 7919) % 17) * 1_300.0;
        // The first keys alone at first, then all of them: "b" and "a" first appear late.
        let k = if i < 600 { i % 3 } else { i % 6 };
        rows.push((p - delay, p, keys[k as usize].to_string()));
    }
    rows
}

/// The tables and JSON answers of the run that goes on while the log is read (JSON with the
/// dials whose panes it puts in order; the others are replayed).
const TABLES: &[&[&str]] = &[
    &["--format", "json"],
    &[
        "--window", "30s", "--slide", "10s", "--grace", "5s", "--format", "json",
    ],
    &[
        "--conventions",
        "kafka-streams",
        "--grace",
        "20s",
        "--format",
        "json",
    ],
    &["--early", "3s", "--format", "json"],
    &[],
    &["--window", "30s", "--slide", "10s", "--grace", "5s"],
    &[
        "--watermark",
        "heuristic",
        "--grace",
        "10s",
        "--early",
        "5s",
    ],
    &["--early", "3s", "--accumulation", "discarding"],
    &["--window", "global", "--ttl", "5s"],
    &["--conventions", "flink", "--grace", "20s"],
    &["--conventions", "kafka-streams", "--grace", "20s"],
    &["--closing", "fire-always", "--grace", "10s"],
];

#[test]
fn keys_first_seen_out_of_name_order_print_as_the_log_sorted_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let rows = reversed_keys();
    for format in [InputFormat::Csv, InputFormat::Jsonl, InputFormat::Parquet] {
        let (sorted, name) = encode(format, &rows);
        let (unsorted, _) = encode(format, &swapped(&rows));
        for args in TABLES {
            let a = run(dir.path(), name, &sorted, args);
            let b = run(dir.path(), name, &unsorted, args);
            assert!(!a.starts_with("error"), "{a}");
            let a_listed = a.contains("     a ") || a.contains(r#""key":"a""#);
            assert!(a.contains("zeta") && a_listed, "{a}");
            assert_eq!(a, b, "{} {args:?}", format.name());
        }
    }
}

#[test]
fn a_wall_clock_log_in_a_zone_prints_as_the_log_sorted_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    // Dates five minutes apart from 05:00 to 21:35, keys first seen in reverse name order.
    let mut text = String::from("scheduled,departed,origin\n");
    let mut unsorted = text.clone();
    let keys = ["LGA", "JFK", "EWR"];
    let mut lines = Vec::new();
    for i in 0..200u32 {
        let at = 5 * 3600 + i * 300;
        let late = (i * 13) % 11 * 300;
        let hms = |s: u32| {
            format!(
                "2013-01-01T{:02}:{:02}:{:02}",
                s / 3600,
                s / 60 % 60,
                s % 60
            )
        };
        let origin = keys[(i % 3) as usize];
        lines.push(format!("{},{},{origin}\n", hms(at - late), hms(at)));
    }
    for l in &lines {
        text.push_str(l);
    }
    let n = lines.len();
    lines.swap(n - 1, n - 2);
    for l in &lines {
        unsorted.push_str(l);
    }
    for extra in [
        &["--window", "1h"][..],
        &["--window", "1h", "--time-zone", "Asia/Kolkata"],
        &[
            "--window",
            "24h",
            "--time-zone",
            "America/New_York",
            "--grace",
            "1h",
        ],
    ] {
        let args: Vec<&str> = COLUMNS.iter().chain(extra).copied().collect();
        let a = run(dir.path(), "log.csv", text.as_bytes(), &args);
        let b = run(dir.path(), "log.csv", unsorted.as_bytes(), &args);
        assert!(!a.starts_with("error"), "{a}");
        assert_eq!(a, b, "{extra:?}");
    }
}

#[test]
fn a_spooled_log_reads_back_as_the_log_read_into_memory() {
    let rows = sample();
    for format in [InputFormat::Csv, InputFormat::Jsonl, InputFormat::Parquet] {
        for (rows, in_order) in [(rows.clone(), true), (swapped(&rows), false)] {
            let (bytes, name) = encode(format, &rows);
            let read = |spool| {
                let opts = SourceOptions {
                    spool,
                    ..SourceOptions::default()
                };
                read_source_events_from(bytes.as_slice(), name, Some(name), &opts).unwrap()
            };
            let (memory, r1) = read(false);
            let (spooled, r2) = read(true);
            assert!(matches!(memory, Events::Memory(_)));
            assert_eq!(matches!(spooled, Events::Spooled(_)), in_order);
            if let Events::Spooled(s) = &spooled {
                let stream = memory_stream(&bytes, name);
                assert_eq!(s.keys(), stream.keys.as_slice());
                assert_eq!(s.max_delay(), stream.max_delay());
            }
            assert_eq!(r1, r2);
            assert_eq!(
                memory.into_stream().unwrap(),
                spooled.into_stream().unwrap()
            );
        }
    }
}

fn memory_stream(bytes: &[u8], name: &str) -> twoclocks::engine::Stream {
    read_source_events_from(bytes, name, Some(name), &SourceOptions::default())
        .unwrap()
        .0
        .into_stream()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_small_logs_print_the_same_streamed_or_sorted(
        steps in prop::collection::vec((0u32..4000, 0u32..40_000, 0usize..6), 2..120),
        config in 0usize..7,
        jsonl_format in any::<bool>(),
    ) {
        let keys = ["e", "b", "f", "a", "d", "c"];
        let mut p = 0.0;
        let mut rows = Vec::new();
        for &(gap, delay, k) in &steps {
            // Strictly rising processing times: the swapped log is out of order.
            p += f64::from(gap) + 1.0;
            rows.push((p - f64::from(delay), p, keys[k].to_string()));
        }
        let format = if jsonl_format { InputFormat::Jsonl } else { InputFormat::Csv };
        let dir = tempfile::tempdir().unwrap();
        let (sorted, name) = encode(format, &rows);
        let (unsorted, _) = encode(format, &swapped(&rows));
        let args = CONFIGS[config];
        prop_assert_eq!(
            run(dir.path(), name, &sorted, args),
            run(dir.path(), name, &unsorted, args)
        );
    }
}
