//! The conventions against the real engines: `tests/real_engines/` records what Beam 2.77's
//! Python SDK and Flink 2.3 emitted for ten small logs (run by hand; see its README). Each
//! log is replayed here through the script driver as those runs fed it (one element at a
//! time in processing order, the watermark after each at `max − B` for Beam and `max − B − 1`
//! for Flink, then to the end of time), and the panes and drops must be the engines':
//! Beam Python's under `--conventions beam-python`, Flink's under `--conventions flink`, and
//! Flink's under Beam Java's rules with Beam's watermark too where only the ±1 differs
//! (Flink's −1 on its watermark and on its timers cancel out on a log).

use serde_json::Value;
use twoclocks::engine::script::Driver;
use twoclocks::engine::script::ScriptWindows;
use twoclocks::engine::trigger::{Accumulation, TimestampCombiner, Timing, Trigger};
use twoclocks::engine::Conventions;
use twoclocks::engine::Processor;

use crate::recordings_common::{
    cases, lateness, log_path, read, recorded_drops, windows_per_row, DIR,
};

/// A pane as both sides can say it: window, timing, the sorted event times.
type Pane = (i64, i64, String, Vec<i64>);

/// The recorded panes (sorted) and drops (sorted) of `engine` for `case`.
fn recorded(engine: &str, case: &str) -> (Vec<Pane>, Vec<i64>) {
    let r = read(&format!("results/{engine}/{case}.json"));
    let mut panes: Vec<Pane> = r["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["window_start_ms"].as_i64().unwrap(),
                p["window_end_ms"].as_i64().unwrap(),
                p["timing"].as_str().unwrap().to_string(),
                p["event_times_ms"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_i64().unwrap())
                    .collect(),
            )
        })
        .collect();
    panes.sort();
    (panes, recorded_drops(&r))
}

/// The case replayed through the driver under `rules`, the watermark trailing the largest
/// event time by `lag`.
fn replayed(case: &Value, rules: Conventions, lag: i64) -> (Vec<Pane>, Vec<i64>) {
    let window = case["window"].as_str().unwrap();
    let windows = match window.split_once(':').unwrap() {
        ("fixed", ms) => ScriptWindows::parse(&format!("FixedWindows({ms})")).unwrap(),
        ("sliding", ms) => {
            let (size, slide) = ms.split_once(':').unwrap();
            ScriptWindows::parse(&format!("SlidingWindows({size}, {slide})")).unwrap()
        }
        ("session", ms) => ScriptWindows::parse(&format!("Sessions({ms})")).unwrap(),
        other => panic!("unknown window {other:?}"),
    };
    let trigger = match case["trigger"].as_str().unwrap() {
        "default" => Trigger::Default,
        t => {
            let n = t.strip_prefix("early_count:").unwrap();
            Trigger::parse(&format!("AfterWatermark(early=AfterCount({n}))")).unwrap()
        }
    };
    let accumulation = match case["accumulation"].as_str().unwrap() {
        "discarding" => Accumulation::Discarding,
        _ => Accumulation::Accumulating,
    };
    let mut driver = Driver::new(
        windows,
        &trigger,
        accumulation,
        TimestampCombiner::EndOfWindow,
        lateness(case),
        rules,
    );
    let log = std::fs::read_to_string(log_path(case)).unwrap();
    let (mut panes, mut dropped) = (Vec::new(), Vec::new());
    let mut max = i64::MIN;
    let mut wm = i64::MIN;
    for row in log.lines().skip(1) {
        let t: i64 = row.split(',').next().unwrap().parse().unwrap();
        let (p, d) = driver.input(&[t]);
        panes.extend(p);
        // A row is dropped when every window it falls in drops it (a sliding window's row is in
        // several; the engines' recordings list a row in no pane).
        if d.len() >= windows_per_row(case) {
            dropped.push(t);
        }
        max = max.max(t);
        if max - lag > wm {
            wm = max - lag;
            panes.extend(driver.advance_watermark(wm));
        }
    }
    panes.extend(driver.advance_watermark(i64::MAX / 4));
    let mut panes: Vec<Pane> = panes
        .into_iter()
        .map(|p| {
            let timing = match p.info.timing {
                Timing::Early => "EARLY",
                Timing::OnTime => "ON_TIME",
                Timing::Late => "LATE",
            };
            (
                p.window.start_ms(),
                p.window.end_ms(),
                timing.to_string(),
                p.values,
            )
        })
        .collect();
    panes.sort();
    dropped.sort();
    dropped.dedup();
    (panes, dropped)
}

#[test]
fn each_convention_emits_what_its_engine_emitted() {
    let cases = cases();
    assert_eq!(cases.len(), 10);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let b = case["bounded_out_of_orderness_ms"].as_i64().unwrap();
        let mut runs = vec![
            ("beam-python", Conventions::BeamPython, b),
            ("beam-python-driver", Conventions::BeamPython, b),
            ("flink", Conventions::Flink, b + 1),
        ];
        // Beam Java's rules on Beam's watermark give Flink's panes and drops, except where a
        // rule other than the ±1 differs: touching sessions, and an empty on-time pane.
        if !matches!(
            name,
            "touching-sessions" | "touching-pair" | "touching-pair-grace" | "no-ontime-pane"
        ) {
            runs.push(("flink", Conventions::Beam, b));
        }
        for (engine, rules, lag) in runs {
            assert_eq!(
                replayed(case, rules, lag),
                recorded(engine, name),
                "{name}: {rules} with the watermark {lag} ms behind, against {engine}'s recording"
            );
        }
    }
}

#[test]
fn the_recordings_show_the_engines_differ() {
    // Without this the test above could pass on logs where every engine agrees.
    let differ = |case: &str| recorded("beam-python", case) != recorded("flink", case);
    for case in [
        "touching-sessions",
        "bridging-expired-session",
        "drop-boundary",
        "no-ontime-pane",
        "ontime-boundary",
        "touching-pair",
        "touching-pair-grace",
    ] {
        assert!(differ(case), "{case}");
    }
}

/// The case run through the processor (`twoclocks run`'s engine) under `rules` with the
/// bounded watermark of its B: the panes as (window, timing, count) and the dropped event
/// times, sorted.
/// A processor's pane: window, timing, its count.
type CountedPane = (i64, i64, String, u64);

fn processed(case: &Value, rules: Conventions) -> (Vec<CountedPane>, Vec<i64>) {
    use twoclocks::engine::{EngineConfig, Event, Stream, WatermarkKind, WindowFn};
    let log = std::fs::read_to_string(log_path(case)).unwrap();
    let events: Vec<Event> = log
        .lines()
        .skip(1)
        .map(|row| {
            let f: Vec<f64> = row.split(',').take(2).map(|x| x.parse().unwrap()).collect();
            Event {
                event_time: f[0],
                proc_time: f[1],
                key: 0,
            }
        })
        .collect();
    let stream = Stream::from_unordered(events, vec!["k".to_string()]);
    let window = match case["window"].as_str().unwrap().split_once(':').unwrap() {
        ("fixed", ms) => WindowFn::tumbling(ms.parse().unwrap()).unwrap(),
        ("sliding", ms) => {
            let (size, slide) = ms.split_once(':').unwrap();
            WindowFn::sliding(size.parse().unwrap(), slide.parse().unwrap()).unwrap()
        }
        (_, ms) => WindowFn::session(ms.parse().unwrap()).unwrap(),
    };
    let cfg = EngineConfig {
        window,
        watermark: WatermarkKind::Bounded {
            bound: case["bounded_out_of_orderness_ms"].as_f64().unwrap(),
        },
        grace: lateness(case) as f64,
        early: None,
        accumulation: Accumulation::Accumulating,
        conventions: rules,
        empty_panes: Default::default(),
    };
    let r = Processor::run(&stream, cfg, true);
    let mut panes: Vec<_> = r
        .output
        .panes
        .iter()
        .map(|p| {
            (
                p.window_start as i64,
                p.window_end as i64,
                p.timing.label().to_string(),
                p.total,
            )
        })
        .collect();
    panes.sort();
    // A row is dropped when every window it falls in drops it.
    let mut per_row = std::collections::BTreeMap::<(i64, i64), usize>::new();
    for d in &r.output.dropped {
        *per_row
            .entry((d.event.event_time as i64, d.event.proc_time as i64))
            .or_default() += 1;
    }
    let mut dropped: Vec<i64> = per_row
        .into_iter()
        .filter(|&(_, n)| n >= windows_per_row(case))
        .map(|((t, _), _)| t)
        .collect();
    dropped.sort();
    (panes, dropped)
}

#[test]
fn the_processor_under_each_convention_emits_what_its_engine_emitted() {
    let cases = cases();
    let mut compared = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        // The processor's early trigger is processing-time; the recorded one counts elements.
        if case["trigger"] != "default" {
            continue;
        }
        for (engine, rules) in [
            ("beam-python", Conventions::BeamPython),
            ("flink", Conventions::Flink),
        ] {
            // Beam Python never collects a window, so an expired session can be merged back;
            // the processor collects windows past their lateness under every convention.
            if (engine, name) == ("beam-python", "bridging-expired-session") {
                continue;
            }
            let (panes, dropped) = recorded(engine, name);
            let want: Vec<CountedPane> = panes
                .into_iter()
                .map(|(s, e, t, v)| (s, e, t, v.len() as u64))
                .collect();
            assert_eq!(
                processed(case, rules),
                (want, dropped),
                "{name}: the processor under {rules} against {engine}'s recording"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 17);
}

#[test]
fn a_session_measures_sessions_by_the_rules_in_force() {
    use std::sync::Arc;
    use twoclocks::engine::scenario::Scenario;
    use twoclocks::engine::steered::{Settings, SteeredRun};
    use twoclocks::engine::{EngineConfig, Event, Stream, WatermarkKind, WindowFn};
    // Two events exactly a gap apart: two sessions under Beam's rules, one under Flink's.
    let events = [0.0, 10_000.0]
        .map(|t| Event {
            event_time: t,
            proc_time: t,
            key: 0,
        })
        .to_vec();
    let stream = Stream::from_unordered(events, vec!["k".to_string()]);
    let window = WindowFn::session(10_000).unwrap();
    let cfg = |conventions| EngineConfig {
        window,
        watermark: WatermarkKind::Bounded { bound: 0.0 },
        grace: 0.0,
        early: None,
        accumulation: Accumulation::Accumulating,
        conventions,
        empty_panes: Default::default(),
    };
    let settings = |c| Settings {
        engine: cfg(c),
        checkpoint_every: None,
        idle_timeout: None,
    };
    let scenario = Arc::new(Scenario::new("touching", stream, &window));
    let mut s = SteeredRun::new(scenario, settings(Conventions::Beam), usize::MAX);
    assert_eq!(s.oracle().truth.len(), 2);
    s.set_dials(settings(Conventions::Flink));
    assert_eq!(s.oracle().truth.values().collect::<Vec<_>>(), [&2]);
    let opened = SteeredRun::new(
        Arc::new(Scenario::new(
            "touching",
            s.scenario().stream.as_ref().clone(),
            &window,
        )),
        settings(Conventions::Flink),
        usize::MAX,
    );
    assert_eq!(
        opened.oracle().truth.len(),
        1,
        "measured by the rules it opens with"
    );
    s.set_dials(settings(Conventions::Beam));
    assert_eq!(s.oracle().truth.len(), 2);
}

/// Each trigger spelling of `results/beam-python-trigger-spellings.txt` (recorded by
/// `beam_trigger_spellings.py` with Beam's own transcript reader and Python's `eval`) is read
/// by twoclocks as Python reads it: taken where `eval` takes it, refused where `eval` refuses
/// it. The one spelling Python refuses and Beam's reader takes, a keyword before a positional
/// argument, twoclocks takes as Beam's reader does, with the same binding.
#[test]
fn trigger_spellings_are_read_as_python_and_beams_reader_read_them() {
    let text = std::fs::read_to_string(format!("{DIR}/results/beam-python-trigger-spellings.txt"))
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3 && lines.len().is_multiple_of(3), "{text}");
    let mut read = 0;
    for rec in lines.chunks(3) {
        let spelling = rec[0];
        let beam = rec[1].trim().strip_prefix("beam's reader: ").unwrap();
        let python = rec[2].trim().strip_prefix("python eval:").unwrap().trim();
        let refused = |s: &str| s.contains("Error: ");
        let ours = Trigger::parse(spelling);
        if !refused(python) {
            assert!(
                ours.is_ok(),
                "{spelling}: Python reads {python}; twoclocks: {ours:?}"
            );
        } else if python.contains("positional argument follows keyword argument") {
            assert_eq!(
                ours.as_ref().map(ToString::to_string).as_deref(),
                Ok(beam),
                "{spelling}: Beam's reader gives {beam}"
            );
        } else {
            assert!(
                ours.is_err(),
                "{spelling}: Python refuses it ({python}); twoclocks: {ours:?}"
            );
        }
        read += 1;
    }
    assert_eq!(read, 18);
}
