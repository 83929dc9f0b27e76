//! Beam Java's closing and on-time behaviours: `run --closing fire-always` emits a window's
//! last pane, empty, LATE and last, when it is collected at its end + grace (the processor on
//! fixed windows and sessions, and `run --trigger`); `--on-time fire-if-non-empty` holds back
//! an ON_TIME pane with nothing new, and the late pane after it takes its index; both flags are
//! refused under any other engine's rules; the transcripts written from Beam Java's
//! `ReduceFnRunnerTest` pass under Beam's rules, and a script's `closing_behavior:` and
//! `on_time_behavior:` are read with their errors naming the file and line.

use std::io::Write;

use crate::cli_common::{json, refused, twoclocks_text};

const CLOSING: &str = "tests/transcripts/beam_java_closing.yaml";

fn log(rows: &[(i64, i64)]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(f, "event_time_ms,proc_time_ms,key").unwrap();
    for (e, p) in rows {
        writeln!(f, "{e},{p},k").unwrap();
    }
    f
}

/// `(start, timing, index, nonspeculative, is_last, value)` of each pane of `run`'s JSON.
fn panes(doc: &serde_json::Value) -> Vec<(i64, String, u64, i64, bool, i64)> {
    doc["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["start_ms"].as_f64().unwrap() as i64,
                p["timing"].as_str().unwrap().to_string(),
                p["index"].as_u64().unwrap(),
                p["nonspeculative_index"].as_i64().unwrap(),
                p["is_last"].as_bool().unwrap(),
                p["value"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn pane(
    start: i64,
    timing: &str,
    index: u64,
    ns: i64,
    last: bool,
    value: i64,
) -> (i64, String, u64, i64, bool, i64) {
    (start, timing.to_string(), index, ns, last, value)
}

/// Two events in [0, 10s), one at 12s that passes it (ON_TIME), one at 40s that passes
/// [10s, 20s) and collects [0, 10s) (its end + grace 5s ≤ 40s).
const FIXED: [(i64, i64); 4] = [(1000, 1500), (3000, 3500), (12000, 12500), (40000, 40500)];

#[test]
fn fire_always_closing_emits_an_empty_late_last_pane_at_collection() {
    let f = log(&FIXED);
    let path = f.path().to_str().unwrap();
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "run",
            "--input",
            path,
            "--window",
            "10s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "5s",
            "--accumulation",
            "discarding",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        a
    };
    let beam = json(&args(&[]));
    let always = json(&args(&["--closing", "fire-always"]));
    // Beam's default, FIRE_IF_NON_EMPTY: no pane when [0, 10s) is collected with nothing new.
    assert_eq!(
        panes(&beam),
        [
            pane(0, "ON_TIME", 0, 0, false, 2),
            pane(10000, "ON_TIME", 0, 0, true, 1),
            pane(40000, "ON_TIME", 0, 0, true, 1),
        ]
    );
    assert!(beam["config"].get("closing").is_none());
    // FIRE_ALWAYS: the collection emits [0, 10s)'s last pane, empty, LATE, at watermark 40s.
    // [10s, 20s) is passed and collected by the same watermark: its ON_TIME pane is its last,
    // and nothing more; so is [40s, 50s)'s at the end of input.
    assert_eq!(
        panes(&always),
        [
            pane(0, "ON_TIME", 0, 0, false, 2),
            pane(10000, "ON_TIME", 0, 0, true, 1),
            pane(0, "LATE", 1, 1, true, 0),
            pane(40000, "ON_TIME", 0, 0, true, 1),
        ]
    );
    assert_eq!(always["panes"][2]["watermark_ms"], 40000.0);
    assert_eq!(always["config"]["closing"], "fire-always");
    // Accumulating, the last pane carries the whole value, as Beam's does.
    let mut acc = args(&["--closing", "fire-always"]);
    acc.retain(|a| *a != "discarding" && *a != "--accumulation");
    assert_eq!(panes(&json(&acc))[2], pane(0, "LATE", 1, 1, true, 2));
    // The table names the switch in its heading.
    let (code, out, _) = twoclocks_text(&[
        "run",
        "--input",
        path,
        "--window",
        "10s",
        "--closing",
        "fire-always",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with(", closing fire-always"),
        "{out}"
    );
}

#[test]
fn fire_always_closing_emits_a_sessions_last_pane_too() {
    // Session [1s, 8s) passed at 20s, collected at 40s (end 8s + grace 15s); session
    // [20s, 25s) passed and collected at 40s at once.
    let f = log(&[(1000, 1500), (3000, 3500), (20000, 20500), (40000, 40500)]);
    let path = f.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--input",
            path,
            "--session",
            "5s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "15s",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        panes(&json(&a))
    };
    let beam = run(&[]);
    let always = run(&["--closing", "fire-always"]);
    assert_eq!(always.len(), beam.len() + 1, "{always:?}");
    assert!(
        always.contains(&pane(1000, "LATE", 1, 1, true, 2)),
        "{always:?}"
    );
    assert!(!beam.iter().any(|p| p.1 == "LATE"), "{beam:?}");
}

#[test]
fn fire_if_non_empty_on_time_holds_back_an_empty_on_time_pane() {
    // Early panes every 5s, discarding: [0, 10s)'s early pane at 6.5s takes all three
    // elements, so its ON_TIME pane at watermark 12s has nothing new; the late element 5s
    // then fires a LATE pane.
    let f = log(&[
        (1000, 1000),
        (3000, 3000),
        (7000, 6500),
        (12000, 11000),
        (5000, 11500),
    ]);
    let path = f.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--input",
            path,
            "--window",
            "10s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "5s",
            "--early",
            "5s",
            "--accumulation",
            "discarding",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let first = |doc: &serde_json::Value| -> Vec<_> {
        panes(doc).into_iter().filter(|p| p.0 == 0).collect()
    };
    assert_eq!(
        first(&run(&[])),
        [
            pane(0, "EARLY", 0, -1, false, 3),
            pane(0, "ON_TIME", 1, 0, false, 0),
            pane(0, "LATE", 2, 1, false, 1),
        ]
    );
    // As ReduceFnRunnerTest.testEmptyOnTimeWithOnTimeBehaviorFireIfNonEmptyAndLateData: no
    // ON_TIME pane, and the late pane takes its index and nonspeculative index.
    let held = run(&["--on-time", "fire-if-non-empty"]);
    assert_eq!(
        first(&held),
        [
            pane(0, "EARLY", 0, -1, false, 3),
            pane(0, "LATE", 1, 0, false, 1),
        ]
    );
    assert_eq!(held["config"]["on_time"], "fire-if-non-empty");
    // With FIRE_ALWAYS closing too, the end of input collects the window with nothing new:
    // its last pane, empty and LATE.
    let both = run(&["--on-time", "fire-if-non-empty", "--closing", "fire-always"]);
    assert_eq!(
        first(&both),
        [
            pane(0, "EARLY", 0, -1, false, 3),
            pane(0, "LATE", 1, 0, false, 1),
            pane(0, "LATE", 2, 1, true, 0),
        ]
    );
}

#[test]
fn the_trigger_route_emits_the_closing_pane_too() {
    let f = log(&FIXED);
    let path = f.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--input",
            path,
            "--window",
            "10s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "5s",
            "--accumulation",
            "discarding",
            "--trigger",
            "AfterWatermark(late=AfterCount(1))",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let last_of_first = |doc: &serde_json::Value| -> Vec<(String, bool, u64)> {
        doc["panes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["window_start_ms"] == 0)
            .map(|p| {
                (
                    p["timing"].as_str().unwrap().to_string(),
                    p["is_last"].as_bool().unwrap(),
                    p["count"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        last_of_first(&run(&[])),
        [("ON_TIME".to_string(), false, 2)]
    );
    let always = run(&["--closing", "fire-always"]);
    assert_eq!(
        last_of_first(&always),
        [
            ("ON_TIME".to_string(), false, 2),
            ("LATE".to_string(), true, 0)
        ]
    );
    assert_eq!(always["config"]["closing"], "fire-always");
}

#[test]
fn the_switches_are_refused_under_the_other_engines_rules() {
    let f = log(&FIXED);
    let path = f.path().to_str().unwrap();
    for (conventions, engine) in [
        ("beam-python", "Beam Python"),
        ("flink", "Flink"),
        ("kafka-streams", "Kafka Streams"),
    ] {
        for (flag, value, beam) in [
            ("--closing", "fire-always", "ClosingBehavior"),
            ("--on-time", "fire-if-non-empty", "OnTimeBehavior"),
            ("--closing", "fire-if-non-empty", "ClosingBehavior"),
        ] {
            let err = refused(&[
                "run",
                "--input",
                path,
                "--window",
                "10s",
                "--conventions",
                conventions,
                flag,
                value,
            ]);
            assert!(
                err.contains(&format!("{flag} {value} is Beam Java's {beam}"))
                    && err.contains(&format!("{conventions} ({engine}) has no such switch")),
                "{err}"
            );
        }
    }
    let err = refused(&["run", "--input", path, "--closing", "sometimes"]);
    assert!(
        err.contains("'sometimes' is not a behaviour: give fire-always or fire-if-non-empty"),
        "{err}"
    );
}

#[test]
fn transcripts_from_beam_javas_closing_tests_pass_under_its_rules() {
    let (code, out, err) = twoclocks_text(&["script", CLOSING]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.ends_with("6 scripts under Beam Java rules (beam): 6 passed (6 clean, 0 failed as declared), 0 failed\n"),
        "{out}"
    );
    assert!(err.is_empty(), "{err}");
    let text = std::fs::read_to_string(CLOSING).unwrap();
    assert_eq!(
        text.matches("\n# From ReduceFnRunnerTest.").count(),
        text.matches("\nname: ").count(),
        "every transcript names its Java test"
    );
    // The switches are named in the strategy's line when not Beam's defaults.
    assert!(
        out.contains("allowed lateness 100 · closing FIRE_ALWAYS · on time FIRE_IF_NON_EMPTY"),
        "{out}"
    );
}

#[test]
fn a_scripts_switches_are_read_with_their_line_and_only_beam_java_has_them() {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(
        b"name: x\nwindow_fn: FixedWindows(10)\nclosing_behavior: SOMETIMES\ntranscript: []\n",
    )
    .unwrap();
    let path = f.path().to_str().unwrap();
    let (code, _, err) = twoclocks_text(&["script", path]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{path}:3: closing_behavior `SOMETIMES`: expected FIRE_ALWAYS or FIRE_IF_NON_EMPTY"
        )),
        "{err}"
    );
    // Under another engine's rules the script runs as that engine runs it, and says so.
    let (code, out, err) = twoclocks_text(&[
        "script",
        CLOSING,
        "--conventions",
        "flink",
        "--name",
        "pane_info_all_states_after_watermark",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("sets closing_behavior or on_time_behavior, Beam Java's switches; under --conventions flink (Flink) they do not apply"),
        "{err}"
    );
}

#[test]
fn the_beam_export_writes_the_switches_and_the_other_exports_refuse_them() {
    let (code, java, err) = twoclocks_text(&[
        "export",
        "--to",
        "beam",
        "--grace",
        "10s",
        "--closing",
        "fire-always",
        "--on-time",
        "fire-if-non-empty",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        java.contains(
            ".withAllowedLateness(Duration.standardSeconds(10), Window.ClosingBehavior.FIRE_ALWAYS)"
        ) && java.contains(".withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)"),
        "{java}"
    );
    // Beam's defaults write neither switch.
    let (_, plain, _) = twoclocks_text(&["export", "--to", "beam", "--grace", "10s"]);
    assert!(
        !plain.contains("ClosingBehavior") && !plain.contains("withOnTimeBehavior"),
        "{plain}"
    );
    for to in ["flink", "flink-sql", "kafka-streams", "beam-python"] {
        let err = refused(&["export", "--to", to, "--closing", "fire-always"]);
        assert!(
            err.contains(&format!(
                "the {to} export has no such switch; export --to beam"
            )),
            "{err}"
        );
    }
}
