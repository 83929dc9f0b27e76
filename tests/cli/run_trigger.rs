//! `run --trigger EXPR`: the general path (one script driver per key) against the processor.
//! The built-in trigger without early firings is `AfterWatermark(late=AfterCount(1))` of
//! Beam's algebra, so both paths must give the same panes (window, key, timing, count) and the
//! same drops, on fixed windows and on sessions, under each engine's rules; and a trigger the
//! processor cannot run gives Beam's panes, `PaneInfo` and output times.

use crate::cli_common::{json, refused};

/// `(start, end, key, timing, count)` of every pane, sorted, from either path's JSON.
fn panes(doc: &serde_json::Value, general: bool) -> Vec<(i64, i64, String, String, u64)> {
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
            general.extend(["--trigger", "AfterWatermark(late=AfterCount(1))"]);
            let (a, b) = (json(&builtin), json(&general));
            assert_eq!(
                panes(&a, false),
                panes(&b, true),
                "{flags:?} under {rules}: the built-in trigger's panes and the algebra's"
            );
            assert_eq!(a["dropped"], b["dropped"], "{flags:?} under {rules}");
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
