//! A user's log that cannot be read says why in one error line: every class of bad row with
//! its file, line (or row), column and value; empty, header-only, binary, compressed-but-not
//! and truncated inputs each with its own message; a column named twice; too many rows to
//! sort; values and paths cut short as written. Rows skipped instead are counted with the
//! first of their lines.

use twoclocks::io::source::{OnBadRow, SourceOptions};

use crate::logs::{dir, err, file, gzip, ok, parquet, parquet_file, read, text, zstd, Column, CSV};

#[test]
fn every_bad_row_names_its_file_line_column_and_value() {
    let d = SourceOptions::default();
    let h = "event_time_ms,proc_time_ms,key\n";
    let cases = [
        (
            "t.csv",
            format!("{h}1,2,a\n1,2\n"),
            "t.csv, line 3: expected 3 fields as in the header, found 2",
        ),
        (
            "t.csv",
            format!("{h}1,,a\n"),
            "t.csv, line 2: proc_time_ms is missing (an empty field)",
        ),
        (
            "t.csv",
            format!("{h}NaN,2,a\n"),
            "t.csv, line 2: event_time_ms 'NaN' is out of range",
        ),
        (
            "t.csv",
            format!("{h}1,inf,a\n"),
            "t.csv, line 2: proc_time_ms 'inf' is out of range",
        ),
        (
            "t.csv",
            format!("{h}1,x2,a\n"),
            "t.csv, line 2: proc_time_ms 'x2' is not a number",
        ),
        ("t.csv", format!("{h}1,2,\n"), "t.csv, line 2: key is empty"),
        (
            "t.csv",
            format!("{h}1,2,\"a\n"),
            "t.csv, line 2, column 5: the quote does not close",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\"}\n{\"event_time_ms\":1}\n"
                .into(),
            "t.jsonl, line 2: proc_time_ms is missing",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":true,\"proc_time_ms\":2,\"key\":\"a\"}\n".into(),
            "t.jsonl, line 1: event_time_ms 'true' is a boolean, not a time",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":[1]}\n".into(),
            "t.jsonl, line 1: key '[1]' is an array, not a key",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":1,\"proc_time_ms\":null,\"key\":\"a\"}\n".into(),
            "t.jsonl, line 1: proc_time_ms is missing",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\"}\n{\"event_time_ms\":1,\n"
                .into(),
            "t.jsonl, line 2: not a JSON object",
        ),
        (
            "t.jsonl",
            "[1,2]\n".into(),
            "t.jsonl, line 1: '[1,2]' is an array, not a JSON object",
        ),
        (
            "t.jsonl",
            "{\"event_time_ms\":1e400,\"proc_time_ms\":2,\"key\":\"a\"}\n".into(),
            "t.jsonl, line 1: event_time_ms '1e400' is out of range",
        ),
    ];
    for (name, body, want) in cases {
        let e = err(name, &body, &d);
        assert!(e.starts_with(want), "{body:?}\n got: {e}\nwant: {want}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // A Parquet row is named by its number.
    let bytes = parquet(
        &[(1.0, 2, "a"), (f64::NAN, 3, "b")],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let e = read(&file("nan.parquet", &bytes), &d).unwrap_err();
    assert!(
        e.ends_with(
            "nan.parquet, row 2: event_time_ms 'NaN' is out of range (finite, within ±2^53 ms)"
        ),
        "{e}"
    );
    let bytes = parquet(&[(1.0, 2, "")], parquet::basic::Compression::UNCOMPRESSED);
    let e = read(&file("empty-key.parquet", &bytes), &d).unwrap_err();
    assert!(e.contains("empty-key.parquet, row 1: key is empty"), "{e}");
}

#[test]
fn whole_input_errors_each_say_what_is_wrong() {
    let d = SourceOptions::default();
    assert_eq!(
        err("e.csv", "", &d),
        "e.csv: the input is empty: it holds no events (not even a header)"
    );
    assert!(err("h.csv", "event_time_ms,proc_time_ms,key\n", &d)
        .starts_with("h.csv: the file holds a header and no events"));
    assert_eq!(
        err("c.csv", "ts,pt,user\n1,2,a\n", &d),
        "c.csv, line 1: no column 'event_time_ms' (--event-time-col); the columns found are \
         'ts', 'pt', 'user'"
    );
    let bytes = parquet(&[(1.0, 2, "a")], parquet::basic::Compression::UNCOMPRESSED);
    let opts = SourceOptions {
        key_col: "user".into(),
        ..SourceOptions::default()
    };
    assert!(read(&file("c.parquet", &bytes), &opts)
        .unwrap_err()
        .ends_with(
            "c.parquet: no column 'user' (--key-col); the columns found are 'event_time_ms', \
         'proc_time_ms', 'key'"
        ));
    let binary: Vec<u8> = (0..2048u32).map(|i| (i * 7 % 256) as u8).collect();
    let e = read(&file("bin.csv", &binary), &d).unwrap_err();
    assert!(e.contains("bin.csv: binary data, not csv text"), "{e}");
    let gz = gzip(CSV.repeat(100).as_bytes());
    let e = read(&file("cut.csv.gz", &gz[..gz.len() / 2]), &d).unwrap_err();
    assert!(e.contains("the gzip data is truncated or corrupt"), "{e}");
    let zst = zstd(CSV.repeat(100).as_bytes());
    let e = read(&file("cut.csv.zst", &zst[..zst.len() - 3]), &d).unwrap_err();
    assert!(e.contains("the zstd data is truncated or corrupt"), "{e}");
    let pq = parquet(&[(1.0, 2, "a")], parquet::basic::Compression::UNCOMPRESSED);
    let e = read(&file("cut.parquet", &pq[..pq.len() - 10]), &d).unwrap_err();
    assert!(
        e.contains("cut.parquet: not a readable Parquet file, or a truncated one"),
        "{e}"
    );
    let e = read(&file("pq.csv", &pq), &d).unwrap_err();
    assert!(
        e.ends_with("pq.csv: this is a Parquet file, not csv: give --input-format parquet"),
        "{e}"
    );
    let e = read(&file("empty.csv.gz", &gzip(b"")), &d).unwrap_err();
    assert!(e.contains("empty once decompressed"), "{e}");
    let e = read(&dir(), &d).unwrap_err();
    assert!(e.contains("is a folder"), "{e}");
}

#[test]
fn skipped_rows_are_counted_with_their_first_lines() {
    let skip = SourceOptions {
        on_bad_row: OnBadRow::Skip,
        ..SourceOptions::default()
    };
    let mut body = String::from("event_time_ms,proc_time_ms,key\n1,2,a\n");
    for i in 0..8 {
        body.push_str(&format!("{i},oops,a\n3,4,b\n"));
    }
    body.push('\n');
    let (s, report) = text("s.csv", &body, &skip).unwrap();
    assert_eq!(s.len(), 9);
    assert_eq!(report.skipped_rows, 9);
    assert_eq!(report.skipped_at, vec![3, 5, 7, 9, 11]);
    let note = &report.notes()[0];
    assert!(
        note.starts_with("s.csv: skipped 9 bad rows of 18 (lines 3, 5, 7, 9, 11, …); the first: s.csv, line 3: proc_time_ms 'oops'"),
        "{note}"
    );
    let e = err("all.csv", "event_time_ms,proc_time_ms,key\nx,1,a\n", &skip);
    assert!(
        e.starts_with("all.csv: every row is bad (1 skipped)"),
        "{e}"
    );
}

#[test]
fn too_many_rows_is_an_error_that_says_how_to_sort() {
    let opts = SourceOptions {
        max_rows: 2,
        on_bad_row: OnBadRow::Skip,
        ..SourceOptions::default()
    };
    let e = err("big.csv", CSV, &opts);
    assert!(e.starts_with("big.csv, line 4: more than 2 events"), "{e}");
    assert!(e.contains("sort -t, -k2,2n"), "{e}");
}

/// A column the reader reads, named twice, is refused with the file, the line (JSON Lines)
/// and the column: CSV took the first, JSON Lines the last. A column named twice that is not
/// read, and one member read as two columns, are fine.
#[test]
fn a_column_named_twice_is_refused() {
    let d = SourceOptions::default();
    let e = err(
        "twice.csv",
        "event_time_ms,proc_time_ms,key,key\n1,2,a,b\n",
        &d,
    );
    assert_eq!(
        e,
        "twice.csv, line 1: the column 'key' (--key-col) appears twice, as columns 3 and 4; \
         each column is named once"
    );
    let e = err(
        "twice.jsonl",
        "{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\"}\n\
         {\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\",\"k\\u0065y\":\"b\"}\n",
        &d,
    );
    assert_eq!(
        e,
        "twice.jsonl, line 2: the member 'key' appears twice in the object; each column is \
         named once"
    );
    let pq = parquet_file(
        "message events { required double event_time_ms; required double proc_time_ms; \
         required binary key (UTF8); required double proc_time_ms; }",
        &[
            Column::Double(vec![1.0]),
            Column::Double(vec![2.0]),
            Column::Text(vec!["a".into()]),
            Column::Double(vec![3.0]),
        ],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let e = read(&file("twice.parquet", &pq), &d).unwrap_err();
    assert!(
        e.ends_with(
            "twice.parquet: the column 'proc_time_ms' (--proc-time-col) appears twice, as \
             columns 2 and 4; each column is named once"
        ),
        "{e}"
    );
    // Not read: no matter.
    assert_eq!(
        ok(
            "x.csv",
            "x,event_time_ms,x,proc_time_ms,key\n0,1,0,2,a\n",
            &d
        )
        .len(),
        1
    );
    assert_eq!(
        ok(
            "x.jsonl",
            "{\"x\":1,\"x\":2,\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\"}\n",
            &d
        )
        .len(),
        1
    );
    let same = SourceOptions {
        event_time_col: "t".into(),
        proc_time_col: "t".into(),
        ..SourceOptions::default()
    };
    let s = ok("same.jsonl", "{\"t\":5,\"key\":\"a\"}\n", &same);
    assert_eq!((s.events[0].event_time, s.events[0].proc_time), (5.0, 5.0));
}

/// Values and paths in messages are cut as the CSV reader cuts a field: a JSON or Parquet
/// number as written or as it reads back (`1e308`, not its 309 digits), a long path by its
/// end; a float key is shown as written (`0.0`, Parquet's `0E0` no more); a plain file named
/// `.gz` is said not to be gzip data.
#[test]
fn messages_show_values_and_paths_short_and_as_written() {
    let d = SourceOptions::default();
    let e = err(
        "big.jsonl",
        "{\"event_time_ms\":1e308,\"proc_time_ms\":2,\"key\":\"a\"}\n",
        &d,
    );
    assert_eq!(
        e,
        "big.jsonl, line 1: event_time_ms '1e308' is out of range (finite, within ±2^53 ms)"
    );
    let digits = "9".repeat(400);
    let e = err(
        "long.jsonl",
        &format!("{{\"event_time_ms\":1,\"proc_time_ms\":{digits},\"key\":\"a\"}}\n"),
        &d,
    );
    assert_eq!(
        e,
        format!(
            "long.jsonl, line 1: proc_time_ms '{}…' (400 characters) is out of range (finite, \
             within ±2^53 ms)",
            "9".repeat(80)
        )
    );
    let e = err(
        "over.jsonl",
        "{\"event_time_ms\":1e400,\"proc_time_ms\":2,\"key\":\"a\"}\n",
        &d,
    );
    assert!(
        e.starts_with("over.jsonl, line 1: event_time_ms '1e400' is out of range"),
        "{e}"
    );
    let e = err(
        "key.jsonl",
        "{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":0.0}\n",
        &d,
    );
    assert_eq!(
        e,
        "key.jsonl, line 1: key '0.0' is a number, not a key (a text or an integer)"
    );
    let pq = parquet_file(
        "message events { required double event_time_ms; required double proc_time_ms; \
         required double key; }",
        &[
            Column::Double(vec![1e308]),
            Column::Double(vec![2.0]),
            Column::Double(vec![0.0]),
        ],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let e = read(&file("big.parquet", &pq), &d).unwrap_err();
    assert!(
        e.ends_with(
            "big.parquet, row 1: event_time_ms '1e308' is out of range (finite, within ±2^53 ms)"
        ),
        "{e}"
    );
    let pq = parquet_file(
        "message events { required double event_time_ms; required double proc_time_ms; \
         required double key; }",
        &[
            Column::Double(vec![1.0]),
            Column::Double(vec![2.0]),
            Column::Double(vec![0.0]),
        ],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let e = read(&file("key.parquet", &pq), &d).unwrap_err();
    assert!(
        e.ends_with("key.parquet, row 1: key '0.0' is a number, not a key (a text or an integer)"),
        "{e}"
    );
    // A path of 300 characters: its last 80 after an ellipsis.
    let mut deep = dir();
    for _ in 0..6 {
        deep = deep.join("d".repeat(50));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let path = deep.join("bad.csv");
    std::fs::write(&path, "event_time_ms,proc_time_ms,key\n1,x,a\n").unwrap();
    let e = read(&path, &d).unwrap_err();
    let tail: String = {
        let p = path.display().to_string();
        let n = p.chars().count();
        p.chars().skip(n - 80).collect()
    };
    assert!(
        e.starts_with(&format!("…{tail}, line 2: proc_time_ms 'x'")),
        "{e}"
    );
    assert!(
        e.chars().count() < 200,
        "{} characters: {e}",
        e.chars().count()
    );
    let e = read(&file("plain.csv.gz", CSV.as_bytes()), &d).unwrap_err();
    assert!(
        e.ends_with(
            "plain.csv.gz: not gzip-compressed (no gzip header), though its name ends in .gz: \
             rename it without .gz, or compress it with gzip"
        ),
        "{e}"
    );
    let e = read(&file("plain.jsonl.zst", b"{}\n"), &d).unwrap_err();
    assert!(
        e.contains("plain.jsonl.zst: not zstd-compressed (no zstd header)"),
        "{e}"
    );
}
