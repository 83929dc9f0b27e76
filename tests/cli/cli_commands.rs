//! The command line as a user meets it: the real binary's output, its JSON and CSV, and one
//! clear error line with a non-zero exit for bad flags and bad input files.

use crate::cli_common::{refused, stderr, stdout, twoclocks};

#[test]
fn report_prints_the_reference_figures() {
    let o = twoclocks(&["report"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "p50   1.57s",
        "9875/19999",
        "499 509 539 473",
        "1057",
        "27 panes",
        "identical: yes",
        "93.58%",
        "98.16%",
        "100.00%",
    ] {
        assert!(text.contains(needle), "report lacks {needle:?}");
    }
}

#[test]
fn run_json_has_the_documented_shape() {
    let o = twoclocks(&[
        "run",
        "--events",
        "2000",
        "--watermark",
        "fixed:2s",
        "--early",
        "10s",
        "--accumulation",
        "retracting",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    for field in [
        "events",
        "dropped",
        "late",
        "wrong_windows",
        "events_lost",
        "max_error",
        "windows",
        "panes",
    ] {
        assert!(j.get(field).is_some(), "no {field}");
    }
    assert_eq!(j["events"], 2000);
    let w = &j["windows"][0];
    for field in ["window", "start_ms", "end_ms", "key", "value", "truth"] {
        assert!(w.get(field).is_some(), "window entry lacks {field}");
    }
    let panes = j["panes"].as_array().unwrap();
    assert!(panes.iter().any(|p| p["timing"] == "EARLY"));
    assert!(panes.iter().any(|p| p["timing"] == "ON_TIME"));
    assert!(panes.iter().any(|p| p.get("retraction").is_some()));
    let kept: u64 = j["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["value"].as_u64().unwrap())
        .sum();
    assert_eq!(kept + j["dropped"].as_u64().unwrap(), 2000);
}

#[test]
fn a_generated_stream_replays_exactly_from_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.csv");
    let o = twoclocks(&["stream", "--events", "1500", "--seed", "11"]);
    assert!(o.status.success());
    std::fs::write(&path, &o.stdout).unwrap();
    let from_file = twoclocks(&["run", "--input", path.to_str().unwrap(), "--format", "json"]);
    let generated = twoclocks(&[
        "run", "--events", "1500", "--seed", "11", "--format", "json",
    ]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let a: serde_json::Value = serde_json::from_slice(&from_file.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&generated.stdout).unwrap();
    for field in ["dropped", "late", "wrong_windows", "events_lost", "panes"] {
        assert_eq!(a[field], b[field], "{field}");
    }
}

#[test]
fn frontier_csv_has_a_row_per_point() {
    let o = twoclocks(&[
        "frontier",
        "--lags",
        "2s,10s",
        "--graces",
        "0s..30s/30s",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("lag_ms,grace_ms,emit_delay_ms"));
    assert!(lines[1].starts_with("2000,0,2000,1283,40,1283,"));
    assert!(lines[4].starts_with("10000,30000,40000,369,40,369,"));
}

#[test]
fn bad_input_gets_one_clear_line_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "event_time_ms,proc_time_ms,key\n1,2,a\n3,soon,b\n").unwrap();
    let o = twoclocks(&["run", "--input", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("bad.csv, line 3: proc_time_ms 'soon'"),
        "{err}"
    );

    let missing = dir.path().join("missing.csv");
    let o = twoclocks(&["run", "--input", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot open"));

    for args in [
        &["run", "--watermark", "sometimes"][..],
        &["run", "--grace", "ten"],
        &["run", "--grace", "-5s"],
        &["run", "--bogus"],
        &["run", "--window", "0s"],
        &["run", "--early", "0s"],
        &["run", "--slide", "90s"],
        &["run", "--tail", "2"],
        &["frontier", "--lags", "9s..1s/1s"],
        &["frontier", "--watermark", "perfect"],
    ] {
        refused(args);
    }
}

#[test]
fn the_sample_log_shows_a_whole_window_rescued_by_grace() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/samples/mobile-outage.csv"
    );
    let json = |grace: &str| -> serde_json::Value {
        let o = twoclocks(&[
            "run",
            "--input",
            path,
            "--watermark",
            "fixed:5s",
            "--grace",
            grace,
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let strict = json("0s");
    assert_eq!(
        (strict["dropped"].as_u64(), strict["wrong_windows"].as_u64()),
        (Some(45), Some(1))
    );
    let patient = json("60s");
    assert_eq!(
        (patient["dropped"].as_u64(), patient["late"].as_u64()),
        (Some(0), Some(45))
    );
    // The embedded copy parses as the file does.
    let embedded = twoclocks::io::csv::read_events_from(
        include_str!("../../assets/samples/mobile-outage.csv").as_bytes(),
        "mobile-outage.csv",
    )
    .unwrap();
    assert_eq!(embedded.len(), 600);
}
