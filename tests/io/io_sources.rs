//! Reading a user's own log: every format (CSV, JSON Lines, Parquet) plain, gzip- and
//! zstd-compressed, every Parquet codec; column mapping and time formats; file-order arrival;
//! skipped rows and clock skew counted; standard input through a pipe; a stream read back to
//! the bit from every format. Its errors are in io_source_errors.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use twoclocks::io::source::{Arrival, InputFormat, SourceOptions, TimeFormat};

use crate::logs::{
    file, gzip, ok, parquet, parquet_file, read, standard, text, zstd, Column, CSV, EVENTS_DOUBLE,
};

#[test]
fn every_format_and_compression_reads_the_same_events() {
    let want = standard();
    assert_eq!(want.len(), 3);
    assert_eq!(want.keys, vec!["a", "b"]);
    let jsonl = "{\"event_time_ms\":1000,\"proc_time_ms\":1500,\"key\":\"a\"}\n\
                 {\"event_time_ms\":2000,\"proc_time_ms\":2600,\"key\":\"b\",\"extra\":[1]}\n\
                 {\"key\":\"a\",\"event_time_ms\":500.0,\"proc_time_ms\":\"3000\"}\n";
    let rows = [(1000.0, 1500, "a"), (2000.0, 2600, "b"), (500.0, 3000, "a")];
    let parquet_plain = parquet(&rows, parquet::basic::Compression::UNCOMPRESSED);
    let parquet_snappy = parquet(&rows, parquet::basic::Compression::SNAPPY);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("e.csv", CSV.into()),
        ("e.csv.gz", gzip(CSV.as_bytes())),
        ("e.csv.zst", zstd(CSV.as_bytes())),
        ("e.jsonl", jsonl.into()),
        ("e.jsonl.gz", gzip(jsonl.as_bytes())),
        ("e.ndjson.zst", zstd(jsonl.as_bytes())),
        ("e.parquet", parquet_plain.clone()),
        ("e.parquet.gz", gzip(&parquet_plain)),
        ("e.parquet.zst", zstd(&parquet_snappy)),
        // No telling extension: the first bytes say.
        ("e.log", gzip(jsonl.as_bytes())),
        ("e.data", parquet_snappy),
    ];
    for (name, bytes) in cases {
        let path = file(name, &bytes);
        let (s, report) = read(&path, &SourceOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s, want, "{name}");
        assert_eq!(report.rows, 3, "{name}");
        assert_eq!(report.skipped_rows, 0, "{name}");
    }
    // --input-format overrides the extension.
    let path = file("jsonl.txt", jsonl.as_bytes());
    let opts = SourceOptions {
        format: Some(InputFormat::Jsonl),
        ..SourceOptions::default()
    };
    assert_eq!(read(&path, &opts).unwrap().0, want);
}

#[test]
fn columns_are_mapped_and_times_converted() {
    let mapped = SourceOptions {
        event_time_col: "ts".into(),
        proc_time_col: "seen".into(),
        key_col: "user".into(),
        time_format: Some(TimeFormat::S),
        ..SourceOptions::default()
    };
    let s = ok(
        "m.csv",
        "user,ignored,ts,seen\na,x,1,1.5\nb,y,2,2.6\na,z,0.5,3\n",
        &mapped,
    );
    assert_eq!(s, standard());
    let cases = [
        (TimeFormat::Ms, "1000", "1500"),
        (TimeFormat::S, "1", "1.5"),
        (TimeFormat::Us, "1000000", "1500000"),
        (TimeFormat::Ns, "1000000000", "1500000000"),
        (
            TimeFormat::Rfc3339,
            "1970-01-01T00:00:01Z",
            "1970-01-01T00:00:01.500+00:00",
        ),
    ];
    for (format, et, pt) in cases {
        let opts = SourceOptions {
            time_format: Some(format),
            ..SourceOptions::default()
        };
        let body = format!("event_time_ms,proc_time_ms,key\n{et},{pt},a\n");
        let s = ok("t.csv", &body, &opts);
        assert_eq!(
            (s.events[0].event_time, s.events[0].proc_time),
            (1000.0, 1500.0),
            "{format:?}"
        );
        let json =
            format!("{{\"event_time_ms\":\"{et}\",\"proc_time_ms\":\"{pt}\",\"key\":\"a\"}}\n");
        let s = ok("t.jsonl", &json, &opts);
        assert_eq!(s.events[0].event_time, 1000.0, "{format:?}");
    }
    // By default numbers are ms and texts RFC 3339, mixed freely.
    let s = ok(
        "t.csv",
        "event_time_ms,proc_time_ms,key\n2026-12-04T08:00:00Z,1796371200500,a\n",
        &SourceOptions::default(),
    );
    assert_eq!(s.events[0].event_time, 1_796_371_200_000.0);
    // Keys of any length, integer keys in JSON.
    let long = "k".repeat(10_000);
    let s = ok(
        "t.jsonl",
        &format!("{{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"{long}\"}}\n{{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":42}}\n"),
        &SourceOptions::default(),
    );
    assert_eq!(s.keys, vec!["42".to_string(), long]);
}

#[test]
fn many_keys_are_interned() {
    let mut body = String::from("event_time_ms,proc_time_ms,key\n");
    for i in 0..100_000 {
        body.push_str(&format!("{i},{i},user-{}\n", i % 50_000));
    }
    let s = ok("k.csv", &body, &SourceOptions::default());
    assert_eq!(s.keys.len(), 50_000);
    assert_eq!(s.len(), 100_000);
    assert!(s.keys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn file_order_arrival_takes_the_largest_event_time_so_far() {
    let opts = SourceOptions {
        arrival: Arrival::FileOrder,
        ..SourceOptions::default()
    };
    let (s, report) = text(
        "f.csv",
        "event_time_ms,key\n10,a\n30,b\n20,a\n40,b\n",
        &opts,
    )
    .unwrap();
    let got: Vec<(f64, f64)> = s
        .events
        .iter()
        .map(|e| (e.event_time, e.proc_time))
        .collect();
    assert_eq!(
        got,
        vec![(10.0, 10.0), (30.0, 30.0), (20.0, 30.0), (40.0, 40.0)]
    );
    assert_eq!(report.clock_skew_rows, 0);
    let s = ok(
        "f.jsonl",
        "{\"event_time_ms\":5,\"key\":\"a\"}\n{\"event_time_ms\":3,\"key\":\"a\"}\n",
        &opts,
    );
    assert_eq!(s.events[1].proc_time, 5.0);
}

#[test]
fn unsorted_input_is_sorted_stably_and_skew_is_counted() {
    let (s, report) = text(
        "u.csv",
        "event_time_ms,proc_time_ms,key\n1,30,a\n50,20,b\n2,30,c\n3,10,d\n",
        &SourceOptions::default(),
    )
    .unwrap();
    let keys: Vec<&str> = s.events.iter().map(|e| s.key_name(e.key)).collect();
    assert_eq!(keys, vec!["d", "b", "a", "c"]);
    assert_eq!(report.clock_skew_rows, 1);
    assert!(report.notes()[0].contains("1 of 4 rows have a processing time before"));
}

fn twoclocks(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn standard_input_feeds_the_batch_commands_through_a_pipe() {
    let generated = twoclocks(&["stream", "--events", "500"], b"");
    assert!(generated.status.success());
    let want = twoclocks(&["run", "--events", "500"], b"");
    for input in [
        generated.stdout.clone(),
        gzip(&generated.stdout),
        zstd(&generated.stdout),
    ] {
        let got = twoclocks(&["run", "--input", "-"], &input);
        assert!(
            got.status.success(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(got.stdout, want.stdout);
    }
    let s = twoclocks(&["stream", "--input", "-"], &generated.stdout);
    assert_eq!(s.stdout, generated.stdout);
    let f = twoclocks(
        &[
            "frontier", "--input", "-", "--lags", "1s,5s", "--graces", "0s",
        ],
        &generated.stdout,
    );
    assert!(f.status.success(), "{}", String::from_utf8_lossy(&f.stderr));
    let jsonl = twoclocks(&["stream", "--events", "500", "--format", "jsonl"], b"");
    let got = twoclocks(
        &["run", "--input", "-", "--input-format", "jsonl"],
        &jsonl.stdout,
    );
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn the_binary_reports_skips_and_skew_and_exits_2_on_a_bad_row() {
    let body = b"event_time_ms,proc_time_ms,key\n10,5,a\nx,1,b\n20,30,b\n";
    let o = twoclocks(
        &[
            "run",
            "--input",
            "-",
            "--format",
            "json",
            "--on-bad-row",
            "skip",
        ],
        body,
    );
    assert!(o.status.success());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["skipped_rows"], 1);
    assert_eq!(json["clock_skew_rows"], 1);
    assert_eq!(json["events"], 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("twoclocks: standard input: skipped 1 bad row of 3 (line 3)"),
        "{err}"
    );
    assert!(
        err.contains("1 of 2 rows have a processing time before their event time"),
        "{err}"
    );
    let o = twoclocks(&["run", "--input", "-"], body);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("twoclocks: standard input, line 3: event_time_ms 'x'"),
        "{err}"
    );
    let o = twoclocks(&["run", "--key-col", "user"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--input"));
}

/// The counters panel shows skipped rows only when some were skipped.
#[test]
fn the_counters_panel_counts_skipped_rows_only_when_some_were() {
    use twoclocks::engine::EngineConfig;
    use twoclocks::tui::scenario::Scenario;
    use twoclocks::tui::theme::Theme;
    use twoclocks::tui::view::counters::rows;
    use twoclocks::tui::{app_for, Options};
    let app = |skipped| {
        let mut scenario = Scenario::classroom();
        scenario.skipped_rows = skipped;
        app_for(Options {
            scenario,
            config: EngineConfig::fixed(20_000.0, 0.0),
            speed: 10.0,
            theme: Theme::mono(),
            play: false,
        })
    };
    let labels = |a| -> Vec<(String, String)> {
        rows(&app(a)).into_iter().map(|(l, v, _)| (l, v)).collect()
    };
    assert!(labels(0).iter().all(|(l, _)| l != "skipped rows"));
    assert!(labels(3).contains(&("skipped rows".to_string(), "3 in the file".to_string())));
}

/// Parquet columns are found by name whatever their order, and a column not read is not needed.
#[test]
fn parquet_columns_are_mapped_by_name() {
    let bytes = parquet(
        &[(1.0, 20, "a"), (5.0, 10, "b")],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let path = file("mapped.parquet", &bytes);
    let swapped = SourceOptions {
        event_time_col: "proc_time_ms".into(),
        proc_time_col: "event_time_ms".into(),
        ..SourceOptions::default()
    };
    let s = read(&path, &swapped).unwrap().0;
    let got: Vec<(f64, f64)> = s
        .events
        .iter()
        .map(|e| (e.event_time, e.proc_time))
        .collect();
    assert_eq!(got, vec![(20.0, 1.0), (10.0, 5.0)]);
    let file_order = SourceOptions {
        arrival: Arrival::FileOrder,
        proc_time_col: "absent".into(),
        time_format: Some(TimeFormat::S),
        ..SourceOptions::default()
    };
    let s = read(&path, &file_order).unwrap().0;
    let got: Vec<(f64, f64)> = s
        .events
        .iter()
        .map(|e| (e.event_time, e.proc_time))
        .collect();
    assert_eq!(got, vec![(1000.0, 1000.0), (5000.0, 5000.0)]);
}

/// `stream` writes CSV and JSON Lines (Parquet is written here, as doubles): each read back
/// holds every event to the bit, and a run over each gives the same panes, the same windows,
/// the same drops. JSON Lines times were rounded by one unit in the last place, and an event
/// at 119999.99999999999 ms fell in the next window.
#[test]
fn a_stream_reads_back_to_the_bit_from_every_format() {
    let generated = twoclocks::engine::Stream::generate(&twoclocks::engine::StreamParams {
        events: 20_000,
        ..Default::default()
    })
    .unwrap();
    let written = |format: &str| {
        let out = twoclocks(&["stream", "--events", "20000", "--format", format], b"");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let pq = parquet_file(
        EVENTS_DOUBLE,
        &[
            Column::Double(generated.events.iter().map(|e| e.event_time).collect()),
            Column::Double(generated.events.iter().map(|e| e.proc_time).collect()),
            Column::Text(
                generated
                    .events
                    .iter()
                    .map(|e| generated.key_name(e.key).to_string())
                    .collect(),
            ),
        ],
        parquet::basic::Compression::SNAPPY,
    );
    let files = [
        file("round.csv", &written("csv")),
        file("round.jsonl", &written("jsonl")),
        file("round.parquet", &pq),
    ];
    let mut runs = Vec::new();
    for path in &files {
        let back = read(path, &SourceOptions::default()).unwrap().0;
        assert_eq!(back.len(), generated.len(), "{}", path.display());
        assert_eq!(back.keys, generated.keys, "{}", path.display());
        let differ = back
            .events
            .iter()
            .zip(&generated.events)
            .filter(|(a, b)| {
                a.event_time.to_bits() != b.event_time.to_bits()
                    || a.proc_time.to_bits() != b.proc_time.to_bits()
                    || a.key != b.key
            })
            .count();
        assert_eq!(differ, 0, "{}: events that differ", path.display());
        let run = twoclocks(
            &[
                "run",
                "--input",
                path.to_str().unwrap(),
                "--format",
                "json",
                // Many windows, many events near their edges.
                "--window",
                "1s",
                "--grace",
                "5s",
            ],
            b"",
        );
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert!(
            json["panes"].as_array().is_some_and(|p| p.len() > 2000),
            "a run with panes"
        );
        runs.push((path.display().to_string(), json));
    }
    for (name, json) in &runs[1..] {
        for part in ["panes", "windows", "dropped_events"] {
            assert_eq!(
                json[part], runs[0].1[part],
                "{name}: {part} differ from the CSV's"
            );
        }
        assert_eq!(json, &runs[0].1, "{name}: the run differs from the CSV's");
    }
}

/// Parquet pages compressed with every codec the format's writers use read the same events;
/// one the reader cannot decode (LZO) is named, not called corrupt.
#[test]
fn parquet_reads_every_codec_and_names_one_it_cannot() {
    use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
    let want = standard();
    let rows = [(1000.0, 1500, "a"), (2000.0, 2600, "b"), (500.0, 3000, "a")];
    for codec in [
        Compression::LZ4_RAW,
        Compression::LZ4,
        Compression::BROTLI(BrotliLevel::default()),
        Compression::GZIP(GzipLevel::default()),
        Compression::ZSTD(ZstdLevel::default()),
    ] {
        let name = format!("{codec:?}.parquet");
        let (s, _) = read(
            &file(&name, &parquet(&rows, codec)),
            &SourceOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{codec:?}: {e}"));
        assert_eq!(s, want, "{codec:?}");
    }
    // The footer's codec of each column chunk set to LZO (3), which no Rust reader decodes:
    // in the compact protocol, field 4 (an i32, zigzag 0) before field 5 (an i64).
    let mut pq = parquet(&rows, Compression::UNCOMPRESSED);
    let footer_len = u32::from_le_bytes(pq[pq.len() - 8..pq.len() - 4].try_into().unwrap());
    let footer = pq.len() - 8 - footer_len as usize;
    let mut patched = 0;
    for i in footer..pq.len() - 10 {
        if pq[i..i + 3] == [0x15, 0x00, 0x16] {
            pq[i + 1] = 0x06;
            patched += 1;
        }
    }
    assert_eq!(patched, 3, "one codec per column chunk");
    let e = read(&file("lzo.parquet", &pq), &SourceOptions::default()).unwrap_err();
    assert!(
        e.ends_with(
            "lzo.parquet: the column 'event_time_ms' is compressed with LZO, which twoclocks \
             cannot decode; it reads uncompressed, Snappy, gzip, LZ4, Brotli and zstd pages: \
             write the file again with one of those"
        ),
        "{e}"
    );
    assert!(!e.contains("corrupt"), "{e}");
}
