//! `run --trigger EXPR`: the general path (one script driver per key) against the processor. The
//! built-in trigger without early firings is `AfterWatermark(late=AfterCount(1))` of Beam's
//! algebra, so both paths must give the same drops and panes, on fixed, sliding and session
//! windows, under each engine's rules; and a trigger the processor cannot run gives Beam's panes,
//! `PaneInfo` and output times.

use crate::cli_common::{json, refused};

/// A pane as both paths say it: window start and end, key, timing, count.
type Pane = (i64, i64, String, String, u64);

/// Each cell's final value: its largest pane (accumulating).
fn finals(panes: &[Pane]) -> std::collections::BTreeMap<(i64, i64, String), u64> {
    let mut f = std::collections::BTreeMap::new();
    for (s, e, k, _, n) in panes {
        let v = f.entry((*s, *e, k.clone())).or_insert(0);
        *v = (*v).max(*n);
    }
    f
}

/// `(start, end, key, timing, count)` of every pane, sorted, from either path's JSON.
fn panes(doc: &serde_json::Value, general: bool) -> Vec<Pane> {
    let mut v: Vec<_> = doc["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (s, e, n) = if general {
                (
                    p["window_start_ms"].as_i64().unwrap(),
                    p["window_end_ms"].as_i64().unwrap(),
                    p["count"].as_u64().unwrap(),
                )
            } else {
                (
                    p["start_ms"].as_f64().unwrap() as i64,
                    p["end_ms"].as_f64().unwrap() as i64,
                    p["value"].as_u64().unwrap(),
                )
            };
            (
                s,
                e,
                p["key"].as_str().unwrap().to_string(),
                p["timing"].as_str().unwrap().to_string(),
                n,
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_built_in_trigger_is_one_expression_of_the_algebra() {
    for flags in [
        vec![],
        vec!["--grace", "60s"],
        vec!["--watermark", "bounded:5s", "--grace", "30s"],
        vec!["--session", "10s", "--events", "300", "--grace", "30s"],
        vec!["--window", "60s", "--slide", "20s", "--grace", "10s"],
    ] {
        for rules in ["beam", "beam-python", "flink"] {
            let mut builtin = vec!["run", "--format", "json", "--conventions", rules];
            builtin.extend(&flags);
            let mut general = builtin.clone();
            // Beam Python's AfterWatermark keeps a merged session's late phase; its
            // DefaultTrigger, like the built-in trigger, fires the merged session on time.
            let trigger = if rules == "beam-python" && flags.contains(&"--session") {
                "Default"
            } else {
                "AfterWatermark(late=AfterCount(1))"
            };
            general.extend(["--trigger", trigger]);
            let (a, b) = (json(&builtin), json(&general));
            let (pa, pb) = (panes(&a, false), panes(&b, true));
            let what = format!("{flags:?} under {rules}");
            // The same drops, and the same final value in every cell the processor has.
            assert_eq!(a["dropped"], b["dropped"], "{what}");
            let (fa, fb) = (finals(&pa), finals(&pb));
            for (cell, v) in &fa {
                assert_eq!(fb.get(cell), Some(v), "{what}: the final value of {cell:?}");
            }
            // And the same panes: both take an arrival in the processor's order.
            assert_eq!(pa, pb, "{what}");
        }
    }
}

#[test]
fn a_trigger_the_processor_cannot_run_gives_beams_panes() {
    let doc = json(&[
        "run",
        "--format",
        "json",
        "--trigger",
        "AfterWatermark(early=AfterCount(100), late=AfterCount(1))",
        "--accumulation",
        "discarding",
        "--timestamp-combiner",
        "earliest",
        "--keys",
        "a",
        "--events",
        "2000",
    ]);
    let panes = doc["panes"].as_array().unwrap();
    let early: Vec<_> = panes.iter().filter(|p| p["timing"] == "EARLY").collect();
    assert!(!early.is_empty());
    // Every early pane of a count trigger holds exactly its count, discarding.
    assert!(early.iter().all(|p| p["count"] == 100), "{early:?}");
    for p in panes {
        // PaneInfo: the first pane is index 0, early panes are not counted as nonspeculative.
        assert_eq!(p["is_first"], p["index"] == 0);
        if p["timing"] == "EARLY" {
            assert_eq!(p["nonspeculative_index"], -1);
        }
        // Output at the earliest element: inside the window.
        let t = p["timestamp_ms"].as_i64().unwrap();
        if p["count"].as_u64().unwrap() > 0 {
            assert!(t >= p["window_start_ms"].as_i64().unwrap());
            assert!(t < p["window_end_ms"].as_i64().unwrap());
        }
    }
    // Discarding: the panes of a window add up to the events it kept.
    let total: u64 = panes.iter().map(|p| p["count"].as_u64().unwrap()).sum();
    assert_eq!(total + doc["dropped"].as_u64().unwrap(), 2000);
    assert_eq!(
        doc["config"]["trigger"],
        "AfterWatermark(early=AfterCount(100), late=AfterCount(1))"
    );
}

#[test]
fn a_bad_trigger_is_one_line_naming_the_column() {
    let e = refused(&["run", "--trigger", "AfterWatermark(early=AfterCont(2))"]);
    assert!(
        e.contains("at column 22: unknown trigger `AfterCont`"),
        "{e}"
    );
    let e = refused(&["run", "--trigger", "Default", "--early", "5s"]);
    assert!(
        e.contains("--early is the built-in trigger's shorthand"),
        "{e}"
    );
    let e = refused(&["run", "--timestamp-combiner", "latest"]);
    assert!(e.contains("--trigger"), "{e}");
}

#[test]
fn kafka_streams_results_are_one_expression_of_the_algebra() {
    // Under Kafka Streams' rules a window emits once, as it closes (onWindowClose): the
    // processor's final panes, and the general path's AfterWatermark() read by Kafka's rules,
    // must be the same panes with the same drops.
    for flags in [
        vec![],
        vec!["--grace", "60s"],
        vec!["--session", "10s", "--events", "300", "--grace", "30s"],
        vec!["--window", "60s", "--slide", "20s", "--grace", "10s"],
    ] {
        let mut builtin = vec!["run", "--format", "json", "--conventions", "kafka-streams"];
        builtin.extend(&flags);
        let mut general = builtin.clone();
        general.extend(["--trigger", "AfterWatermark()"]);
        let (a, b) = (json(&builtin), json(&general));
        assert_eq!(a["dropped"], b["dropped"], "{flags:?}");
        let (pa, pb) = (panes(&a, false), panes(&b, true));
        assert!(!pa.is_empty(), "{flags:?}");
        assert_eq!(pa, pb, "{flags:?}");
        // One ON_TIME pane per cell, the last: no early and no late panes.
        assert!(pa.iter().all(|p| p.3 == "ON_TIME"), "{flags:?}");
        assert_eq!(finals(&pa).len(), pa.len(), "{flags:?}");
    }
    // A trigger Kafka Streams has no counterpart for is refused.
    let err = refused(&[
        "run",
        "--conventions",
        "kafka-streams",
        "--trigger",
        "AfterWatermark(early=AfterCount(2))",
    ]);
    assert!(err.contains("Kafka Streams has no triggers"), "{err}");
}

#[test]
fn kafka_streams_is_refused_where_it_has_no_meaning() {
    for (args, says) in [
        (
            &[
                "run",
                "--conventions",
                "kafka-streams",
                "--watermark",
                "bounded:5s",
            ][..],
            "has no watermark",
        ),
        (
            &["run", "--conventions", "kafka-streams", "--early", "5s"],
            "has no early trigger",
        ),
        (
            &[
                "run",
                "--conventions",
                "kafka-streams",
                "--window",
                "global",
            ],
            "needs windows that close",
        ),
        (
            &["frontier", "--conventions", "kafka-streams"],
            "Kafka Streams has no watermark",
        ),
        (
            &["advise", "--conventions", "kafka-streams"],
            "Kafka Streams has no watermark",
        ),
        (
            &["--conventions", "kafka-streams"],
            "the UI draws a watermark",
        ),
        (
            &[
                "run",
                "--conventions",
                "kafka-streams",
                "--parallelism",
                "2",
            ],
            "runs the single processor",
        ),
    ] {
        let err = refused(args);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A scenario's own watermark and early trigger give way to stream time.
    let doc = json(&[
        "run",
        "--scenario",
        "classroom",
        "--conventions",
        "kafka-streams",
        "--format",
        "json",
    ]);
    assert_eq!(doc["config"]["watermark"], "stream time");
    assert_eq!(doc["config"]["conventions"], "kafka-streams");
}

/// `(start, end, timing, count)` of every pane of either path's JSON, in emission order.
fn in_order(doc: &serde_json::Value, general: bool) -> Vec<(i64, i64, String, u64)> {
    doc["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (s, e, n) = if general {
                (
                    p["window_start_ms"].as_i64().unwrap(),
                    p["window_end_ms"].as_i64().unwrap(),
                    p["count"].as_u64().unwrap(),
                )
            } else {
                (
                    p["start_ms"].as_f64().unwrap() as i64,
                    p["end_ms"].as_f64().unwrap() as i64,
                    p["value"].as_u64().unwrap(),
                )
            };
            (s, e, p["timing"].as_str().unwrap().to_string(), n)
        })
        .collect()
}

#[test]
fn an_event_is_placed_before_the_watermark_it_raises_fires_anything() {
    // Flink merges touching sessions, and its watermark after 5000 is 4 999, the end-of-window
    // timer of [0, 5000): the element is placed first (it bridges into [0, 10000)), then the
    // timer fires, as the processor and Flink's WindowOperator do.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("touch.csv");
    std::fs::write(
        &log,
        "event_time_ms,proc_time_ms,key\n0,100000,k\n5000,101000,k\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    for grace in ["0s", "10s"] {
        let builtin = [
            "run",
            "--input",
            log,
            "--session",
            "5s",
            "--watermark",
            "bounded:0s",
            "--conventions",
            "flink",
            "--grace",
            grace,
            "--format",
            "json",
        ];
        let mut general = builtin.to_vec();
        general.extend(["--trigger", "Default"]);
        let (a, b) = (json(&builtin), json(&general));
        let one = vec![(0, 10_000, "ON_TIME".to_string(), 2)];
        assert_eq!(in_order(&a, false), one, "the processor, grace {grace}");
        assert_eq!(in_order(&b, true), one, "run --trigger, grace {grace}");
        assert_eq!(b["dropped"], 0, "grace {grace}");
    }
}

#[test]
fn beam_pythons_default_trigger_never_marks_a_pane_last() {
    // Beam Python's DefaultTrigger never finishes and its driver never collects a window:
    // `PaneInfo(first=True, last=False, ON_TIME, 0, 0)`, past end + allowed lateness and at the
    // end of input alike. Beam Java's pane at its garbage collection is the last.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("c.csv");
    std::fs::write(
        &log,
        "event_time_ms,proc_time_ms,key\n1000,100000,k\n12000,101000,k\n25000,102000,k\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let args = |rules| {
        vec![
            "run",
            "--input",
            log,
            "--window",
            "10s",
            "--watermark",
            "bounded:0s",
            "--grace",
            "0s",
            "--conventions",
            rules,
            "--format",
            "json",
        ]
    };
    let lasts = |doc: &serde_json::Value| -> Vec<bool> {
        let panes = doc["panes"].as_array().unwrap();
        panes
            .iter()
            .map(|p| p["is_last"].as_bool().unwrap())
            .collect()
    };
    let python = json(&args("beam-python"));
    assert_eq!(lasts(&python), [false; 3], "{python}");
    let mut general = args("beam-python");
    general.extend(["--trigger", "Default"]);
    assert_eq!(lasts(&json(&general)), [false; 3]);
    // The JSON Lines sink says the same.
    let mut sink = args("beam-python");
    sink.extend(["--output", "jsonl:-"]);
    let out = crate::cli_common::output(&sink).unwrap();
    let rows: Vec<serde_json::Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v.get("is_last").is_some())
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows.iter().all(|r| r["is_last"] == false), "{out}");
    // Beam Java: each window fired as the watermark passes end + 0 is its last.
    assert_eq!(lasts(&json(&args("beam"))), [true; 3]);
}
