//! The real engines' recordings (`tests/real_engines/results/`, made by hand with Beam 2.78's
//! Python SDK and Flink 2.3: see its README) replayed against the program's own commands:
//! `twoclocks run --conventions flink|beam-python` on each case's log and dials must give the
//! engine's panes (window, timing, count; `is_last` too for Beam Python) and drops, through
//! the processor and through `run --trigger`; and the rows the `export --to flink-sql
//! --source file` query emitted in PyFlink must be the panes `run --conventions flink`
//! predicts for what the export writes, as must the panes of `export --to flink --source
//! file` on a MiniCluster and of `export --to beam-python --source file` on Beam's
//! DirectRunner (under `--conventions beam-python`).

use serde_json::Value;

use crate::cli_common::{json, output};
use crate::recordings_common::{
    cases, lateness, log_path, read, recorded_drops, windows_per_row, DIR,
};

/// A pane as every side can say it: key, window, timing, count, and `is_last` where compared.
type Pane = (String, i64, i64, String, u64, Option<bool>);

/// The case's dials as `run` and `export` take them, with `grace` for its lateness.
fn dials(case: &Value, grace: i64) -> Vec<String> {
    let (kind, ms) = case["window"].as_str().unwrap().split_once(':').unwrap();
    let b = case["bounded_out_of_orderness_ms"].as_i64().unwrap();
    let mut flags = match (kind, ms.split_once(':')) {
        ("sliding", Some((size, slide))) => vec![
            "--window".to_string(),
            format!("{size}ms"),
            "--slide".to_string(),
            format!("{slide}ms"),
        ],
        ("fixed", _) => vec!["--window".to_string(), format!("{ms}ms")],
        _ => vec!["--session".to_string(), format!("{ms}ms")],
    };
    flags.extend([
        "--watermark".to_string(),
        format!("bounded:{b}ms"),
        "--grace".to_string(),
        format!("{grace}ms"),
    ]);
    flags
}

fn ms(v: &Value) -> i64 {
    v.as_f64().unwrap() as i64
}

/// Panes in emission order within each window (a stable sort by key and window), so that a
/// window's ON_TIME and LATE panes keep their order while windows may interleave differently.
fn by_window(mut panes: Vec<Pane>) -> Vec<Pane> {
    panes.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
    panes
}

/// `twoclocks run` on the case's log under `conventions` (with `extra` flags): its panes and
/// dropped event times (sorted), `is_last` kept if `last`.
fn run(
    case: &Value,
    conventions: &str,
    grace: i64,
    extra: &[&str],
    last: bool,
) -> (Vec<Pane>, Vec<i64>) {
    let log = log_path(case);
    let mut args = vec![
        "run",
        "--input",
        &log,
        "--conventions",
        conventions,
        "--format",
        "json",
    ];
    let dials = dials(case, grace);
    args.extend(dials.iter().map(String::as_str));
    args.extend_from_slice(extra);
    let out = json(&args);
    let panes = out["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let start = p.get("start_ms").or(p.get("window_start_ms")).unwrap();
            let end = p.get("end_ms").or(p.get("window_end_ms")).unwrap();
            let count = p.get("value").or(p.get("count")).unwrap();
            (
                p["key"].as_str().unwrap().to_string(),
                ms(start),
                ms(end),
                p["timing"].as_str().unwrap().to_string(),
                count.as_u64().unwrap(),
                last.then(|| p["is_last"].as_bool().unwrap()),
            )
        })
        .collect();
    // `run` lists a drop per window; a row is dropped (in no pane, as the engines' recordings
    // say it) when every window it falls in dropped it.
    let mut per_row = std::collections::BTreeMap::<(i64, i64), usize>::new();
    for d in out["dropped_events"].as_array().unwrap() {
        *per_row
            .entry((ms(&d["event_time_ms"]), ms(&d["proc_time_ms"])))
            .or_default() += 1;
    }
    let mut dropped: Vec<i64> = per_row
        .into_iter()
        .filter(|&(_, n)| n >= windows_per_row(case))
        .map(|((t, _), _)| t)
        .collect();
    dropped.sort();
    (by_window(panes), dropped)
}

/// How many (row, window) drops `twoclocks run` lists for the case under `conventions`.
fn window_drops(case: &Value, conventions: &str, grace: i64) -> u64 {
    let log = log_path(case);
    let dials = dials(case, grace);
    let mut args = vec![
        "run",
        "--input",
        &log,
        "--conventions",
        conventions,
        "--format",
        "json",
    ];
    args.extend(dials.iter().map(String::as_str));
    json(&args)["dropped_events"].as_array().unwrap().len() as u64
}

/// A pane as a recording writes it: its element count as `count`, or as the list of its
/// `event_times_ms`; its `is_last` only where `last` asks for it.
fn recorded_pane(p: &Value, last: bool) -> Pane {
    let count = match p["count"].as_u64() {
        Some(n) => n,
        None => p["event_times_ms"].as_array().unwrap().len() as u64,
    };
    (
        p["key"].as_str().unwrap().to_string(),
        ms(&p["window_start_ms"]),
        ms(&p["window_end_ms"]),
        p["timing"].as_str().unwrap().to_string(),
        count,
        last.then(|| p["is_last"].as_bool().unwrap()),
    )
}

/// An engine script's recording: its panes (by window) and dropped event times (sorted).
fn recorded(engine: &str, case: &str, last: bool) -> (Vec<Pane>, Vec<i64>) {
    let r = read(&format!("results/{engine}/{case}.json"));
    let panes = r["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| recorded_pane(p, last))
        .collect();
    (by_window(panes), recorded_drops(&r))
}

/// The code the program writes today for the export a recording ran (`r["export"]`, the
/// case's log in place of its name in the folder), written in this process; the recording
/// stands for that code only while the two are the same.
fn exported_again(case: &Value, r: &Value) -> String {
    let name = case["name"].as_str().unwrap();
    let log = log_path(case);
    let args: Vec<&str> = r["export"].as_array().unwrap()[1..]
        .iter()
        .map(|a| {
            if *a == case["log"] {
                log.as_str()
            } else {
                a.as_str().unwrap()
            }
        })
        .collect();
    output(&args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The cases with Beam's default trigger (the processor's early firings are on processing
/// time; the recorded early trigger counts elements).
fn default_trigger() -> impl Iterator<Item = Value> {
    cases().into_iter().filter(|c| c["trigger"] == "default")
}

fn replay_flink(extra: &[&str], only: Option<&[&str]>) {
    let mut compared = 0;
    for case in default_trigger() {
        let name = case["name"].as_str().unwrap();
        if only.is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        assert_eq!(
            run(&case, "flink", lateness(&case), extra, false),
            recorded("flink", name, false),
            "{name}: run --conventions flink {extra:?} against Flink's recording"
        );
        compared += 1;
    }
    assert!(compared > 0);
}

#[test]
fn run_under_flink_gives_flinks_panes_and_drops() {
    replay_flink(&[], None);
}

#[test]
fn run_trigger_under_flink_gives_flinks_panes_where_sessions_do_not_touch() {
    replay_flink(
        &["--trigger", "Default"],
        Some(&[
            "bridging-late-session",
            "bridging-expired-session",
            "drop-boundary",
            "ontime-boundary",
            "is-last-fixed",
            "sliding-drop-boundary",
        ]),
    );
}

#[test]
fn run_trigger_under_flink_merges_touching_sessions_as_flink_does() {
    replay_flink(
        &["--trigger", "Default"],
        Some(&["touching-sessions", "touching-pair", "touching-pair-grace"]),
    );
}

fn replay_beam_python(last: bool, only: &[&str], skip: &[&str]) {
    let mut compared = 0;
    for case in default_trigger() {
        let name = case["name"].as_str().unwrap();
        if (!only.is_empty() && !only.contains(&name)) || skip.contains(&name) {
            continue;
        }
        for engine in ["beam-python", "beam-python-driver"] {
            assert_eq!(
                run(&case, "beam-python", lateness(&case), &[], last),
                recorded(engine, name, last),
                "{name}: run --conventions beam-python against {engine}'s recording"
            );
        }
        compared += 1;
    }
    assert!(compared > 0);
}

#[test]
fn run_under_beam_python_gives_beams_panes_and_drops() {
    replay_beam_python(false, &[], &["bridging-expired-session"]);
}

#[test]
fn run_under_beam_python_marks_no_pane_last() {
    replay_beam_python(true, &[], &["bridging-expired-session"]);
}

#[test]
fn run_under_beam_python_merges_an_expired_session_back() {
    replay_beam_python(false, &["bridging-expired-session"], &[]);
}

/// What `export --to flink-sql` writes for sessions: no allowed lateness (neither Flink SQL
/// syntax takes it for sessions, as the export says), so twoclocks' prediction of what the
/// exported query does is `run` with `--grace 0s`.
fn flink_sql_grace(case: &Value) -> i64 {
    if case["window"].as_str().unwrap().starts_with("session:") {
        0
    } else {
        lateness(case)
    }
}

#[test]
fn the_flink_sql_export_emits_in_pyflink_the_panes_run_predicts() {
    let mut compared = 0;
    for case in default_trigger() {
        let name = case["name"].as_str().unwrap();
        let r = read(&format!("results/flink-sql/{name}.json"));
        // The export that was run is still what the program writes for the case.
        let code = exported_again(&case, &r);
        assert!(
            code.contains("'connector' = 'filesystem'"),
            "{name}: {code}"
        );
        assert!(code.contains("SET 'pipeline.auto-watermark-interval' = '0';"));
        let engine: Vec<Pane> = r["panes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| recorded_pane(p, false))
            .collect();
        let (panes, _) = run(&case, "flink", flink_sql_grace(&case), &[], false);
        let dropped = window_drops(&case, "flink", flink_sql_grace(&case));
        assert_eq!(
            panes,
            by_window(engine),
            "{name}: Flink SQL's rows against run"
        );
        assert_eq!(
            dropped,
            r["dropped_count"].as_u64().unwrap(),
            "{name}: drops from a window"
        );
        compared += 1;
    }
    assert_eq!(compared, 9);
}

#[test]
fn a_file_source_is_refused_where_it_cannot_be_written() {
    use crate::cli_common::refused;
    let log = format!("{DIR}/logs/touch.csv");
    for target in ["beam", "kafka-streams"] {
        let err = refused(&[
            "export", "--to", target, "--input", &log, "--source", "file",
        ]);
        assert!(
            err.contains("only the flink, flink-sql and beam-python exports read a file"),
            "{err}"
        );
    }
    let err = refused(&["export", "--to", "flink-sql", "--source", "file"]);
    assert!(err.contains("give --input FILE"), "{err}");
    let err = refused(&[
        "export",
        "--to",
        "flink-sql",
        "--input",
        &log,
        "--source",
        "file",
        "--session",
        "5s",
        "--key-col",
        "user",
    ]);
    assert!(
        err.contains("touch.csv") && err.contains("no column") && err.contains("user"),
        "{err}"
    );
}

#[test]
fn the_flink_datastream_export_emits_on_a_minicluster_the_panes_and_drops_run_predicts() {
    let mut compared = 0;
    for case in default_trigger() {
        let name = case["name"].as_str().unwrap();
        let r = read(&format!("results/flink-export/{name}.json"));
        let code = exported_again(&case, &r);
        assert!(
            code.contains("FileSource.forRecordStreamFormat"),
            "{name}: {code}"
        );
        assert!(code.contains("new EveryRowBounded("), "{name}: {code}");
        let engine: Vec<Pane> = r["panes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| recorded_pane(p, false))
            .collect();
        assert_eq!(
            run(&case, "flink", lateness(&case), &[], false),
            (by_window(engine), recorded_drops(&r)),
            "{name}: the exported job on a MiniCluster against run --conventions flink"
        );
        compared += 1;
    }
    assert_eq!(compared, 9);
}

/// The Beam Python export's recorded panes for `case` (`is_last` kept if `last`) and how many
/// times a row was dropped from a window.
fn beam_python_export(name: &str, last: bool) -> (Vec<Pane>, u64) {
    let r = read(&format!("results/beam-python-export/{name}.json"));
    let panes = r["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| recorded_pane(p, last))
        .collect();
    (by_window(panes), r["dropped_count"].as_u64().unwrap())
}

fn replay_beam_python_export(last: bool, only: &[&str], skip: &[&str]) -> usize {
    let mut compared = 0;
    for case in default_trigger() {
        let name = case["name"].as_str().unwrap();
        if (!only.is_empty() && !only.contains(&name)) || skip.contains(&name) {
            continue;
        }
        let r = read(&format!("results/beam-python-export/{name}.json"));
        let code = exported_again(&case, &r);
        assert!(code.contains("beam.WindowInto("), "{name}: {code}");
        assert!(code.contains("stream = TestStream()"), "{name}: {code}");
        let (panes, _) = run(&case, "beam-python", lateness(&case), &[], last);
        let dropped = window_drops(&case, "beam-python", lateness(&case));
        assert_eq!(
            (panes, dropped),
            beam_python_export(name, last),
            "{name}: the exported pipeline on the DirectRunner against run --conventions beam-python"
        );
        compared += 1;
    }
    compared
}

#[test]
fn the_beam_python_export_emits_on_the_direct_runner_the_panes_run_predicts() {
    let compared = replay_beam_python_export(false, &[], &["bridging-expired-session"]);
    assert_eq!(compared, 8);
}

#[test]
fn the_beam_python_export_marks_no_pane_last_as_run_predicts() {
    replay_beam_python_export(true, &[], &["bridging-expired-session"]);
}

#[test]
fn the_beam_python_export_merges_an_expired_session_back_as_run_predicts() {
    assert_eq!(
        replay_beam_python_export(false, &["bridging-expired-session"], &[]),
        1
    );
}

#[test]
fn the_beam_python_export_is_a_pipeline_of_the_dials() {
    let code = output(&[
        "export",
        "--to",
        "beam-python",
        "--window",
        "60s",
        "--slide",
        "20s",
        "--watermark",
        "bounded:5s",
        "--grace",
        "30s",
        "--early",
        "10s",
        "--accumulation",
        "discarding",
    ])
    .unwrap();
    for line in [
        "window.SlidingWindows(Duration(seconds=60), Duration(seconds=20)),",
        "trigger=trigger.AfterWatermark(early=trigger.AfterProcessingTime(10), late=trigger.AfterCount(1)),",
        "allowed_lateness=Duration(seconds=30),",
        "accumulation_mode=trigger.AccumulationMode.DISCARDING,",
    ] {
        assert!(code.contains(line), "{line}\n{code}");
    }
    assert!(
        !code.contains("TestStream"),
        "a Kafka source's export has no replay"
    );
    let err = crate::cli_common::refused(&[
        "export",
        "--to",
        "beam-python",
        "--input",
        &format!("{DIR}/logs/touch.csv"),
        "--source",
        "file",
        "--watermark",
        "fixed:1s",
    ]);
    assert!(err.contains("under a bounded watermark"), "{err}");
}
