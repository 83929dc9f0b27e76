//! Differential test: the reference program itself (python3, where present) against the
//! engine, on streams and dials the reference never prints — the generator bit for bit, the
//! late-data block's final values, drops and late counts, and the trigger block's panes.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use twoclocks::engine::Processor;
use twoclocks::engine::StreamParams;
use twoclocks::engine::{
    Accumulation, CellId, EngineConfig, Stream, Timing, WatermarkKind, WindowFn,
};

fn reference_dir() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    dir.join("p07_handson.py").exists().then_some(dir)
}

fn python() -> Option<&'static str> {
    Command::new("python3")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "python3")
}

struct StreamPlan {
    seed: u64,
    n: usize,
    span: f64,
    tail: f64,
}

fn run_specs() -> Vec<(i64, Value, f64)> {
    let mut v = Vec::new();
    for lag in [0.0, 1_500.0, 7_000.0, 45_000.0] {
        for grace in [0.0, 5_000.0, 30_000.0] {
            v.push((60_000, json!({"kind": "fixed", "lag": lag}), grace));
        }
    }
    v.push((60_000, json!({"kind": "perfect"}), 0.0));
    v.push((
        60_000,
        json!({"kind": "heuristic", "q": 0.9, "n": 300}),
        0.0,
    ));
    v.push((
        60_000,
        json!({"kind": "heuristic", "q": 0.5, "n": 50}),
        4_000.0,
    ));
    v.push((17_000, json!({"kind": "fixed", "lag": 3_000.0}), 0.0));
    v.push((17_000, json!({"kind": "fixed", "lag": 3_000.0}), 10_000.0));
    v
}

/// (key, window index, window size, lag, early interval)
fn pane_specs() -> Vec<(&'static str, i64, i64, f64, f64)> {
    vec![
        ("a", 1, 60_000, 3_000.0, 5_000.0),
        ("b", 2, 60_000, 20_000.0, 15_000.0),
        ("c", 0, 60_000, 0.0, 2_500.0),
        ("d", 3, 17_000, 5_000.0, 4_000.0),
    ]
}

fn watermark_of(spec: &Value) -> WatermarkKind {
    match spec["kind"].as_str().unwrap() {
        "fixed" => WatermarkKind::Fixed {
            lag: spec["lag"].as_f64().unwrap(),
        },
        "perfect" => WatermarkKind::Perfect,
        "heuristic" => WatermarkKind::Heuristic {
            q: spec["q"].as_f64().unwrap(),
            n: spec["n"].as_u64().unwrap() as usize,
        },
        k => panic!("unknown watermark {k}"),
    }
}

fn float(v: &Value) -> f64 {
    v.as_str().unwrap().parse().unwrap()
}

#[test]
fn engine_agrees_with_the_reference_program() {
    let (Some(dir), Some(py)) = (reference_dir(), python()) else {
        eprintln!("python3 or the reference program is not present: differential test skipped");
        return;
    };
    let streams = [
        StreamPlan {
            seed: 3,
            n: 3_000,
            span: 300_000.0,
            tail: 0.15,
        },
        StreamPlan {
            seed: 1234567,
            n: 2_000,
            span: 200_000.0,
            tail: 0.05,
        },
    ];
    let plan = json!({
        "streams": streams.iter().map(|s| json!({
            "seed": s.seed, "n": s.n, "span": s.span, "tail": s.tail,
            "runs": run_specs().iter().map(|(w, wm, g)| json!({"window": w, "watermark": wm, "grace": g})).collect::<Vec<_>>(),
            "panes": pane_specs().iter().map(|(k, win, w, lag, every)| json!({"key": k, "win": win, "window": w, "lag": lag, "every": every})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()
    });
    let mut child = Command::new(py)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/differential/reference_driver.py"
        ))
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(plan.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "reference driver failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();

    for (sp, ans) in streams.iter().zip(&answers) {
        let stream: Stream = Stream::generate(&StreamParams {
            seed: sp.seed,
            events: sp.n,
            span: sp.span,
            tail: sp.tail,
            ..Default::default()
        })
        .unwrap();
        // The generator, bit for bit.
        let events = ans["events"].as_array().unwrap();
        assert_eq!(events.len(), stream.len());
        for (i, (e, r)) in stream.events.iter().zip(events).enumerate() {
            assert_eq!(
                e.event_time.to_bits(),
                float(&r[0]).to_bits(),
                "seed {} event {i}",
                sp.seed
            );
            assert_eq!(
                e.proc_time.to_bits(),
                float(&r[1]).to_bits(),
                "seed {} event {i}",
                sp.seed
            );
            assert_eq!(stream.key_name(e.key), r[2].as_str().unwrap());
        }
        // Late data: final values, drops, late counts.
        for ((w, wm, grace), r) in run_specs().iter().zip(ans["runs"].as_array().unwrap()) {
            let cfg = EngineConfig {
                window: WindowFn::Tumbling {
                    size: *w,
                    offset: 0,
                },
                watermark: watermark_of(wm),
                grace: *grace,
                early: None,
                accumulation: Accumulation::Accumulating,
                conventions: Default::default(),
                empty_panes: Default::default(),
            };
            let got = Processor::run(&stream, cfg, false);
            let what = format!("seed {} window {w} {wm} grace {grace}", sp.seed);
            assert_eq!(
                got.counters.dropped,
                r["dropped"].as_u64().unwrap(),
                "{what}: dropped"
            );
            assert_eq!(
                got.counters.late,
                r["late"].as_u64().unwrap(),
                "{what}: late"
            );
            let expect: Vec<(i64, String, u64)> = r["fired"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c[0].as_i64().unwrap(),
                        c[1].as_str().unwrap().to_string(),
                        c[2].as_u64().unwrap(),
                    )
                })
                .collect();
            let mut mine: Vec<(i64, String, u64)> = got
                .finals
                .iter()
                .map(|(c, v)| {
                    (
                        cfg.window.index(c.window),
                        stream.key_name(c.key).to_string(),
                        *v,
                    )
                })
                .collect();
            mine.sort();
            assert_eq!(mine, expect, "{what}: final values");
        }
        // Triggers: the panes of one cell, nothing dropped.
        for ((key, win, w, lag, every), r) in
            pane_specs().iter().zip(ans["panes"].as_array().unwrap())
        {
            let cfg = EngineConfig {
                window: WindowFn::Tumbling {
                    size: *w,
                    offset: 0,
                },
                watermark: WatermarkKind::Fixed { lag: *lag },
                grace: f64::INFINITY,
                early: Some(*every),
                accumulation: Accumulation::Accumulating,
                conventions: Default::default(),
                empty_panes: Default::default(),
            };
            let cell = CellId {
                window: cfg.window.at_index(*win),
                key: stream.key_id(key).unwrap(),
            };
            let mine: Vec<(String, u64, u64)> = Processor::run(&stream, cfg, true)
                .output
                .panes
                .iter()
                .filter(|p| p.cell == cell)
                .map(|p| {
                    let kind = match p.timing {
                        Timing::Early => "EARLY",
                        Timing::OnTime => "ON-TIME",
                        Timing::Late => "LATE",
                    };
                    (kind.to_string(), p.proc_time.to_bits(), p.total)
                })
                .collect();
            let expect: Vec<(String, u64, u64)> = r
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_string(),
                        float(&p[1]).to_bits(),
                        p[2].as_u64().unwrap(),
                    )
                })
                .collect();
            assert!(!expect.is_empty());
            assert_eq!(
                mine, expect,
                "seed {} panes of ({win}, {key}) every {every} lag {lag}",
                sp.seed
            );
        }
    }
}
