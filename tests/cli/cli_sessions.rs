//! `--session GAP` on the command line: `run` lists sessions by their span (as a table and as
//! JSON, alone and through the parallel pipeline), `frontier` sweeps them, the UI refuses them
//! with what to do instead, and a gap given with `--window` or `--slide`, or one that is not a
//! whole number of milliseconds ≥ 1, is one error line with exit code 2.

use crate::cli_common::{json, refused, stderr, stdout, twoclocks};

/// A sparse stream: two keys, an event every few seconds each, some of them very late.
const SPARSE: [&str; 6] = ["--events", "300", "--span", "600s", "--keys", "ab"];

#[test]
fn session_with_window_or_slide_is_refused() {
    for args in [
        &["run", "--session", "30s", "--slide", "10s"][..],
        &["run", "--session", "30s", "--window", "60s"],
        &["run", "--window", "60s", "--session", "30s"],
        &["frontier", "--session", "30s", "--window", "60s"],
        &["--session", "30s", "--slide", "10s"],
    ] {
        let err = refused(args);
        assert!(err.contains("--session"), "{err}");
        assert!(err.contains("cannot be used with"), "{err}");
    }
}

#[test]
fn a_gap_that_is_not_a_whole_positive_number_of_milliseconds_is_refused() {
    for gap in ["0", "0s", "inf", "∞", "1.5ms", "nan", "x"] {
        let err = refused(&["run", "--session", gap]);
        assert!(err.contains("--session"), "{gap}: {err}");
    }
    let err = refused(&["run", "--session", "-5s"]);
    assert!(err.contains("cannot be negative"), "{err}");
    let err = refused(&["run", "--session", "0s"]);
    assert!(err.contains("is not a session gap"), "{err}");
    let err = refused(&["run", "--session", "1e12s"]);
    assert!(err.contains("out of range"), "{err}");
}

#[test]
fn the_ui_takes_sessions_and_without_a_terminal_says_so() {
    let err = refused(&["--session", "30s"]);
    assert!(err.contains("the UI needs a terminal"), "{err}");
}

#[test]
fn run_lists_sessions_by_their_span() {
    let mut args = vec!["run", "--session", "10s", "--grace", "30s"];
    args.extend(SPARSE);
    let o = twoclocks(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("10s-gap session over 300 events"));
    let header = text.lines().find(|l| l.contains("start")).unwrap();
    assert!(!header.contains("window"), "{header}");
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["start", "end", "key", "value", "truth", "error"]
    );

    args.extend(["--format", "json"]);
    let j = json(&args);
    assert_eq!(j["config"]["window"], "10s-gap session");
    let windows = j["windows"].as_array().unwrap();
    assert!(windows.len() > 10);
    for w in windows {
        assert!(w["window"].is_null(), "{w}");
        let (start, end) = (
            w["start_ms"].as_f64().unwrap(),
            w["end_ms"].as_f64().unwrap(),
        );
        assert!(end - start >= 10_000.0, "{w}");
    }
    // Every kept event is in one listed session; listed sessions the oracle does not have
    // carry truth 0.
    let kept: u64 = windows.iter().map(|w| w["value"].as_u64().unwrap()).sum();
    let truth: u64 = windows.iter().map(|w| w["truth"].as_u64().unwrap()).sum();
    assert_eq!(kept + j["dropped"].as_u64().unwrap(), 300);
    assert_eq!(truth, 300);
    for p in j["panes"].as_array().unwrap() {
        assert!(p["window"].is_null(), "{p}");
        assert!(p["end_ms"].as_f64().unwrap() > p["start_ms"].as_f64().unwrap());
    }
    for d in j["dropped_events"].as_array().unwrap() {
        // Decided on the event's own proto-window [⌊t⌋, ⌊t⌋ + gap).
        let t = d["event_time_ms"].as_f64().unwrap();
        assert_eq!(d["window_start_ms"].as_f64().unwrap(), t.floor());
        assert_eq!(d["window_end_ms"].as_f64().unwrap(), t.floor() + 10_000.0);
    }
    // With infinite grace every true session is reproduced.
    let mut args = vec![
        "run",
        "--session",
        "10s",
        "--grace",
        "inf",
        "--format",
        "json",
    ];
    args.extend(SPARSE);
    let j = json(&args);
    assert_eq!(j["wrong_windows"], 0);
    assert_eq!(j["events_lost"], 0);
}

#[test]
fn the_pipeline_runs_sessions_exactly_once_through_a_crash() {
    let pipeline = [
        "--partitions",
        "2",
        "--parallelism",
        "2",
        "--checkpoint-every",
        "10s",
        "--format",
        "json",
    ];
    let mut clean = vec![
        "run",
        "--session",
        "10s",
        "--grace",
        "20s",
        "--accumulation",
        "retracting",
    ];
    clean.extend(SPARSE);
    clean.extend(pipeline);
    let mut crashed = clean.clone();
    crashed.extend(["--crash-at", "120s,300s"]);
    let (a, b) = (json(&clean), json(&crashed));
    assert_eq!(b["crashes"].as_array().unwrap().len(), 2);
    assert!(b["crashes"][0]["events_replayed"].as_u64().unwrap() > 0);
    for field in ["windows", "sink_output", "wrong_windows", "events_lost"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    for (x, y) in a["sinks"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["sinks"].as_array().unwrap())
    {
        if x["sink"] != "additive" {
            assert_eq!(x, y);
        }
    }
    for c in b["sink_output"].as_array().unwrap() {
        assert!(c["window"].is_null() && c["start_ms"].is_f64() && c["end_ms"].is_f64());
    }
    // One partition and one operator: the single processor's sessions.
    let mut single = vec![
        "run",
        "--session",
        "10s",
        "--grace",
        "20s",
        "--format",
        "json",
    ];
    single.extend(SPARSE);
    let mut narrow = single.clone();
    narrow.extend([
        "--partitions",
        "1",
        "--parallelism",
        "1",
        "--crash-at",
        "200s",
    ]);
    assert_eq!(json(&single)["windows"], json(&narrow)["windows"]);
}

#[test]
fn frontier_sweeps_sessions() {
    let mut args = vec![
        "frontier",
        "--session",
        "10s",
        "--lags",
        "0s,10s",
        "--graces",
        "0s,inf",
        "--format",
        "json",
    ];
    args.extend(SPARSE);
    let j = json(&args);
    let points = j.as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        if p["grace_ms"].is_null() {
            assert_eq!(p["wrong_windows"], 0, "{p}");
            assert_eq!(p["dropped"], 0, "{p}");
        }
    }
}

#[test]
fn under_beam_python_a_late_event_merges_an_expired_session_back() {
    // tests/real_engines/, bridging-expired-session: [0, 10000) fires and is past its
    // lateness (L 0) when 7000 arrives, whose own window [7000, 17000) is not; Beam Python's
    // driver never collects a window, so 7000 bridges it to [15000, 25000): [0, 25000)
    // ON_TIME with all three, as Beam 2.78 emitted. Flink cleaned [0, 10000) up and keeps it
    // out.
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/real_engines/logs/bridging-late-session.csv"
    );
    let panes = |rules| {
        let doc = crate::cli_common::json(&[
            "run",
            "--input",
            log,
            "--session",
            "10s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "0s",
            "--conventions",
            rules,
            "--format",
            "json",
        ]);
        let panes: Vec<_> = doc["panes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["start_ms"].as_f64().unwrap() as i64,
                    p["end_ms"].as_f64().unwrap() as i64,
                    p["timing"].as_str().unwrap().to_string(),
                    p["index"].as_u64().unwrap(),
                    p["value"].as_u64().unwrap(),
                )
            })
            .collect();
        (panes, doc["windows"].as_array().unwrap().len())
    };
    let on_time = |s, e, n| (s, e, "ON_TIME".to_string(), 0, n);
    let (python, windows) = panes("beam-python");
    assert_eq!(
        python,
        [
            on_time(0, 10_000, 1),
            on_time(0, 25_000, 3),
            on_time(40_000, 50_000, 1)
        ]
    );
    assert_eq!(windows, 2, "the expired session is in the merged one");
    let (flink, _) = panes("flink");
    assert_eq!(
        flink,
        [
            on_time(0, 10_000, 1),
            on_time(7000, 25_000, 2),
            on_time(40_000, 50_000, 1)
        ]
    );
}
