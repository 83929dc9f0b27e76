//! The command line's pipeline flags: `run --parallelism N --partitions P --checkpoint-every DUR
//! --crash-at LIST --sink KIND` adds the sink's output, the checkpoints and the crashes to the
//! JSON answer; without them `run` answers as before; bad values give one error line.

mod cli_common;
use cli_common::twoclocks_text as twoclocks;

fn json(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = twoclocks(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("one JSON document")
}

#[test]
fn pipeline_flags_add_sink_output_checkpoints_and_crashes() {
    let j = json(&[
        "run",
        "--events",
        "4000",
        "--span",
        "120s",
        "--parallelism",
        "3",
        "--partitions",
        "2",
        "--checkpoint-every",
        "10s",
        "--crash-at",
        "65s,100s",
        "--sink",
        "idempotent",
        "--format",
        "json",
    ]);
    let cells = j["sink_output"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        assert!(c["window"].is_i64() && c["key"].is_string() && c["value"].is_i64());
    }
    let cks = j["checkpoints"].as_array().unwrap();
    assert!(cks.len() >= 10);
    assert_eq!(cks[0]["offsets"].as_array().unwrap().len(), 2);
    assert!(cks[0]["bytes"].as_u64().unwrap() > 0);
    let crashes = j["crashes"].as_array().unwrap();
    assert_eq!(crashes.len(), 2);
    assert_eq!(crashes[0]["time_ms"], 65_000.0);
    assert_eq!(crashes[0]["restored_checkpoint"], 6);
    assert!(crashes[0]["events_replayed"].as_u64().unwrap() > 0);
    // The idempotent sink holds what the operators finalised.
    let sinks = j["sinks"].as_array().unwrap();
    let idem = sinks.iter().find(|s| s["sink"] == "idempotent").unwrap();
    assert_eq!(idem["wrong_windows"], j["wrong_windows"]);
}

#[test]
fn without_pipeline_flags_run_answers_as_before() {
    let j = json(&["run", "--events", "500", "--format", "json"]);
    assert!(j.get("sink_output").is_none());
    assert!(j.get("checkpoints").is_none());
    assert!(j["windows"].is_array());
}

#[test]
fn bad_pipeline_flags_give_one_error_line() {
    for args in [
        &["run", "--parallelism", "0"][..],
        &["run", "--partitions", "65"],
        &["run", "--checkpoint-every", "0s"],
        &["run", "--crash-at", "soon"],
    ] {
        let (code, stdout, stderr) = twoclocks(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty());
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("twoclocks: --"), "{stderr}");
    }
}
