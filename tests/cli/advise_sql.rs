//! `advise --stats` on the result of the DuckDB query `advise --sql duckdb` prints gives the
//! advice `advise --input` gives on the same log: a log is written as Parquet, the printed
//! query is run over it with DuckDB's Python package (tests/duckdb_stats.py), its result is
//! saved as Parquet and CSV, and both advise as the log does (JSON equal but for `events`,
//! which statistics do not count). Windows tumbling and sliding, custom column names, times
//! in microseconds and as timestamps, rows with a NULL key.
//!
//! Skipped when python3 or its duckdb package is missing, unless TWOCLOCKS_REQUIRE_DUCKDB is
//! set (`.ci/run` installs the package and sets it, so there the test always runs).

use std::path::Path;
use std::process::Command;

use crate::cli_common::{stderr, stdout, twoclocks};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/duckdb_stats.py");

/// Whether DuckDB can be run; panics when it is required and cannot.
fn duckdb_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var_os("TWOCLOCKS_REQUIRE_DUCKDB").is_some() {
        panic!(
            "TWOCLOCKS_REQUIRE_DUCKDB is set but python3 cannot import duckdb: pip install duckdb"
        );
    }
    if !ok {
        eprintln!("skipped: python3 with the duckdb package is not here (pip install duckdb)");
    }
    ok
}

fn python(args: &[&str]) {
    let o = Command::new("python3")
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "python3 {args:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A log's columns and the flags that name them.
struct Log {
    unit: &'static str,
    nulls: usize,
    columns: [&'static str; 3],
}

impl Log {
    fn column_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        for (flag, (col, default)) in ["--event-time-col", "--proc-time-col", "--key-col"]
            .into_iter()
            .zip(
                self.columns
                    .into_iter()
                    .zip(["event_time_ms", "proc_time_ms", "key"]),
            )
        {
            if col != default {
                flags.push(flag.to_string());
                flags.push(col.to_string());
            }
        }
        flags
    }

    fn time_flags(&self) -> Vec<String> {
        match self.unit {
            "us" => vec!["--time-format".into(), "us".into()],
            "timestamp" => vec!["--time-format".into(), "rfc3339".into()],
            _ => vec!["--time-format".into(), "ms".into()],
        }
    }
}

/// The advice as JSON without `events`.
fn advice_json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "advise failed: {}", stderr(out));
    let mut v: serde_json::Value = serde_json::from_str(&stdout(out)).expect("JSON");
    v.as_object_mut().expect("an object").remove("events");
    v
}

/// Where two JSON values first differ, as a path and the two values (`None` if equal).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => first_difference(v, w, &format!("{at}.{k}")),
                None => Some(format!("{at}.{k} only in the first")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, &format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("at {at}: {a} against {b}")),
    }
}

fn run(args: Vec<String>) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    twoclocks(&args)
}

/// Checks one log and window: stats from the query (Parquet and CSV) advise as the log does.
fn check(dir: &Path, name: &str, log: &Log, window: &[&str], max_delay: &str) {
    let log_file = dir.join(format!("{name}.parquet"));
    let log_path = log_file.to_str().unwrap();
    python(&[
        "log",
        log_path,
        "6000",
        "7",
        log.unit,
        &log.nulls.to_string(),
        log.columns[0],
        log.columns[1],
        log.columns[2],
    ]);
    let window: Vec<String> = window.iter().map(|s| s.to_string()).collect();
    let delay = ["--max-delay".to_string(), max_delay.to_string()];

    let mut sql = vec!["advise".into(), "--sql".into(), "duckdb".into()];
    sql.extend(window.iter().cloned());
    sql.extend(delay.iter().cloned());
    sql.extend(log.column_flags());
    sql.extend(log.time_flags());
    let printed = run(sql);
    assert!(
        printed.status.success(),
        "--sql failed: {}",
        stderr(&printed)
    );
    let query = dir.join(format!("{name}.sql"));
    std::fs::write(&query, &printed.stdout).unwrap();
    let (pq, csv) = (
        dir.join(format!("{name}-stats.parquet")),
        dir.join(format!("{name}-stats.csv")),
    );
    python(&[
        "run",
        query.to_str().unwrap(),
        log_path,
        pq.to_str().unwrap(),
        csv.to_str().unwrap(),
    ]);

    let mut from_log = vec!["advise".into(), "--input".into(), log_path.to_string()];
    from_log.extend(window.iter().cloned());
    from_log.extend(delay.iter().cloned());
    from_log.extend(log.column_flags());
    from_log.extend(log.time_flags());
    from_log.extend(["--watermarks".into(), "fixed,bounded".into()]);
    from_log.extend(["--format".into(), "json".into()]);
    if log.nulls > 0 {
        from_log.extend(["--on-bad-row".into(), "skip".into()]);
    }
    let want = advice_json(&run(from_log));
    assert!(want["placements"].as_u64().unwrap() > 0);

    for stats in [&pq, &csv] {
        let mut args = vec!["advise".into(), "--stats".into()];
        args.push(stats.to_str().unwrap().to_string());
        args.extend(window.iter().cloned());
        args.extend(["--format".into(), "json".into()]);
        let out = run(args);
        let note = format!("left out {} rows of the log", log.nulls);
        assert_eq!(
            stderr(&out).contains(&note),
            log.nulls > 0,
            "{name}: {}",
            stderr(&out)
        );
        let got = advice_json(&out);
        if let Some(diff) = first_difference(&got, &want, "") {
            panic!(
                "{name}: {} advises otherwise than the log: {diff}",
                stats.display()
            );
        }
    }
}

#[test]
fn advice_from_the_duckdb_query_is_advice_from_the_log() {
    if !duckdb_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plain = Log {
        unit: "ms",
        nulls: 0,
        columns: ["event_time_ms", "proc_time_ms", "key"],
    };
    check(dir.path(), "tumbling", &plain, &[], "120s");
    check(
        dir.path(),
        "sliding",
        &plain,
        &["--window", "7s", "--slide", "3s"],
        "48s",
    );
    let named = Log {
        unit: "us",
        nulls: 3,
        columns: ["event time", "arrived", "user \"id\""],
    };
    check(dir.path(), "named", &named, &["--window", "10s"], "24s");
    let stamped = Log {
        unit: "timestamp",
        nulls: 0,
        columns: ["happened", "seen", "key"],
    };
    check(
        dir.path(),
        "stamped",
        &stamped,
        &["--window", "45s", "--slide", "20s"],
        "72s",
    );
}

#[test]
fn statistics_files_that_are_not_the_query_result_are_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stats.csv");
    let header = "watermark,window_start_ms,window_end_ms,key,first_clock_ms,slack_bin,slack_bin_ms,events,window_size_ms,window_slide_ms\n";
    // Rows of eight fields are for 1m tumbling windows: the window's size and slide are added.
    let full = |rows: &str| -> String {
        rows.lines()
            .map(|l| {
                if l.matches(',').count() == 7 {
                    format!("{l},60000,60000\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect()
    };
    let cases = [
        (
            "fixed,0,60000,a,100,-1,5000,3\nfixed,5,60005,a,100,-1,5000,3\n",
            "line 3: window_start_ms 5, window_end_ms 60005 is not a window of 1m tumbling",
        ),
        (
            "perfect,0,60000,a,100,-1,5000,3\n",
            "line 2: watermark 'perfect' is not one the statistics cover",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,x\n",
            "line 2: events 'x' is not a number",
        ),
        (
            "fixed,0,60000,a,100,49,5000,3\n",
            "line 2: slack_bin 49 is outside -1..48",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3\nfixed,0,60000,a,100,-1,5000,3\n",
            "line 3: slack bin -1 of the cell (fixed, window 0..60000, key 'a') comes twice",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3\nfixed,0,60000,a,200,0,5000,3\n",
            "line 3: first_clock_ms 200 differs from the 100",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3\nfixed,0,60000,b,100,0,4000,3\n",
            "line 3: slack_bin_ms 4000 differs from the 5000",
        ),
        (
            "fixed,0,60000,a,100,2,5000,3\n",
            "has its lowest slack bin 2 but its first clock 100 is in bin -1",
        ),
        ("", "the file holds no statistics rows"),
        (
            "rows_left_out,,,,,,5000,4\n",
            "the file holds no statistics rows (only the count of 4 rows the query left out)",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3,60000,30000\n",
            "line 2: window_size_ms 60000, window_slide_ms 30000: these statistics are for other windows than 1m tumbling: give --window 60000ms --slide 30000ms",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3\nbounded,0,60000,a,100,-1,5000,2\n",
            "the fixed rows count 3 placements and the bounded rows 2",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,9000000000000000\nfixed,0,60000,b,100,-1,5000,9000000000000000\n",
            "the fixed rows count more than 2^53 placements",
        ),
        (
            "fixed,0,60000,a,100,-1,5000,3\n",
            "the statistics hold no rows for the bounded watermark",
        ),
    ];
    for (rows, want) in cases {
        std::fs::write(&file, format!("{header}{}", full(rows))).unwrap();
        let out = twoclocks(&["advise", "--stats", file.to_str().unwrap()]);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains(want), "want {want:?} in {err}");
        assert!(err.contains("stats.csv"), "{err}");
    }
    std::fs::write(
        &file,
        format!("{header}{}", full("fixed,0,60000,a,100,-1,5000,3")),
    )
    .unwrap();
    let err = stderr(&twoclocks(&[
        "advise",
        "--stats",
        file.to_str().unwrap(),
        "--session",
        "60s",
    ]));
    assert!(
        err.contains("slack statistics serve tumbling and sliding windows"),
        "{err}"
    );
    std::fs::write(&file, "watermark,events\nfixed,3\n").unwrap();
    let err = stderr(&twoclocks(&["advise", "--stats", file.to_str().unwrap()]));
    assert!(err.contains("no column 'window_start_ms'"), "{err}");
}

#[test]
fn the_query_is_refused_where_statistics_cannot_serve() {
    let cases: [(&[&str], &str); 4] = [
        (&["--session", "30s"], "tumbling and sliding windows"),
        (&["--window", "global"], "tumbling and sliding windows"),
        (
            &["--watermarks", "fixed,heuristic"],
            "the heuristic's follows every arrival's delay",
        ),
        (
            &["--max-delay", "100s"],
            "is not 24 whole-millisecond steps",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["advise", "--sql", "spark", "--time-format", "ms"];
        args.extend_from_slice(flags);
        let out = twoclocks(&args);
        assert!(!out.status.success(), "{flags:?}");
        assert!(stderr(&out).contains(want), "{flags:?}: {}", stderr(&out));
    }
    // The column flags name the table's columns, quoted for each engine.
    let out = twoclocks(&[
        "advise",
        "--sql",
        "flink",
        "--time-format",
        "ms",
        "--key-col",
        "user`s key",
    ]);
    assert!(
        stdout(&out).contains("CAST(`user``s key` AS STRING) AS k"),
        "{}",
        stdout(&out)
    );
    // The time format must be said: a timestamp cast to a number is seconds in some engines.
    let out = twoclocks(&["advise", "--sql", "duckdb"]);
    assert!(
        stderr(&out).contains("advise --sql needs --time-format"),
        "{}",
        stderr(&out)
    );
    // Flags the query does not use are refused, not ignored.
    let unused: [&[&str]; 4] = [
        &["--arrival", "file-order"],
        &["--on-bad-row", "skip"],
        &["--seed", "3"],
        &["--target-accuracy", "99"],
    ];
    for flag in unused {
        let mut args = vec!["advise", "--sql", "duckdb", "--time-format", "ms"];
        args.extend_from_slice(flag);
        let out = twoclocks(&args);
        assert!(!out.status.success(), "{flag:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{flag:?}: {}",
            stderr(&out)
        );
    }
    // A column flag without a log or a query names nothing: refused.
    let out = twoclocks(&["advise", "--key-col", "user"]);
    assert!(!out.status.success());
}

#[test]
fn a_directory_of_part_files_is_read_as_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("result");
    std::fs::create_dir(&parts).unwrap();
    let header = "watermark,window_start_ms,window_end_ms,key,first_clock_ms,slack_bin,slack_bin_ms,events,window_size_ms,window_slide_ms\n";
    let rows = [
        "fixed,0,60000,a,100,-1,5000,3,60000,60000\nfixed,0,60000,a,100,2,5000,1,60000,60000\n",
        "bounded,0,60000,a,100,-1,5000,4,60000,60000\nrows_left_out,,,,,,5000,2,60000,60000\n",
    ];
    for (i, r) in rows.iter().enumerate() {
        std::fs::write(
            parts.join(format!("part-{i:05}.csv")),
            format!("{header}{r}"),
        )
        .unwrap();
    }
    std::fs::write(parts.join("_SUCCESS"), "").unwrap();
    std::fs::write(parts.join(".part-00000.csv.crc"), "junk").unwrap();
    let out = twoclocks(&[
        "advise",
        "--stats",
        parts.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(j["placements"], 4);
    assert!(stderr(&out).contains("left out 2 rows"), "{}", stderr(&out));
    // One part alone lacks the bounded rows: refused, not advised on.
    let out = twoclocks(&[
        "advise",
        "--stats",
        parts.join("part-00000.csv").to_str().unwrap(),
    ]);
    assert!(
        stderr(&out).contains("hold no rows for the bounded watermark"),
        "{}",
        stderr(&out)
    );
}
