//! The built-in scenarios, one catalogue for every command: each runs through `run`, `stream`
//! and `frontier` and opens the UI (or is refused by it with a line that says why), `--help`
//! lists each with its description, the flags given override a scenario's presets, and each
//! scenario shows what it is for: the outage stalls the combined watermark for about 90 s,
//! sessions merge late, the lesson has every fate and pane timing.

use std::collections::BTreeMap;

use serde_json::Value;
use twoclocks::cli::{parse, Invocation};
use twoclocks::engine::pipeline::Outage;
use twoclocks::engine::scenario::{ScenarioName, Source};
use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::Oracle;
use twoclocks::tui::app::Action;

use crate::cli_common::output;
use crate::ui_common::{act, drawn_text, tick, ui_of};

fn json(args: &[&str]) -> Value {
    let out = output(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    serde_json::from_str(&out).expect("one JSON document")
}

/// Whitespace runs as one space: help text wraps where the terminal width says.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn description(name: ScenarioName) -> String {
    name.description().to_string()
}

#[test]
fn every_scenario_runs_through_run_stream_and_frontier() {
    for name in ScenarioName::ALL {
        let label = name.label();
        let run = output(&["run", "--scenario", label]).unwrap();
        assert!(run.contains(" over "), "{label}: {run}");
        let j = json(&["run", "--scenario", label, "--format", "json"]);
        let events = j["events"].as_u64().unwrap();
        assert!(events > 0, "{label}");
        let csv = output(&["stream", "--scenario", label]).unwrap();
        assert_eq!(csv.lines().count() as u64, events + 1, "{label}");
        assert!(csv.starts_with("event_time_ms,proc_time_ms,key\n"));
        let frontier = output(&[
            "frontier",
            "--scenario",
            label,
            "--lags",
            "0s,10s",
            "--graces",
            "0s,30s",
        ])
        .unwrap();
        assert_eq!(frontier.lines().count(), 2 + 4, "{label}: {frontier}");
    }
}

#[test]
fn every_scenario_opens_the_ui_or_says_why_not() {
    for name in ScenarioName::ALL {
        let label = name.label();
        match ui_of(&["--scenario", label]) {
            Ok((mut a, _)) => {
                assert_eq!(a.scenario().name, label);
                for size in [(80, 24), (120, 40)] {
                    let screen = drawn_text(&mut a, size);
                    assert!(screen.contains(label), "{label} at {size:?}:\n{screen}");
                }
            }
            Err(e) => {
                // Only the sessions scenario is refused: the UI does not draw sessions yet.
                assert_eq!(name, ScenarioName::Sessions, "{label}: {e}");
                assert!(e.contains("--scenario sessions"), "{e}");
                assert!(e.contains("twoclocks run --scenario sessions"), "{e}");
                assert_eq!(e.lines().count(), 1);
            }
        }
    }
    // With a window the UI draws, the sessions stream opens, its keys named u001, u002, ….
    let (mut a, _) = ui_of(&["--scenario", "sessions", "--window", "60s"]).unwrap();
    assert_eq!(a.scenario().name, "sessions");
    assert_eq!(a.scenario().stream.keys[0], "u001");
    assert!(a.scenario().keys() >= 200);
    act(&mut a, Action::CycleKey);
    let screen = drawn_text(&mut a, (120, 40));
    assert!(screen.contains("key u0"), "{screen}");
}

#[test]
fn help_lists_every_scenario_with_its_description() {
    for args in [&["--help"][..], &["run", "--help"], &["stream", "--help"]] {
        let argv = std::iter::once("twoclocks").chain(args.iter().copied());
        let Ok(Invocation::Help(e)) = parse(argv) else {
            panic!("{args:?} is help");
        };
        let help = squeeze(&e.render().to_string());
        for name in ScenarioName::ALL {
            let line = format!("{}: {}", name.label(), squeeze(&description(name)));
            assert!(help.contains(&line), "{args:?} lacks {line:?}:\n{help}");
        }
    }
}

#[test]
fn the_outage_stalls_the_combined_watermark_for_about_ninety_seconds() {
    let j = json(&["run", "--scenario", "outage", "--format", "json"]);
    let p = &j["pipeline"];
    assert_eq!(p["partitions"], 4);
    assert_eq!(p["partition_by"], "key");
    assert_eq!(p["parallelism"], 2);
    assert_eq!(p["checkpoint_every"], "10s");
    let parts = j["partitions"].as_array().unwrap();
    assert_eq!(parts[1]["out"][0][0].as_f64(), Some(200_000.0));
    assert_eq!(parts[1]["out"][0][1].as_f64(), Some(290_000.0));
    assert!(parts[1]["events"].as_u64().unwrap() > 0);
    let st = &j["watermark_stats"];
    let stall = st["longest_stall_ms"].as_f64().unwrap();
    assert!((85_000.0..=92_000.0).contains(&stall), "{stall}");
    let from = st["stall_from_ms"].as_f64().unwrap();
    assert!((200_000.0..205_000.0).contains(&from), "{from}");

    // The flags given override the job's presets one by one.
    let j = json(&[
        "run",
        "--scenario",
        "outage",
        "--format",
        "json",
        "--parallelism",
        "3",
        "--outage",
        "2@100s+30s",
    ]);
    assert_eq!(j["pipeline"]["parallelism"], 3);
    assert_eq!(j["pipeline"]["partitions"], 4);
    let parts = j["partitions"].as_array().unwrap();
    assert!(parts[1]["out"].as_array().unwrap().is_empty());
    assert_eq!(parts[2]["out"][0][0].as_f64(), Some(100_000.0));
}

#[test]
fn the_ui_opens_the_outage_in_job_mode_cut_at_from_and_healed_at_from_plus_for() {
    let (mut a, job) = ui_of(&["--scenario", "outage"]).unwrap();
    let job = job.expect("a job");
    assert_eq!(job.config.partitions, 4);
    assert_eq!(job.config.parallelism, 2);
    assert_eq!(
        job.outages,
        vec![Outage {
            partition: 1,
            from: 200_000.0,
            until: 290_000.0
        }]
    );
    assert!(
        a.steered.presses().is_empty(),
        "the outage is the job's, not a press"
    );
    // Played to 250 s: partition 1 is out and the combined watermark stalls.
    assert!(a.playing);
    tick(&mut a, 25.0);
    a.settle();
    let now = a.trace().job().expect("job mode").now();
    assert!((240_000.0..=260_000.0).contains(&now), "{now}");
    let parts = a.trace().partitions();
    assert!(parts[1].is_out);
    assert!(!parts[0].is_out);
    assert!(a.trace().watermark_stall().is_some_and(|d| d >= 40_000.0));
    // A dial change re-runs to the same outage; pressing p still cuts a partition off.
    act(&mut a, Action::LagUp);
    a.settle();
    assert!(a.trace().partitions()[1].is_out);
    act(&mut a, Action::CutPartition);
    assert!(a.trace().is_cut_off(0));
    // Played on past the heal: partition 1 is back, partition 0 still out.
    act(&mut a, Action::TogglePlay);
    if !a.playing {
        act(&mut a, Action::TogglePlay);
    }
    tick(&mut a, 6.0);
    a.settle();
    let parts = a.trace().partitions();
    assert!(!parts[1].is_out, "healed at 290 s");
    assert_eq!(parts[1].out, vec![(200_000.0, 290_000.0)]);
    assert!(parts[0].is_out);
    // A fresh start forgets the presses, not the job's outage.
    act(&mut a, Action::Restart);
    assert!(a.steered.presses().is_empty());
    if !a.playing {
        act(&mut a, Action::TogglePlay);
    }
    tick(&mut a, 25.0);
    a.settle();
    let parts = a.trace().partitions();
    assert!(parts[1].is_out && !parts[0].is_out);
}

#[test]
fn the_ui_takes_outage_flags_as_the_scenario_does() {
    let (_, job) = ui_of(&["--events", "2000", "--outage", "1@20s+10s"]).unwrap();
    let job = job.expect("a job");
    assert_eq!(job.config.partitions, 2, "the UI's own job");
    assert_eq!(
        job.outages,
        vec![Outage {
            partition: 1,
            from: 20_000.0,
            until: 30_000.0
        }]
    );
    let e = ui_of(&["--events", "2000", "--outage", "2@20s+10s"]).unwrap_err();
    assert!(e.contains("partition 2 does not exist"), "{e}");
}

/// The LATE panes whose session covers an earlier fired session of its key and more: a late
/// event that extended it (1) or bridged it with another (2 or more).
fn late_merges(panes: &[Value]) -> (usize, usize) {
    let mut fired: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let (mut extended, mut bridged) = (0, 0);
    for p in panes {
        let key = p["key"].as_str().unwrap().to_string();
        let span = (
            p["start_ms"].as_f64().unwrap(),
            p["end_ms"].as_f64().unwrap(),
        );
        let before = fired.entry(key).or_default();
        if p["timing"] == "LATE" {
            let mut inside: Vec<(f64, f64)> = before
                .iter()
                .copied()
                .filter(|&(s, e)| s >= span.0 && e <= span.1 && (s, e) != span)
                .collect();
            inside.sort_by(|a, b| a.partial_cmp(b).unwrap());
            inside.dedup();
            if !inside.is_empty() {
                extended += 1;
            }
            if inside.len() >= 2 {
                bridged += 1;
            }
        }
        before.push(span);
    }
    (extended, bridged)
}

#[test]
fn sessions_merge_late_and_their_dials_can_be_overridden() {
    let j = json(&["run", "--scenario", "sessions", "--format", "json"]);
    assert_eq!(j["config"]["window"], "30s-gap session");
    let events = j["events"].as_u64().unwrap();
    assert!((3_000..=10_000).contains(&events), "{events}");
    assert!(j["late"].as_u64().unwrap() > 0);
    let mut panes = j["panes"].as_array().unwrap().clone();
    panes.sort_by(|a, b| {
        a["proc_time_ms"]
            .as_f64()
            .partial_cmp(&b["proc_time_ms"].as_f64())
            .unwrap()
    });
    let (extended, bridged) = late_merges(&panes);
    assert!(extended >= 3, "{extended}");
    assert!(bridged >= 1, "{bridged}");
    // Keys are user names, longer than one character, in the JSON and the CSV.
    assert!(j["windows"][0]["key"].as_str().unwrap().starts_with('u'));
    let csv = output(&["stream", "--scenario", "sessions"]).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",u"));

    let j = json(&[
        "run",
        "--scenario",
        "sessions",
        "--session",
        "20s",
        "--format",
        "json",
    ]);
    assert_eq!(j["config"]["window"], "20s-gap session");
    assert_eq!(j["config"]["watermark"], "fixed:10s", "the scenario's");
    let j = json(&[
        "run",
        "--scenario",
        "sessions",
        "--grace",
        "0s",
        "--format",
        "json",
    ]);
    assert_eq!(j["config"]["window"], "30s-gap session", "the scenario's");
    assert!(j["dropped"].as_u64().unwrap() > 0);
}

#[test]
fn the_lesson_has_every_fate_and_every_pane_timing() {
    let j = json(&["run", "--scenario", "lesson", "--format", "json"]);
    assert_eq!(j["config"]["window"], "30s tumbling");
    assert!(j["config"]["early"].is_string());
    assert_eq!(j["events"], 200);
    for fate in ["on_time", "late", "dropped"] {
        assert!(j[fate].as_u64().unwrap() > 0, "{fate}");
    }
    let panes = j["panes"].as_array().unwrap();
    for timing in ["EARLY", "ON_TIME", "LATE"] {
        assert!(panes.iter().any(|p| p["timing"] == timing), "{timing}");
    }
    let s = ScenarioName::Lesson.preset().source.stream().unwrap();
    assert_eq!(s.keys, ["a", "b"]);
    assert!(s
        .events
        .iter()
        .all(|e| (0.0..300_000.0).contains(&e.event_time)));
    // Another seed moves the ordinary events, not the fates placed by hand.
    let j = json(&[
        "run",
        "--scenario",
        "lesson",
        "--seed",
        "8",
        "--format",
        "json",
    ]);
    assert_eq!(
        (j["late"].as_u64(), j["dropped"].as_u64()),
        (Some(6), Some(4))
    );
}

#[test]
fn the_lesson_opens_paused_at_one_x() {
    let (a, _) = ui_of(&["--scenario", "lesson"]).unwrap();
    assert!(!a.playing);
    assert_eq!(a.dials().speed, 1.0);
    let (a, _) = ui_of(&["--scenario", "lesson", "--speed", "5"]).unwrap();
    assert_eq!(a.dials().speed, 5.0);
    let (a, _) = ui_of(&["--scenario", "classroom"]).unwrap();
    assert!(a.playing);
    assert_eq!(a.dials().speed, 10.0);
}

#[test]
fn the_sessions_scenario_has_late_events_bridging_two_fired_sessions() {
    let p = ScenarioName::Sessions.preset();
    let stream = p.source.stream().unwrap();
    let t = Timeline::run_to(p.config, &stream, stream.len(), true);
    // A kept late event whose window reached two sessions the watermark had passed: one
    // session of the two, and that one right (the oracle merges them too).
    let bridges: Vec<_> = t
        .session_changes()
        .iter()
        .filter(|c| c.is_bridge() && c.late && c.fired == 2)
        .collect();
    assert!(bridges.len() >= 10, "{}", bridges.len());
    // One near the tour's sessions step: key u222, before 665 s.
    assert!(
        bridges
            .iter()
            .any(|c| stream.key_name(c.key) == "u222"
                && (590_000.0..665_000.0).contains(&c.proc_time))
    );
    let finals = t
        .final_score(&Oracle::true_counts(&stream, &p.config.window))
        .unwrap();
    assert_eq!(finals.score.events_lost, 0, "{finals:?}");
}

#[test]
fn generated_scenarios_are_deterministic_and_seeded() {
    let sessions = |seed| Source::Sessions { seed }.stream().unwrap();
    let lesson = |seed| Source::Lesson { seed }.stream().unwrap();
    assert_eq!(sessions(1), sessions(1));
    assert_ne!(sessions(1), sessions(2));
    assert_eq!(lesson(7), lesson(7));
    let preset = ScenarioName::Sessions.preset();
    assert!(matches!(preset.source, Source::Sessions { .. }));
    assert_eq!(
        preset.source.stream().unwrap(),
        sessions(preset.source.seed())
    );
    // A changed seed is a custom stream.
    let (a, _) = ui_of(&["--scenario", "lesson", "--seed", "8"]).unwrap();
    assert_eq!(a.scenario().name, "lesson (custom)");
}

#[test]
fn scenario_errors_are_one_line() {
    for (args, names) in [
        (
            &["run", "--scenario", "lesson", "--input", "x.csv"][..],
            "--input",
        ),
        (
            &["stream", "--scenario", "sessions", "--events", "9"],
            "--events",
        ),
        (&["run", "--scenario", "lesson", "--keys", "xyz"], "--keys"),
        (&["run", "--scenario", "bogus"], "bogus"),
        (
            &["frontier", "--scenario", "lesson", "--grace", "5s"],
            "--grace",
        ),
    ] {
        let e = output(args).unwrap_err();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(names), "{args:?}: {e}");
    }
}
