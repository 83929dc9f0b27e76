//! Reading a log's own times through the binary: the New York departures sample (dates
//! without an offset) runs, and says once that it read them in UTC, and not when --time-zone
//! names a zone; the same departures as JSON Lines of epoch milliseconds and as a Parquet
//! file of timestamps give the same run; numbers that look like epoch seconds get a note
//! naming --time-format s; an unknown zone is refused in one line naming it.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;

use crate::cli_common::{path_arg, refused, twoclocks_text};

/// The departures of 1–3 January 2013 from New York's airports (nycflights13).
const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/samples/nyc-departures.csv"
);

/// The sample's columns, as the flags name them (the other tests of a log of departures
/// name them through this too).
pub(crate) const COLUMNS: [&str; 6] = [
    "--event-time-col",
    "scheduled",
    "--proc-time-col",
    "departed",
    "--key-col",
    "origin",
];

/// 2013-01-01T00:00:00Z in epoch milliseconds.
const NEW_YEAR_2013_MS: i64 = 1_356_998_400_000;

/// `run` over `input` in hourly windows with `more` flags: exit code, output, errors.
fn run(input: &str, columns: bool, more: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", "--input", input, "--window", "1h"];
    if columns {
        args.extend(COLUMNS);
    }
    args.extend(more);
    twoclocks_text(&args)
}

/// The sample's rows as (scheduled, departed, origin), times in epoch ms read as UTC by hand:
/// every time is `2013-01-DDTHH:MM:SS`.
fn sample_rows() -> Vec<(i64, i64, String)> {
    let ms = |t: &str| -> i64 {
        assert!(t.starts_with("2013-01-") && t.len() == 19, "{t}");
        let n = |a: usize, b: usize| t[a..b].parse::<i64>().unwrap();
        let (day, hour, minute, second) = (n(8, 10), n(11, 13), n(14, 16), n(17, 19));
        NEW_YEAR_2013_MS + (((day - 1) * 24 + hour) * 60 + minute) * 60_000 + second * 1000
    };
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("scheduled,departed,origin"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (ms(f[0]), ms(f[1]), f[2].to_string())
        })
        .collect()
}

#[test]
fn the_departures_sample_runs_and_says_once_its_times_are_read_in_utc() {
    let (code, out, err) = run(SAMPLE, true, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("over 2677 events"), "{out}");
    let note = "twoclocks: assets/samples/nyc-departures.csv: times without an offset are read \
                in UTC (--time-zone names another zone)";
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("without an offset"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].ends_with(&note["twoclocks: ".len()..]), "{err}");
    // Named, the zone needs no note; the same zone as an offset reads the same instants.
    let (code, in_utc, err) = run(SAMPLE, true, &["--time-zone", "UTC"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("without an offset"), "{err}");
    assert_eq!(in_utc, out);
    let (code, _, err) = run(SAMPLE, true, &["--time-zone", "America/New_York"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("without an offset"), "{err}");
}

#[test]
fn standard_input_is_named_in_the_note() {
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["run", "--input", "-", "--window", "1h"])
        .args(COLUMNS)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&sample).unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("without an offset"))
        .collect();
    assert_eq!(
        said,
        [
            "twoclocks: standard input: times without an offset are read in UTC (--time-zone \
          names another zone)"
        ]
    );
}

#[test]
fn the_departures_as_epoch_milliseconds_and_as_parquet_timestamps_run_the_same() {
    let rows = sample_rows();
    assert_eq!(rows.len(), 2677);
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("departures.jsonl");
    let mut text = String::new();
    for (scheduled, departed, origin) in &rows {
        text += &format!(
            "{{\"event_time_ms\":{scheduled},\"proc_time_ms\":{departed},\"key\":\"{origin}\"}}\n"
        );
    }
    std::fs::write(&jsonl, text).unwrap();
    let parquet = dir.path().join("departures.parquet");
    std::fs::write(&parquet, local_timestamps(&rows)).unwrap();

    let (code, from_csv, err) = run(SAMPLE, true, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, from_jsonl, err) = run(&path_arg(&jsonl), false, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("without an offset"),
        "epoch ms are instants: {err}"
    );
    assert_eq!(from_jsonl, from_csv);
    let (code, from_parquet, err) = run(&path_arg(&parquet), true, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("without an offset"))
            .count(),
        1,
        "a timestamp not adjusted to UTC is a civil time: {err}"
    );
    assert_eq!(from_parquet, from_csv);
}

/// The rows as a Parquet file of microsecond timestamps not adjusted to UTC, as DuckDB
/// writes a TIMESTAMP column.
fn local_timestamps(rows: &[(i64, i64, String)]) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type(
            "message departures { required int64 scheduled (TIMESTAMP(MICROS,false)); \
             required int64 departed (TIMESTAMP(MICROS,false)); required binary origin (UTF8); }",
        )
        .unwrap(),
    );
    let mut out = Vec::new();
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(&mut out, schema, props).unwrap();
    let mut group = w.next_row_group().unwrap();
    for column in 0..3 {
        let mut col = group.next_column().unwrap().unwrap();
        match column {
            0 | 1 => {
                let v: Vec<i64> = rows
                    .iter()
                    .map(|r| if column == 0 { r.0 } else { r.1 } * 1000)
                    .collect();
                col.typed::<Int64Type>()
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
    }
    group.close().unwrap();
    w.close().unwrap();
    out
}

#[test]
fn epoch_seconds_read_as_milliseconds_get_a_note_naming_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.csv");
    std::fs::write(
        &path,
        "event_time_ms,proc_time_ms,key\n1357017300,1357017420,EWR\n1357018140,1357018380,LGA\n",
    )
    .unwrap();
    let (code, _, err) = twoclocks_text(&["run", "--input", &path_arg(&path)]);
    assert_eq!(code, 0, "{err}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("look like")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].ends_with(
            "events.csv: the times look like epoch seconds, not milliseconds (1357017300 read \
             as seconds is 2013-01-01 05:15 UTC); --time-format s reads them so"
        ),
        "{err}"
    );
    let (code, _, err) =
        twoclocks_text(&["run", "--input", &path_arg(&path), "--time-format", "s"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("look like"), "{err}");
}

#[test]
fn an_unknown_zone_is_refused_naming_it() {
    let err = refused(&["run", "--input", SAMPLE, "--time-zone", "Mars/Olympus_Mons"]);
    assert!(
        err.contains(
            "'Mars/Olympus_Mons' is not a time zone: give an IANA name such as \
             America/New_York, UTC, or an offset such as +05:30"
        ),
        "{err}"
    );
    let err = refused(&["run", "--input", SAMPLE, "--time-zone", "new york"]);
    assert!(err.contains("did you mean America/New_York?"), "{err}");
    // The zone is a reading flag: it needs a log to read.
    let (code, _, err) = twoclocks_text(&["run", "--time-zone", "UTC"]);
    assert_eq!(code, 2, "{err}");
}
